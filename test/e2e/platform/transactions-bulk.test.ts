import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import {
  createService,
  createTransactions,
  envelope,
  expectError,
  expectScoped,
  secondWorkspace,
  transactionsPath,
  txn,
} from './catalog-helpers.js'

async function tagsOf(platform: TestPlatform, id: number): Promise<string[]> {
  return (
    await envelope<{ tags: string[] }>(
      await platform.request(`${transactionsPath(platform)}/${id}`),
    )
  ).result.tags
}

async function patch(
  platform: TestPlatform,
  json: unknown,
  workspaceId = platform.workspaceId,
): Promise<Response> {
  return platform.request(transactionsPath(platform, workspaceId), { method: 'PATCH', json })
}

async function seed(platform: TestPlatform): Promise<number[]> {
  const serviceId = await createService(platform)
  return createTransactions(platform, serviceId, [
    txn('a', '/a', { tags: ['keep'] }),
    txn('b', '/b', { tags: ['keep', 'drop'] }),
    txn('c', '/c'),
  ])
}

describe('/api/v1 transactions: bulk PATCH', () => {
  it('deletes the listed transactions and answers {body: [ids], statusCode, statusCodeValue}', async () => {
    const platform = await startTestPlatform()
    const [a, b, c] = (await seed(platform)) as [number, number, number]
    const res = await patch(platform, { action: 'DELETE', transactions: [a, c] })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ body: [a, c], statusCode: 'OK', statusCodeValue: 200 })
    const left = await envelope<Array<{ id: number }>>(
      await platform.request(transactionsPath(platform)),
    )
    expect(left.result.map((t) => t.id)).toEqual([b])
  })

  it('adds tags (ADD_TAGS and its aliases), creating tags that do not exist', async () => {
    const platform = await startTestPlatform()
    const [a, b] = (await seed(platform)) as [number, number]
    const res = await patch(platform, {
      action: 'ADD_TAGS',
      tags: ['new', 'keep'],
      transactions: [a, b],
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ body: [a, b], statusCode: 'OK', statusCodeValue: 200 })
    expect(await tagsOf(platform, a)).toEqual(['keep', 'new'])
    expect(await tagsOf(platform, b)).toEqual(['keep', 'drop', 'new'])
    expect(
      (await patch(platform, { action: 'tag', tags: ['alias'], transactions: [a] })).status,
    ).toBe(200)
    expect(
      (await patch(platform, { action: 'add-tags', tags: ['dash'], transactions: [a] })).status,
    ).toBe(200)
    expect(await tagsOf(platform, a)).toEqual(['keep', 'new', 'alias', 'dash'])
    const tags = (
      await envelope<Array<{ name: string }>>(await platform.request('/api/v1/tags?sort=name'))
    ).result.map((t) => t.name)
    expect(tags).toEqual(['alias', 'dash', 'drop', 'keep', 'new'])
  })

  it('removes tags (REMOVE_TAGS, alias UNTAG)', async () => {
    const platform = await startTestPlatform()
    const [a, b] = (await seed(platform)) as [number, number]
    expect(
      (await patch(platform, { action: 'REMOVE_TAGS', tags: ['drop'], transactions: [a, b] }))
        .status,
    ).toBe(200)
    expect(await tagsOf(platform, b)).toEqual(['keep'])
    expect(
      (await patch(platform, { action: 'untag', tags: ['keep'], transactions: [a, b] })).status,
    ).toBe(200)
    expect(await tagsOf(platform, a)).toEqual([])
    expect(await tagsOf(platform, b)).toEqual([])
  })

  it('replaces tags with SET_TAGS, and clears them with an empty list', async () => {
    const platform = await startTestPlatform()
    const [a, b] = (await seed(platform)) as [number, number]
    expect(
      (await patch(platform, { action: 'SET_TAGS', tags: ['only'], transactions: [a, b] })).status,
    ).toBe(200)
    expect(await tagsOf(platform, b)).toEqual(['only'])
    expect(
      (await patch(platform, { action: 'SET_TAGS', tags: [], transactions: [b] })).status,
    ).toBe(200)
    expect(await tagsOf(platform, b)).toEqual([])
  })

  it('refuses an unknown action with 400 naming it', async () => {
    const platform = await startTestPlatform()
    const [a] = (await seed(platform)) as [number]
    const body = await expectError(
      await patch(platform, { action: 'ARCHIVE', transactions: [a] }),
      400,
      'ERR_API_VALIDATION',
      '/action',
    )
    expect(body.error?.message).toContain('ARCHIVE')
  })

  it('refuses malformed bodies with 400 naming the field', async () => {
    const platform = await startTestPlatform()
    const [a] = (await seed(platform)) as [number]
    await expectError(
      await patch(platform, { transactions: [a] }),
      400,
      'ERR_API_VALIDATION',
      '/action',
    )
    await expectError(
      await patch(platform, { action: 'DELETE' }),
      400,
      'ERR_API_VALIDATION',
      '/transactions',
    )
    await expectError(
      await patch(platform, { action: 'DELETE', transactions: [] }),
      400,
      'ERR_API_VALIDATION',
      '/transactions',
    )
    await expectError(
      await patch(platform, { action: 'DELETE', transactions: ['a'] }),
      400,
      'ERR_API_VALIDATION',
      '/transactions/0',
    )
    await expectError(
      await patch(platform, { action: 'ADD_TAGS', transactions: [a] }),
      400,
      'ERR_API_VALIDATION',
      '/tags',
    )
    await expectError(
      await patch(platform, { action: 'ADD_TAGS', tags: [], transactions: [a] }),
      400,
      'ERR_API_VALIDATION',
      '/tags',
    )
    await expectError(
      await patch(platform, { action: 'ADD_TAGS', tags: ['ok', ''], transactions: [a] }),
      400,
      'ERR_API_VALIDATION',
      '/tags/1',
    )
    const text = await platform.request(transactionsPath(platform), {
      method: 'PATCH',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    })
    await expectError(text, 415, 'ERR_API_UNSUPPORTED_MEDIA_TYPE')
    expect(await tagsOf(platform, a)).toEqual(['keep'])
  })

  it('changes nothing when one id is unknown or of another workspace, answering 404 naming it', async () => {
    const platform = await startTestPlatform()
    const [a, b] = (await seed(platform)) as [number, number]
    const second = await secondWorkspace(platform)
    const theirService = await createService(platform, 'theirs', second)
    const res = await platform.request(
      `${transactionsPath(platform, second)}?serviceId=${theirService}`,
      { method: 'POST', json: { transactions: [txn('x', '/x')] } },
    )
    const theirs = (await envelope<{ id: number }>(res)).result.id
    await expectError(
      await patch(platform, { action: 'DELETE', transactions: [a, b, 9999] }),
      404,
      'ERR_API_NOT_FOUND',
      '/transactions/2',
    )
    await expectError(
      await patch(platform, { action: 'ADD_TAGS', tags: ['t'], transactions: [a, theirs] }),
      404,
      'ERR_API_NOT_FOUND',
      '/transactions/1',
    )
    expect(
      (await envelope<unknown[]>(await platform.request(transactionsPath(platform)))).total,
    ).toBe(3)
    expect(await tagsOf(platform, a)).toEqual(['keep'])
    expect((await platform.request(`${transactionsPath(platform, second)}/${theirs}`)).status).toBe(
      200,
    )
  })

  it('answers 404 for another account, 401 without credentials', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => transactionsPath(platform, ws), {
      method: 'PATCH',
      json: { action: 'DELETE', transactions: [1] },
    })
  })
})
