import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import {
  createService,
  createTransactions,
  envelope,
  expectError,
  formOf,
  secondWorkspace,
  transactionsPath,
  txn,
} from './catalog-helpers.js'

interface Listed {
  id: number
  name: string
  serviceId: number
  serviceName: string
  tags: string[]
  dslType: string
}

/** Two services with five transactions, one of them imported from a HAR (dslType HAR_DSL). */
async function seed(platform: TestPlatform) {
  const pets = await createService(platform, 'pets')
  const orders = await createService(platform, 'orders')
  await createTransactions(platform, pets, [
    txn('list pets', '/pets', { tags: ['smoke', 'read'], description: 'All the animals' }),
    txn('create pet', '/pets', { method: 'POST', tags: ['write'] }),
    txn('get pet', '/pets/{id}', { tags: ['read'] }),
  ])
  await createTransactions(platform, orders, [
    txn('list orders', '/orders', { tags: ['smoke'], description: 'Pet food orders' }),
  ])
  const har = {
    log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [harEntry('/orders/1')] },
  }
  const res = await platform.request(transactionsPath(platform), {
    method: 'POST',
    body: formOf({ serviceId: String(orders) }, [
      { name: 'orders.har', bytes: JSON.stringify(har) },
    ]),
  })
  expect(res.status).toBe(200)
  return { pets, orders }
}

function harEntry(path: string) {
  return {
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `http://example.com${path}`,
      httpVersion: 'HTTP/1.1',
      headers: [],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: 2, mimeType: 'application/json', text: '{}' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 2,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  }
}

async function names(
  platform: TestPlatform,
  query: string,
): Promise<{ names: string[]; total: number | undefined }> {
  const res = await platform.request(`${transactionsPath(platform)}?sort=id&${query}`)
  expect(res.status).toBe(200)
  const page = await envelope<Listed[]>(res)
  return { names: page.result.map((t) => t.name), total: page.total }
}

describe('/api/v1 transactions: list and filters', () => {
  it('lists every transaction of the workspace with limit, skip and total', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    const page = await envelope<Listed[]>(
      await platform.request(`${transactionsPath(platform)}?limit=2&skip=1&sort=id`),
    )
    expect(page).toMatchObject({ limit: 2, skip: 1, total: 5 })
    expect(page.result.map((t) => t.name)).toEqual(['create pet', 'get pet'])
    expect(page.result[0]).toMatchObject({ serviceName: 'pets', dslType: 'GENERIC_DSL' })
  })

  it('filters by serviceId', async () => {
    const platform = await startTestPlatform()
    const { orders } = await seed(platform)
    expect(await names(platform, `serviceId=${orders}`)).toEqual({
      names: ['list orders', 'GET /orders/1'],
      total: 2,
    })
  })

  it('filters by exact name', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    expect(await names(platform, `name=${encodeURIComponent('get pet')}`)).toEqual({
      names: ['get pet'],
      total: 1,
    })
    expect((await names(platform, 'name=get')).total).toBe(0)
  })

  it('filters by a case-insensitive substring of name or description (search, alias contains)', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    expect(await names(platform, 'search=PET')).toEqual({
      names: ['list pets', 'create pet', 'get pet', 'list orders'],
      total: 4,
    })
    expect(await names(platform, 'contains=animals')).toEqual({ names: ['list pets'], total: 1 })
  })

  it('filters by tags, comma-separated or repeated, a transaction carrying all of them', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    expect(await names(platform, 'tags=smoke')).toEqual({
      names: ['list pets', 'list orders'],
      total: 2,
    })
    expect(await names(platform, 'tags=smoke,read')).toEqual({ names: ['list pets'], total: 1 })
    expect(await names(platform, 'tags=smoke&tags=read')).toEqual({
      names: ['list pets'],
      total: 1,
    })
    expect(await names(platform, 'tag=write')).toEqual({ names: ['create pet'], total: 1 })
  })

  it('filters by dslType, case-insensitively', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    expect(await names(platform, 'dslType=har_dsl')).toEqual({ names: ['GET /orders/1'], total: 1 })
    expect((await names(platform, 'dslType=GENERIC_DSL')).total).toBe(4)
  })

  it('combines filters, paging and sorting', async () => {
    const platform = await startTestPlatform()
    const { pets } = await seed(platform)
    const page = await envelope<Listed[]>(
      await platform.request(
        `${transactionsPath(platform)}?serviceId=${pets}&tags=read&sort=-name&limit=1`,
      ),
    )
    expect(page).toMatchObject({ total: 2, limit: 1, skip: 0 })
    expect(page.result.map((t) => t.name)).toEqual(['list pets'])
  })

  it('answers an empty list (total 0) for a service without transactions or of another workspace', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    const second = await secondWorkspace(platform)
    const theirs = await createService(platform, 'theirs', second)
    expect(await names(platform, `serviceId=${theirs}`)).toEqual({ names: [], total: 0 })
    expect(await names(platform, 'serviceId=9999')).toEqual({ names: [], total: 0 })
  })

  it('never lists the transactions of another workspace', async () => {
    const platform = await startTestPlatform()
    await seed(platform)
    const second = await secondWorkspace(platform)
    const page = await envelope<Listed[]>(
      await platform.request(transactionsPath(platform, second)),
    )
    expect(page).toMatchObject({ result: [], total: 0 })
  })

  it('refuses malformed filters and paging with 400 naming the parameter', async () => {
    const platform = await startTestPlatform()
    await expectError(
      await platform.request(`${transactionsPath(platform)}?serviceId=pets`),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}?limit=1.5`),
      400,
      'ERR_API_VALIDATION',
      '/limit',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}?sort=dsl`),
      400,
      'ERR_API_VALIDATION',
      '/sort',
    )
  })
})
