import { describe, expect, it } from 'vitest'
import { inspectionDetail, inspectionList, newestEntry } from '../../helpers/admin.js'
import { startServer } from '../../helpers/server.js'
import { closedPort, startUpstream } from '../../helpers/upstream.js'

/*
 * No match (docs/architecture.md#matching): return404 (default) with a near-miss diagnosis,
 * returnTransaction, and bypasslive to liveSystemHost:liveSystemPort (inspection source LIVE).
 */

const pets = {
  id: 1,
  name: 'get pet',
  dsl: {
    requestDsl: {
      method: 'GET',
      path: '/pets/{id}',
      headers: [{ key: 'Accept', matcherName: 'contains', matchingValue: 'json' }],
    },
    responseDsl: { json: { id: 1 } },
  },
}
const fallback = {
  id: 2,
  name: 'fallback',
  dsl: {
    requestDsl: { method: 'GET', path: '/never' },
    responseDsl: { status: 418, statusMessage: 'Teapot', text: 'fallback answer' },
  },
}
const orders = {
  id: 3,
  name: 'create order',
  dsl: {
    requestDsl: { method: 'POST', path: '/orders' },
    responseDsl: { status: 201, text: 'created' },
  },
}

type Problem = Record<string, unknown> & {
  nearMisses?: Array<Record<string, unknown> & { failed: Array<Record<string, unknown>> }>
}

describe('no match: return404', () => {
  it('answers 404 problem+json ERR_MATCH_NO_MATCH naming the closest transaction and the failed matcher', async () => {
    const app = await startServer({ dsl: [pets, orders], admin: true })
    const res = await fetch(`${app.url}/pets/7`, { headers: { accept: 'text/html' } })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await res.json()) as Problem
    expect(problem).toMatchObject({ status: 404, code: 'ERR_MATCH_NO_MATCH' })
    const [closest] = problem.nearMisses ?? []
    expect(closest).toMatchObject({ transactionId: 1, name: 'get pet' })
    expect(closest?.failed).toEqual([
      {
        part: 'headers',
        key: 'accept',
        matcherName: 'contains',
        expected: 'json',
        actual: 'text/html',
      },
    ])

    const entry = await newestEntry(app)
    expect(problem['requestId']).toBe(String(entry.id))
    expect(entry).toMatchObject({
      matched: false,
      url: '/pets/7',
      operation: 'GET',
      source: 'MOCK',
      transactionId: null,
    })
  })

  it('names the failed method and url of near misses', async () => {
    const app = await startServer({ dsl: [pets, orders] })
    const res = await fetch(`${app.url}/orders`)
    const problem = (await res.json()) as Problem
    expect(res.status).toBe(404)
    const closest = problem.nearMisses?.[0]
    expect(closest).toMatchObject({ transactionId: 3 })
    expect(closest?.failed).toContainEqual({
      part: 'method',
      matcherName: 'equals',
      expected: 'POST',
      actual: 'GET',
    })
  })

  it('answers 404 with no near misses when there are no transactions', async () => {
    const app = await startServer({ dsl: [] })
    const res = await fetch(`${app.url}/anything`)
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ code: 'ERR_MATCH_NO_MATCH', nearMisses: [] })
  })

  it('keeps the near-miss diagnosis in the inspection detail', async () => {
    const app = await startServer({ dsl: [pets], admin: true })
    await (await fetch(`${app.url}/pets/7`, { headers: { accept: 'text/html' } })).arrayBuffer()
    const entry = await newestEntry(app)
    const { body } = await inspectionDetail(app, entry.id)
    expect(body.result?.statusCode).toBe(404)
    expect(body.result?.matchingData).toMatchObject({
      nearMisses: [{ transactionId: 1, failed: [{ part: 'headers', actual: 'text/html' }] }],
    })
  })
})

describe('no match: returnTransaction', () => {
  it('answers an unmatched request with the response of noMatchingRequestTxnId, recorded as unmatched', async () => {
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'returnTransaction',
        noMatchingRequestTxnId: 2,
        transactions: [pets, fallback],
      },
      admin: true,
    })
    const res = await fetch(`${app.url}/unknown`)
    expect(res.status).toBe(418)
    expect(res.statusText).toBe('Teapot')
    expect(await res.text()).toBe('fallback answer')
    const entry = await newestEntry(app)
    expect(entry).toMatchObject({
      matched: false,
      hasError: false,
      transactionId: 2,
      respondingTxn: 'fallback',
      source: 'MOCK',
    })

    // A matching request is still answered by its own transaction.
    const hit = await fetch(`${app.url}/pets/1`, { headers: { accept: 'application/json' } })
    expect(await hit.json()).toEqual({ id: 1 })
    expect(await newestEntry(app)).toMatchObject({ matched: true, transactionId: 1 })
  })

  it('rejects a document whose noMatchingRequestTxnId names no transaction', async () => {
    await expect(
      startServer({
        dsl: {
          noMatchingRequestPreference: 'returnTransaction',
          noMatchingRequestTxnId: 99,
          transactions: [pets],
        },
      }),
    ).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
  })
})

describe('no match: bypasslive', () => {
  it('forwards an unmatched request to liveSystemHost:liveSystemPort and records source LIVE', async () => {
    const upstream = await startUpstream((req, res) => {
      res.writeHead(202, { 'content-type': 'text/plain', 'x-live': 'yes' })
      res.end(`live ${req.method} ${req.url} ${req.body.toString()}`)
    })
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'bypasslive',
        liveSystemHost: upstream.host,
        liveSystemPort: upstream.port,
        transactions: [orders],
      },
      admin: true,
    })
    const res = await fetch(`${app.url}/live/path?q=1&r=2`, {
      method: 'PUT',
      body: 'payload',
      headers: { 'x-client': 'c' },
    })
    expect(res.status).toBe(202)
    expect(res.headers.get('x-live')).toBe('yes')
    expect(await res.text()).toBe('live PUT /live/path?q=1&r=2 payload')
    expect(upstream.requests).toHaveLength(1)
    expect(upstream.requests[0]?.headers['x-client']).toBe('c')
    expect(upstream.requests[0]?.headers['host']).toBe(`${upstream.host}:${upstream.port}`)

    const entry = await newestEntry(app)
    expect(entry).toMatchObject({
      source: 'LIVE',
      matched: false,
      hasError: false,
      url: '/live/path?q=1&r=2',
    })
    const { body } = await inspectionDetail(app, entry.id)
    expect(body.result?.statusCode).toBe(202)
    expect(Buffer.from(body.result?.responseBody ?? '', 'base64').toString()).toBe(
      'live PUT /live/path?q=1&r=2 payload',
    )
    expect(body.result?.requestBody).toBe('payload')

    // A matched request is not forwarded.
    const hit = await fetch(`${app.url}/orders`, { method: 'POST' })
    expect(hit.status).toBe(201)
    expect(upstream.requests).toHaveLength(1)
    expect(await newestEntry(app)).toMatchObject({ source: 'MOCK', matched: true })
  })

  it('accepts the preference in any case and a liveSystemHost written as a URL', async () => {
    const upstream = await startUpstream()
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'BypassLive',
        liveSystemHost: `http://${upstream.host}`,
        liveSystemPort: upstream.port,
        transactions: [],
      },
    })
    const res = await fetch(`${app.url}/x`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ method: 'GET', url: '/x' })
  })

  it('forwards over HTTPS when endpointPreference is HTTPS', async () => {
    const upstream = await startUpstream(undefined, { tls: true })
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'bypasslive',
        endpointPreference: 'HTTPS',
        liveSystemHost: upstream.host,
        liveSystemPort: upstream.port,
        transactions: [],
      },
    })
    const res = await fetch(`${app.url}/secure?a=1`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ method: 'GET', url: '/secure?a=1' })
  })

  it('answers 502 ERR_SERVE_UPSTREAM_UNAVAILABLE when the live system is down', async () => {
    const port = await closedPort()
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'bypasslive',
        liveSystemHost: '127.0.0.1',
        liveSystemPort: port,
        transactions: [],
      },
      admin: true,
    })
    const res = await fetch(`${app.url}/down`)
    expect(res.status).toBe(502)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await res.json()) as Problem
    expect(problem).toMatchObject({ status: 502, code: 'ERR_SERVE_UPSTREAM_UNAVAILABLE' })
    const entry = await newestEntry(app)
    expect(problem['requestId']).toBe(String(entry.id))
    expect(entry).toMatchObject({ source: 'LIVE', hasError: true, matched: false })
    expect(app.runtime.inFlight()).toBe(0)
  })

  it('records each forwarded request once', async () => {
    const upstream = await startUpstream()
    const app = await startServer({
      dsl: {
        noMatchingRequestPreference: 'bypasslive',
        liveSystemHost: upstream.host,
        liveSystemPort: upstream.port,
        transactions: [],
      },
      admin: true,
    })
    for (let i = 0; i < 3; i++) await (await fetch(`${app.url}/n${i}`)).arrayBuffer()
    const { body } = await inspectionList(app)
    expect(body.result.map((e) => e.url)).toEqual(['/n2', '/n1', '/n0'])
    expect(body.total).toBe(3)
  })
})
