import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
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

interface TransactionBody {
  id: number
  name: string
  description: string
  serviceId: number
  serviceName: string
  tags: string[]
  link: string
  dslType: string
  dsl: {
    priority: number
    requestDsl: {
      method?: string
      path?: string
      url?: { key?: string; matcherName: string; matchingValue?: string }
      headers?: unknown[]
    }
    responseDsl: { status: number; content?: string; contentType?: string }
  }
}

const transactionKeys = [
  'description',
  'dsl',
  'dslType',
  'id',
  'link',
  'name',
  'serviceId',
  'serviceName',
  'tags',
]

describe('/api/v1 transactions: create, get, update, delete', () => {
  it('creates one transaction from JSON with 200 and the Transaction as result', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    const res = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      json: {
        transactions: [txn('get pet', '/pets/{id}', { tags: ['smoke'], description: 'One pet' })],
      },
    })
    expect(res.status).toBe(200)
    const body = await envelope<TransactionBody>(res)
    expect(body.error).toBeNull()
    const t = body.result
    expect(Object.keys(t).sort()).toEqual(transactionKeys)
    expect(t).toMatchObject({
      name: 'get pet',
      description: 'One pet',
      serviceId,
      serviceName: 'pets',
      tags: ['smoke'],
      link: `/api/v1/workspaces/${platform.workspaceId}/transactions/${t.id}`,
      dslType: 'GENERIC_DSL',
    })
    expect(t.dsl.priority).toBe(10)
    expect(t.dsl.requestDsl).toMatchObject({
      method: 'GET',
      path: '/pets/{id}',
      url: { matcherName: 'equals_url', matchingValue: '/pets/{id}' },
    })
    expect(t.dsl.responseDsl.status).toBe(200)
    expect(Buffer.from(t.dsl.responseDsl.content ?? '', 'base64').toString()).toBe(
      '{"name":"get pet"}',
    )
  })

  it('creates several transactions at once and answers them as an array, in order', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      json: { transactions: [txn('a', '/a'), txn('b', '/b', { method: 'POST' })] },
    })
    expect(res.status).toBe(200)
    const { result } = await envelope<TransactionBody[]>(res)
    expect(result.map((t) => [t.name, t.dsl.requestDsl.method])).toEqual([
      ['a', 'GET'],
      ['b', 'POST'],
    ])
  })

  it('names a transaction without a name after its method and path, and answers description as a string', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      json: {
        transactions: [
          { dsl: { requestDsl: { method: 'delete', path: '/x' }, responseDsl: { status: 204 } } },
        ],
      },
    })
    const { result } = await envelope<TransactionBody>(res)
    expect(result).toMatchObject({ name: 'DELETE /x', description: '', tags: [] })
  })

  it('gets a transaction with 200 and the same shape', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    const [id] = await createTransactions(platform, serviceId, [txn('a', '/a', { tags: ['x'] })])
    const res = await platform.request(`${transactionsPath(platform)}/${id}`)
    expect(res.status).toBe(200)
    const { result } = await envelope<TransactionBody>(res)
    expect(Object.keys(result).sort()).toEqual(transactionKeys)
    expect(result).toMatchObject({ id, name: 'a', serviceId, serviceName: 'pets', tags: ['x'] })
  })

  it('refuses a batch whose third transaction is invalid, naming it, and creates none', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const bad = {
      name: 'bad',
      dsl: {
        requestDsl: { method: 'GET', url: { matcherName: 'matches', matchingValue: '(' } },
        responseDsl: { status: 200 },
      },
    }
    const res = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      json: { transactions: [txn('a', '/a'), txn('b', '/b'), bad] },
    })
    const body = await expectError(
      res,
      400,
      'ERR_DSL_INVALID',
      '/transactions/2/dsl/requestDsl/url/matchingValue',
    )
    expect(body.error?.details).toHaveLength(1)
    const list = await envelope<unknown[]>(await platform.request(transactionsPath(platform)))
    expect(list.total).toBe(0)
    const tags = await envelope<unknown[]>(await platform.request('/api/v1/tags'))
    expect(tags.total).toBe(0)
  })

  it('refuses every kind of invalid dsl with 400 and JSON pointers', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const post = (json: unknown) =>
      platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
        method: 'POST',
        json,
      })
    const cases: Array<[unknown, string]> = [
      [
        { transactions: [{ name: 'x', dsl: { requestDsl: { metod: 'GET' } } }] },
        '/transactions/0/dsl/requestDsl/metod',
      ],
      [
        {
          transactions: [
            {
              name: 'x',
              dsl: {
                requestDsl: { body: [{ key: '$..[', matcherName: 'equals', matchingValue: 'a' }] },
              },
            },
          ],
        },
        '/transactions/0/dsl/requestDsl/body/0/key',
      ],
      [
        {
          transactions: [
            {
              name: 'x',
              dsl: { requestDsl: { headers: [{ matcherName: 'equals', matchingValue: 'a' }] } },
            },
          ],
        },
        '/transactions/0/dsl/requestDsl/headers/0',
      ],
      [
        { transactions: [{ name: 'x', dsl: { requestDsl: {}, responseDsl: { status: 999 } } }] },
        '/transactions/0/dsl/responseDsl/status',
      ],
      [
        {
          transactions: [
            { name: 'x', dsl: { requestDsl: {}, responseDsl: { content: 'not base64!' } } },
          ],
        },
        '/transactions/0/dsl/responseDsl/content',
      ],
      [{ transactions: [{ name: 'x' }] }, '/transactions/0'],
    ]
    for (const [json, path] of cases) {
      await expectError(await post(json), 400, 'ERR_DSL_INVALID', path)
    }
    await expectError(await post({ transactions: [] }), 400, 'ERR_API_VALIDATION', '/transactions')
    await expectError(await post({ transactions: 'x' }), 400, 'ERR_API_VALIDATION', '/transactions')
    await expectError(await post({ other: 1 }), 400, 'ERR_API_VALIDATION', '/transactions')
    await expectError(
      await post({ transactions: [txn('a', '/a', { tags: ['ok', '  '] })] }),
      400,
      'ERR_API_VALIDATION',
      '/transactions/0/tags/1',
    )
    expect(
      (await envelope<unknown[]>(await platform.request(transactionsPath(platform)))).total,
    ).toBe(0)
  })

  it('needs the serviceId query parameter: 400 when missing or malformed, 404 when unknown or of another workspace', async () => {
    const platform = await startTestPlatform()
    const json = { transactions: [txn('a', '/a')] }
    await expectError(
      await platform.request(transactionsPath(platform), { method: 'POST', json }),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}?serviceId=abc`, {
        method: 'POST',
        json,
      }),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}?serviceId=999`, {
        method: 'POST',
        json,
      }),
      404,
      'ERR_API_NOT_FOUND',
      '/serviceId',
    )
    const second = await secondWorkspace(platform)
    const theirs = await createService(platform, 'theirs', second)
    await expectError(
      await platform.request(`${transactionsPath(platform)}?serviceId=${theirs}`, {
        method: 'POST',
        json,
      }),
      404,
      'ERR_API_NOT_FOUND',
    )
  })

  it('answers 415 for a body that is neither JSON nor multipart, and 400 for malformed JSON', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const text = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    })
    await expectError(text, 415, 'ERR_API_UNSUPPORTED_MEDIA_TYPE')
    const broken = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
      method: 'POST',
      body: '{"transactions": [',
      headers: { 'content-type': 'application/json' },
    })
    await expectError(broken, 400, 'ERR_API_BAD_REQUEST')
  })

  it('updates a transaction by PUT with 201 and the updated Transaction', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    const otherService = await createService(platform, 'orders')
    const [id] = await createTransactions(platform, serviceId, [txn('a', '/a', { tags: ['old'] })])
    const current = (
      await envelope<TransactionBody>(await platform.request(`${transactionsPath(platform)}/${id}`))
    ).result
    const sent = {
      ...current,
      name: 'renamed',
      description: 'changed',
      tags: ['new', 'tags'],
      serviceId: otherService,
      dsl: {
        ...current.dsl,
        requestDsl: { method: 'PUT', path: '/b' },
        responseDsl: { status: 201, text: 'ok' },
      },
    }
    const res = await platform.request(`${transactionsPath(platform)}/${id}`, {
      method: 'PUT',
      json: sent,
    })
    expect(res.status).toBe(201)
    const { result } = await envelope<TransactionBody>(res)
    expect(result).toMatchObject({
      id,
      name: 'renamed',
      description: 'changed',
      tags: ['new', 'tags'],
      serviceId: otherService,
      serviceName: 'orders',
    })
    expect(result.dsl.requestDsl).toMatchObject({ method: 'PUT', path: '/b' })
    expect(result.dsl.responseDsl).toMatchObject({
      status: 201,
      content: Buffer.from('ok').toString('base64'),
    })
    const again = (
      await envelope<TransactionBody>(await platform.request(`${transactionsPath(platform)}/${id}`))
    ).result
    expect(again).toEqual(result)
    const tags = (
      await envelope<Array<{ name: string }>>(await platform.request('/api/v1/tags?sort=name'))
    ).result.map((t) => t.name)
    expect(tags).toEqual(['new', 'old', 'tags'])
  })

  it('keeps what a partial PUT leaves out', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const [id] = await createTransactions(platform, serviceId, [txn('a', '/a', { tags: ['t'] })])
    const res = await platform.request(`${transactionsPath(platform)}/${id}`, {
      method: 'PUT',
      json: { name: 'b' },
    })
    expect(res.status).toBe(201)
    const { result } = await envelope<TransactionBody>(res)
    expect(result).toMatchObject({
      name: 'b',
      description: 'a description',
      tags: ['t'],
      serviceId,
    })
    expect(result.dsl.requestDsl.path).toBe('/a')
  })

  it('refuses an invalid PUT with 400 naming the field, changing nothing', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const [id] = (await createTransactions(platform, serviceId, [txn('a', '/a')])) as [number]
    const put = (json: unknown) =>
      platform.request(`${transactionsPath(platform)}/${id}`, { method: 'PUT', json })
    await expectError(
      await put({
        name: 'b',
        dsl: { requestDsl: { url: { matcherName: 'matches', matchingValue: '[' } } },
      }),
      400,
      'ERR_DSL_INVALID',
      '/dsl/requestDsl/url/matchingValue',
    )
    await expectError(await put({ id: id + 1, name: 'b' }), 400, 'ERR_API_VALIDATION', '/id')
    await expectError(await put({ name: 5 }), 400, 'ERR_API_VALIDATION', '/name')
    await expectError(await put({ tags: 'x' }), 400, 'ERR_API_VALIDATION', '/tags')
    await expectError(await put({ serviceId: 'x' }), 400, 'ERR_API_VALIDATION', '/serviceId')
    await expectError(await put({ serviceId: 999 }), 404, 'ERR_API_NOT_FOUND', '/serviceId')
    await expectError(await put('text'), 400, 'ERR_API_VALIDATION')
    const { result } = await envelope<TransactionBody>(
      await platform.request(`${transactionsPath(platform)}/${id}`),
    )
    expect(result.name).toBe('a')
  })

  it('deletes a transaction with the {body, statusCode, statusCodeValue} body', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const [id] = await createTransactions(platform, serviceId, [txn('a', '/a')])
    const res = await platform.request(`${transactionsPath(platform)}/${id}`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ body: null, statusCode: 'OK', statusCodeValue: 200 })
    await expectError(
      await platform.request(`${transactionsPath(platform)}/${id}`),
      404,
      'ERR_API_NOT_FOUND',
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}/${id}`, { method: 'DELETE' }),
      404,
      'ERR_API_NOT_FOUND',
    )
  })

  it('answers 404 for unknown ids and for a transaction of another workspace', async () => {
    const platform = await startTestPlatform()
    const second = await secondWorkspace(platform)
    const theirService = await createService(platform, 'theirs', second)
    const res = await platform.request(
      `${transactionsPath(platform, second)}?serviceId=${theirService}`,
      { method: 'POST', json: { transactions: [txn('a', '/a')] } },
    )
    const theirs = (await envelope<TransactionBody>(res)).result.id
    for (const id of [999, theirs]) {
      await expectError(
        await platform.request(`${transactionsPath(platform)}/${id}`),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${transactionsPath(platform)}/${id}`, {
          method: 'PUT',
          json: { name: 'x' },
        }),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${transactionsPath(platform)}/${id}`, { method: 'DELETE' }),
        404,
        'ERR_API_NOT_FOUND',
      )
    }
    expect((await platform.request(`${transactionsPath(platform, second)}/${theirs}`)).status).toBe(
      200,
    )
    await expectError(
      await platform.request(`${transactionsPath(platform)}/x`),
      400,
      'ERR_API_VALIDATION',
      '/transactionId',
    )
  })

  it('answers 404 for another account, 401 without credentials, 404 for an unknown workspace', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => transactionsPath(platform, ws))
    await expectScoped(platform, (ws) => `${transactionsPath(platform, ws)}/1`)
    await expectScoped(platform, (ws) => `${transactionsPath(platform, ws)}?serviceId=1`, {
      method: 'POST',
      json: { transactions: [txn('a', '/a')] },
    })
  })
})
