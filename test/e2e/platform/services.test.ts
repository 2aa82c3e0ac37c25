import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
import {
  createService,
  createTransactions,
  envelope,
  expectError,
  expectScoped,
  insertMockService,
  secondWorkspace,
  servicesPath,
  transactionsPath,
  txn,
} from './catalog-helpers.js'

interface ServiceBody {
  id: number
  name: string
  description: string | null
  created: number
  updated: number
  createdBy: string
  updatedBy: string
}

describe('/api/v1 services', () => {
  it('creates a service with 201 and the exact Service shape (epoch-second timestamps)', async () => {
    const platform = await startTestPlatform()
    const before = Math.floor(Date.now() / 1000)
    const res = await platform.request(servicesPath(platform), {
      method: 'POST',
      json: { name: 'pets', description: 'Pet store' },
    })
    expect(res.status).toBe(201)
    const body = await envelope<ServiceBody>(res)
    expect(body).toMatchObject({ apiVersion: 1, error: null })
    expect(typeof body.requestId).toBe('string')
    expect(Object.keys(body.result).sort()).toEqual([
      'created',
      'createdBy',
      'description',
      'id',
      'name',
      'updated',
      'updatedBy',
    ])
    expect(body.result).toMatchObject({
      name: 'pets',
      description: 'Pet store',
      createdBy: 'admin@understudy.local',
      updatedBy: 'admin@understudy.local',
    })
    expect(Number.isInteger(body.result.id)).toBe(true)
    expect(Number.isInteger(body.result.created)).toBe(true)
    expect(body.result.created).toBeGreaterThanOrEqual(before)
    expect(body.result.created).toBeLessThan(before + 60)
  })

  it('creates a service without description as description null, and trims the name', async () => {
    const platform = await startTestPlatform()
    const res = await platform.request(servicesPath(platform), {
      method: 'POST',
      json: { name: '  orders  ' },
    })
    expect(res.status).toBe(201)
    expect((await envelope<ServiceBody>(res)).result).toMatchObject({
      name: 'orders',
      description: null,
    })
  })

  it('gets a service with 200 (the spec sample shows 201)', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    const res = await platform.request(`${servicesPath(platform)}/${id}`)
    expect(res.status).toBe(200)
    expect((await envelope<ServiceBody>(res)).result).toMatchObject({
      id,
      name: 'pets',
      description: 'pets service',
    })
  })

  it('lists services paged with limit, skip and total, sorted by a field', async () => {
    const platform = await startTestPlatform()
    for (const name of ['charlie', 'alpha', 'delta', 'bravo']) await createService(platform, name)
    const res = await platform.request(`${servicesPath(platform)}?limit=2&skip=1&sort=name`)
    expect(res.status).toBe(200)
    const page = await envelope<ServiceBody[]>(res)
    expect(page).toMatchObject({ limit: 2, skip: 1, total: 4 })
    expect(page.result.map((s) => s.name)).toEqual(['bravo', 'charlie'])
    const desc = await envelope<ServiceBody[]>(
      await platform.request(`${servicesPath(platform)}?sort=-name`),
    )
    expect(desc.result.map((s) => s.name)).toEqual(['delta', 'charlie', 'bravo', 'alpha'])
    expect(desc).toMatchObject({ limit: 50, skip: 0, total: 4 })
  })

  it('always returns total on an empty list', async () => {
    const platform = await startTestPlatform()
    const page = await envelope<unknown[]>(await platform.request(servicesPath(platform)))
    expect(page).toMatchObject({ result: [], total: 0, limit: 50, skip: 0 })
  })

  it('refuses bad paging and sort parameters with 400 naming them', async () => {
    const platform = await startTestPlatform()
    await expectError(
      await platform.request(`${servicesPath(platform)}?limit=ten`),
      400,
      'ERR_API_VALIDATION',
      '/limit',
    )
    await expectError(
      await platform.request(`${servicesPath(platform)}?skip=-1`),
      400,
      'ERR_API_VALIDATION',
      '/skip',
    )
    await expectError(
      await platform.request(`${servicesPath(platform)}?sort=password`),
      400,
      'ERR_API_VALIDATION',
      '/sort',
    )
  })

  it('updates a service by PUT with 201, keeping the description when it is left out', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    const res = await platform.request(`${servicesPath(platform)}/${id}`, {
      method: 'PUT',
      json: { id, name: 'animals', description: 'All animals' },
    })
    expect(res.status).toBe(201)
    expect((await envelope<ServiceBody>(res)).result).toMatchObject({
      id,
      name: 'animals',
      description: 'All animals',
    })
    const renamed = await platform.request(`${servicesPath(platform)}/${id}`, {
      method: 'PUT',
      json: { name: 'beasts' },
    })
    expect((await envelope<ServiceBody>(renamed)).result).toMatchObject({
      name: 'beasts',
      description: 'All animals',
    })
    const cleared = await platform.request(`${servicesPath(platform)}/${id}`, {
      method: 'PUT',
      json: { name: 'beasts', description: null },
    })
    expect((await envelope<ServiceBody>(cleared)).result.description).toBeNull()
  })

  it('answers 409 for a duplicate name on create and on rename, changing nothing', async () => {
    const platform = await startTestPlatform()
    await createService(platform, 'pets')
    const other = await createService(platform, 'orders')
    const dup = await platform.request(servicesPath(platform), {
      method: 'POST',
      json: { name: 'pets' },
    })
    await expectError(dup, 409, 'ERR_API_CONFLICT', '/name')
    const rename = await platform.request(`${servicesPath(platform)}/${other}`, {
      method: 'PUT',
      json: { name: 'pets' },
    })
    await expectError(rename, 409, 'ERR_API_CONFLICT', '/name')
    const list = await envelope<ServiceBody[]>(
      await platform.request(`${servicesPath(platform)}?sort=id`),
    )
    expect(list.result.map((s) => s.name)).toEqual(['pets', 'orders'])
  })

  it('allows the same service name in two workspaces', async () => {
    const platform = await startTestPlatform()
    await createService(platform, 'pets')
    const second = await secondWorkspace(platform)
    await createService(platform, 'pets', second)
  })

  it('refuses malformed bodies with 400 naming the field', async () => {
    const platform = await startTestPlatform()
    const post = (json: unknown) =>
      platform.request(servicesPath(platform), { method: 'POST', json })
    await expectError(await post({}), 400, 'ERR_API_VALIDATION', '/name')
    await expectError(await post({ name: '   ' }), 400, 'ERR_API_VALIDATION', '/name')
    await expectError(await post({ name: 7 }), 400, 'ERR_API_VALIDATION', '/name')
    await expectError(
      await post({ name: 'x', description: 5 }),
      400,
      'ERR_API_VALIDATION',
      '/description',
    )
    await expectError(await post([]), 400, 'ERR_API_VALIDATION')
    const malformed = await platform.request(servicesPath(platform), {
      method: 'POST',
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    })
    await expectError(malformed, 400, 'ERR_API_BAD_REQUEST')
    const id = await createService(platform, 'pets')
    const put = await platform.request(`${servicesPath(platform)}/${id}`, {
      method: 'PUT',
      json: { id: id + 1, name: 'x' },
    })
    await expectError(put, 400, 'ERR_API_VALIDATION', '/id')
    await expectError(
      await platform.request(`${servicesPath(platform)}/${id}`, {
        method: 'PUT',
        json: { description: 'x' },
      }),
      400,
      'ERR_API_VALIDATION',
      '/name',
    )
    await expectError(
      await platform.request(`${servicesPath(platform)}/abc`),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
  })

  it('answers 415 for a body that is not JSON', async () => {
    const platform = await startTestPlatform()
    const res = await platform.request(servicesPath(platform), {
      method: 'POST',
      body: 'name=pets',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    await expectError(res, 415, 'ERR_API_UNSUPPORTED_MEDIA_TYPE')
  })

  it('answers 404 for an unknown service and for a service of another workspace', async () => {
    const platform = await startTestPlatform()
    const second = await secondWorkspace(platform)
    const theirs = await createService(platform, 'theirs', second)
    for (const id of [999, theirs]) {
      await expectError(
        await platform.request(`${servicesPath(platform)}/${id}`),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${servicesPath(platform)}/${id}`, {
          method: 'PUT',
          json: { name: 'x' },
        }),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${servicesPath(platform)}/${id}`, { method: 'DELETE' }),
        404,
        'ERR_API_NOT_FOUND',
      )
    }
    const still = await envelope<ServiceBody>(
      await platform.request(`${servicesPath(platform, second)}/${theirs}`),
    )
    expect(still.result.name).toBe('theirs')
  })

  it('answers 404 for a workspace of another account, 401 without credentials, 404 for an unknown workspace', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => servicesPath(platform, ws))
    await expectScoped(platform, (ws) => servicesPath(platform, ws), {
      method: 'POST',
      json: { name: 'x' },
    })
  })

  it('deletes a service with the {body, statusCode, statusCodeValue} body, and its transactions with it', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    const [txnId] = await createTransactions(platform, id, [txn('list', '/pets')])
    const res = await platform.request(`${servicesPath(platform)}/${id}`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ body: null, statusCode: 'OK', statusCodeValue: 200 })
    await expectError(
      await platform.request(`${servicesPath(platform)}/${id}`),
      404,
      'ERR_API_NOT_FOUND',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}/${txnId}`),
      404,
      'ERR_API_NOT_FOUND',
    )
  })

  it('refuses with 409 to delete a service that a mock service uses, and keeps it', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await insertMockService(platform, id)
    await expectError(
      await platform.request(`${servicesPath(platform)}/${id}`, { method: 'DELETE' }),
      409,
      'ERR_API_CONFLICT',
    )
    expect((await platform.request(`${servicesPath(platform)}/${id}`)).status).toBe(200)
  })
})
