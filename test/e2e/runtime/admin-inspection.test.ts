import { describe, expect, it } from 'vitest'
import {
  adminCall,
  adminUrl,
  inspectionDetail,
  inspectionList,
  putConfig,
} from '../../helpers/admin.js'
import { startServer } from '../../helpers/server.js'

/*
 * The runtime's admin listener: health, inspection (docs/decisions.md#inspection-ring,
 * docs/api.md#analytics), configuration swap and log, all in the envelope of the mock services
 * specification.
 */

const listFields = [
  'id',
  'serviceMockId',
  'type',
  'transactionId',
  'operation',
  'url',
  'timestamp',
  'arguments',
  'matchType',
  'matchTolerance',
  'respondingTxn',
  'txnPriority',
  'hasError',
  'matched',
  'source',
  'liveTransactionCreated',
  'hash',
  'detailsHash',
  'webHookName',
  'webHookId',
  'modelEntity',
  'actionName',
  'objectAction',
]
const detailFields = [
  'serviceMockId',
  'type',
  'stepDetails',
  'matchingData',
  'sessionData',
  'requestBody',
  'requestHeaders',
  'responseBody',
  'responseHeaders',
  'statusCode',
  'hash',
  'filters',
  'parameters',
  'changedRowsCount',
]

const pet = {
  id: 11,
  name: 'get pet',
  dsl: {
    priority: 4,
    requestDsl: { method: 'GET', path: '/pets/{id}' },
    responseDsl: { json: { name: 'Rex' } },
  },
}
const upload = {
  id: 12,
  name: 'upload',
  dsl: {
    requestDsl: { method: 'POST', path: '/upload' },
    responseDsl: { status: 201, text: 'stored: a long enough answer body' },
  },
}
const mock = { id: 77, name: 'pets mock', transactions: [pet, upload] }

async function get(url: string): Promise<void> {
  await (await fetch(url)).arrayBuffer()
}

describe('admin: health and log', () => {
  it('GET /health reports UP in the envelope', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const { status, contentType, body } = await adminCall<Record<string, unknown>>(
      app,
      'GET',
      '/health',
    )
    expect(status).toBe(200)
    expect(contentType).toBe('application/json')
    expect(body).toMatchObject({
      apiVersion: 1,
      error: null,
      result: { status: 'UP', serviceMockId: 77, transactions: 2, inFlight: 0 },
    })
    expect(typeof body.requestId).toBe('string')
  })

  it('GET /log answers an empty log when no log ring is attached', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const { status, body } = await adminCall<Record<string, unknown>>(app, 'GET', '/log')
    expect(status).toBe(200)
    expect(body.result).toMatchObject({ log: '', lines: 0 })
  })

  it('answers unknown admin paths with 404 ERR_API_NOT_FOUND and wrong methods with 405', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const missing = await adminCall(app, 'GET', '/nope')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({
      apiVersion: 1,
      result: null,
      error: { code: 'ERR_API_NOT_FOUND' },
    })
    const wrong = await adminCall(app, 'DELETE', '/health')
    expect(wrong.status).toBe(405)
    expect(wrong.body.error?.code).toBe('ERR_API_METHOD_NOT_ALLOWED')
  })
})

describe('admin: inspection', () => {
  it('lists requests newest first in the envelope with skip, limit and total', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    for (let i = 1; i <= 4; i++) await get(`${app.url}/pets/${i}`)
    const { status, body } = await inspectionList(app, 1, 2)
    expect(status).toBe(200)
    expect(body).toMatchObject({ apiVersion: 1, error: null, skip: 1, limit: 2, total: 4 })
    expect(typeof body.requestId).toBe('string')
    expect(body.result.map((e) => e.url)).toEqual(['/pets/3', '/pets/2'])
  })

  it('gives each request an increasing id and the list-entry fields of the mock services specification', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const before = Date.now()
    await get(`${app.url}/pets/1?color=brown&color=black`)
    await get(`${app.url}/missing`)
    const { body } = await inspectionList(app)
    const [unmatched, matched] = body.result
    expect(matched).toBeDefined()
    for (const field of listFields) expect(matched).toHaveProperty(field)
    expect(unmatched?.id).toBeGreaterThan(matched?.id ?? Infinity)
    expect(matched).toMatchObject({
      serviceMockId: 77,
      type: 'HTTP',
      transactionId: 11,
      operation: 'GET',
      url: '/pets/1?color=brown&color=black',
      arguments: [
        { key: 'color', value: 'brown' },
        { key: 'color', value: 'black' },
      ],
      respondingTxn: 'get pet',
      txnPriority: 4,
      hasError: false,
      matched: true,
      source: 'MOCK',
      liveTransactionCreated: false,
    })
    expect(matched?.timestamp).toBeGreaterThanOrEqual(before - 1000)
    expect(matched?.timestamp).toBeLessThanOrEqual(Date.now())
    expect(unmatched).toMatchObject({
      matched: false,
      transactionId: null,
      respondingTxn: null,
      txnPriority: null,
    })
  })

  it('shows the detail of a request: bodies, headers, status and matching data', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      body: 'the request body',
      headers: { 'X-Trace': 'abc', 'content-type': 'text/plain' },
    })
    await res.arrayBuffer()
    const [entry] = (await inspectionList(app)).body.result
    const { status, body } = await inspectionDetail(app, entry?.id ?? 0)
    expect(status).toBe(200)
    const detail = body.result
    for (const field of detailFields) expect(detail).toHaveProperty(field)
    expect(detail).toMatchObject({
      id: entry?.id,
      serviceMockId: 77,
      type: 'HTTP',
      requestBody: 'the request body',
      requestBodyTruncated: false,
      statusCode: 201,
      responseBodyTruncated: false,
      matchingData: null,
    })
    expect(detail?.requestHeaders).toContainEqual({ key: 'X-Trace', value: 'abc' })
    expect(Buffer.from(detail?.responseBody ?? '', 'base64').toString()).toBe(
      'stored: a long enough answer body',
    )
    expect(detail?.responseHeaders).toContainEqual({ key: 'content-type', value: 'text/plain' })
    expect(detail?.responseHeaders).toContainEqual({ key: 'content-length', value: '33' })
  })

  it('truncates and flags bodies over maxBodyBytes', async () => {
    const app = await startServer({
      dsl: mock,
      admin: true,
      options: { inspection: { maxBodyBytes: 10 } },
    })
    await (
      await fetch(`${app.url}/upload`, { method: 'POST', body: 'abcdefghijklmnopqrstuvwxyz' })
    ).arrayBuffer()
    const [entry] = (await inspectionList(app)).body.result
    const detail = (await inspectionDetail(app, entry?.id ?? 0)).body.result
    expect(detail).toMatchObject({
      requestBody: 'abcdefghij',
      requestBodyTruncated: true,
      responseBodyTruncated: true,
    })
    expect(Buffer.from(detail?.responseBody ?? '', 'base64').toString()).toBe('stored: a ')

    // Bodies that fit are kept whole and not flagged.
    await (await fetch(`${app.url}/upload`, { method: 'POST', body: 'short' })).arrayBuffer()
    const [second] = (await inspectionList(app)).body.result
    expect((await inspectionDetail(app, second?.id ?? 0)).body.result).toMatchObject({
      requestBody: 'short',
      requestBodyTruncated: false,
    })
  })

  it('evicts the oldest records past maxRecords and answers 404 ERR_INSPECT_NOT_FOUND for them', async () => {
    const app = await startServer({
      dsl: mock,
      admin: true,
      options: { inspection: { maxRecords: 3 } },
    })
    for (let i = 1; i <= 5; i++) await get(`${app.url}/pets/${i}`)
    const { body } = await inspectionList(app)
    expect(body.total).toBe(3)
    expect(body.result.map((e) => e.url)).toEqual(['/pets/5', '/pets/4', '/pets/3'])
    const oldestKept = body.result[2]?.id ?? 0
    const evicted = await inspectionDetail(app, oldestKept - 1)
    expect(evicted.status).toBe(404)
    expect(evicted.body).toMatchObject({
      apiVersion: 1,
      result: null,
      error: { code: 'ERR_INSPECT_NOT_FOUND' },
    })
    expect((await inspectionDetail(app, oldestKept)).status).toBe(200)
  })

  it('evicts the oldest records past maxBytes', async () => {
    const app = await startServer({
      dsl: mock,
      admin: true,
      options: { inspection: { maxBytes: 4096 } },
    })
    for (let i = 0; i < 10; i++) {
      await (
        await fetch(`${app.url}/upload`, { method: 'POST', body: Buffer.alloc(1000, 0x61) })
      ).arrayBuffer()
    }
    const { body } = await inspectionList(app)
    expect(body.total).toBeGreaterThanOrEqual(1)
    expect(body.total).toBeLessThan(5)
    const ids = body.result.map((e) => e.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    const health = await adminCall<{ inspection: { records: number; bytes: number } }>(
      app,
      'GET',
      '/health',
    )
    expect(health.body.result.inspection.records).toBe(body.total)
    expect(health.body.result.inspection.bytes).toBeLessThanOrEqual(4096)
    expect((await inspectionDetail(app, 1)).body.error?.code).toBe('ERR_INSPECT_NOT_FOUND')
  })

  // Was a bug (fixed in src/serve/exchange.ts): error bodies (no match, capacity...) are built per
  // request but were not counted, so 404s with large near-miss bodies overran maxBytes many times.
  it('counts error bodies against maxBytes', async () => {
    const long = 'v'.repeat(150)
    const headers = Array.from({ length: 10 }, (_, i) => ({
      key: `x-h${i}`,
      matcherName: 'equals',
      matchingValue: long,
    }))
    const picky = Array.from({ length: 3 }, (_, i) => ({
      dsl: { requestDsl: { method: 'GET', path: `/p${i}`, headers }, responseDsl: { text: 'x' } },
    }))
    const app = await startServer({
      dsl: picky,
      admin: true,
      options: { inspection: { maxBytes: 8192 } },
    })
    let problemBytes = 0
    for (let i = 0; i < 10; i++) {
      problemBytes = (await (await fetch(`${app.url}/p0`)).arrayBuffer()).byteLength
    }
    expect(problemBytes).toBeGreaterThan(2048)
    const { body } = await inspectionList(app)
    expect((body.total ?? Infinity) * problemBytes).toBeLessThanOrEqual(8192)
    // The newest record is always kept.
    expect(body.total).toBeGreaterThanOrEqual(1)
  })

  it('answers 404 ERR_INSPECT_NOT_FOUND for ids that never existed or are not numbers', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    for (const id of ['999', 'abc', '0', '1.5']) {
      const { status, body } = await inspectionDetail(app, id)
      expect(status).toBe(404)
      expect(body.error?.code).toBe('ERR_INSPECT_NOT_FOUND')
    }
  })

  it('rejects a negative or non-integer skip or limit with 400 ERR_API_VALIDATION', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    for (const query of ['skip=-1', 'limit=abc', 'limit=1.5']) {
      const { status, body } = await adminCall(app, 'GET', `/inspection?${query}`)
      expect(status).toBe(400)
      expect(body.error?.code).toBe('ERR_API_VALIDATION')
    }
  })

  it('caps limit at 1000 and defaults it to 50', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    expect((await adminCall(app, 'GET', '/inspection?limit=5000')).body.limit).toBe(1000)
    expect((await adminCall(app, 'GET', '/inspection')).body).toMatchObject({ skip: 0, limit: 50 })
  })

  it('keeps no records when inspection is disabled, and still serves', async () => {
    const app = await startServer({
      dsl: mock,
      admin: true,
      options: { inspection: { enabled: false } },
    })
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
    const missing = await fetch(`${app.url}/missing`)
    expect(await missing.json()).toMatchObject({ code: 'ERR_MATCH_NO_MATCH', requestId: null })
    const { body } = await inspectionList(app)
    expect(body).toMatchObject({ result: [], total: 0 })
  })
})

describe('admin: configuration', () => {
  const other = {
    id: 78,
    transactions: [
      {
        id: 1,
        dsl: {
          requestDsl: { method: 'GET', path: '/cats/{id}' },
          responseDsl: { json: { name: 'Tom' } },
        },
      },
    ],
  }

  it('PUT /config swaps the configuration for the next request', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    expect((await fetch(`${app.url}/cats/1`)).status).toBe(404)
    const { status, body } = await putConfig(app, other)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      apiVersion: 1,
      error: null,
      result: { transactions: 1, serviceMockId: 78 },
    })
    const cat = await fetch(`${app.url}/cats/1`)
    expect(cat.status).toBe(200)
    expect(await cat.json()).toEqual({ name: 'Tom' })
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(404)
    expect((await adminCall<{ id: number }>(app, 'GET', '/config')).body.result.id).toBe(78)
  })

  it('PUT /config accepts YAML by content type', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const yaml =
      '- dsl:\n    requestDsl: {method: GET, path: /yaml}\n    responseDsl: {text: from yaml}\n'
    const { status } = await adminCall(app, 'PUT', '/config', {
      text: yaml,
      contentType: 'application/yaml',
    })
    expect(status).toBe(200)
    expect(await (await fetch(`${app.url}/yaml`)).text()).toBe('from yaml')
  })

  it('PUT /config with an invalid document answers 400 ERR_DSL_INVALID naming the field and keeps the old configuration', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const invalid = {
      transactions: [
        { dsl: { requestDsl: { method: 'GET', path: '/x' }, responseDsl: { status: 'teapot' } } },
      ],
    }
    const { status, body } = await putConfig(app, invalid)
    expect(status).toBe(400)
    expect(body.result).toBeNull()
    expect(body.error?.code).toBe('ERR_DSL_INVALID')
    expect(body.error?.details?.map((d) => d.path)).toContain(
      '/transactions/0/dsl/responseDsl/status',
    )
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
  })

  it('PUT /config with a document the matcher cannot compile answers 400 and keeps the old configuration', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const bad = {
      transactions: [
        {
          dsl: {
            requestDsl: { url: { matcherName: 'matches', matchingValue: '/a(' } },
            responseDsl: { text: 'x' },
          },
        },
      ],
    }
    const { status, body } = await putConfig(app, bad)
    expect(status).toBe(400)
    expect(body.error?.code).toMatch(/^ERR_DSL_/)
    expect(JSON.stringify(body.error?.details ?? body.error?.message)).toContain(
      '/transactions/0/dsl/requestDsl/url',
    )
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
  })

  it('PUT /config with a header value Node cannot write answers 400 ERR_DSL_INVALID and keeps the old configuration', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const bad = {
      transactions: [
        {
          dsl: {
            requestDsl: { path: '/x' },
            responseDsl: { text: 'x', headers: [{ name: 'X-Price', value: '5 €' }] },
          },
        },
      ],
    }
    const { status, body } = await putConfig(app, bad)
    expect(status).toBe(400)
    expect(body.error?.code).toBe('ERR_DSL_INVALID')
    expect(body.error?.details?.map((d) => d.path)).toContain(
      '/transactions/0/dsl/responseDsl/headers/0/value',
    )
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
  })

  it('PUT /config with an unsupported content type answers 415', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const { status, body } = await adminCall(app, 'PUT', '/config', {
      text: JSON.stringify(other),
      contentType: 'text/plain',
    })
    expect(status).toBe(415)
    expect(body.error?.code).toBe('ERR_API_UNSUPPORTED_MEDIA_TYPE')
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
  })

  it('PUT /config with an empty body or malformed JSON answers 400', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const empty = await adminCall(app, 'PUT', '/config', {
      text: '',
      contentType: 'application/json',
    })
    expect(empty.status).toBe(400)
    expect(empty.body.error?.code).toBe('ERR_API_VALIDATION')
    const malformed = await adminCall(app, 'PUT', '/config', {
      text: '{"transactions": [',
      contentType: 'application/json',
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.error?.code).toMatch(/^ERR_DSL_/)
    expect((await fetch(`${app.url}/pets/1`)).status).toBe(200)
  })

  it('keeps inspection records across a configuration swap, with ids still increasing', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    await get(`${app.url}/pets/1`)
    await putConfig(app, other)
    await get(`${app.url}/cats/1`)
    const { body } = await inspectionList(app)
    expect(body.result.map((e) => e.url)).toEqual(['/cats/1', '/pets/1'])
    expect(body.result[0]?.id).toBeGreaterThan(body.result[1]?.id ?? Infinity)
  })

  it('serves the admin API on its own port, not on the mock port', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    expect(adminUrl(app)).not.toBe(app.url)
    const res = await fetch(`${app.url}/health`)
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ code: 'ERR_MATCH_NO_MATCH' })
  })
})
