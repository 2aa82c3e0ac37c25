import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { importFile } from '../../../importers/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'
import { startServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'
import { testEnvironment } from './environment.js'

/* A Mockoon environment served as it is: each kind of response rule picks the response Mockoon would. */

async function serveEnvironment(env: unknown): Promise<string> {
  const result = importFile({ bytes: Buffer.from(JSON.stringify(env)), fileName: 'env.json' })
  expect(result.format).toBe('mockoon')
  const app = await startServer({ document: result.document })
  return app.url
}

async function get(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(url, init)
  return { status: res.status, text: await res.text(), headers: res.headers }
}

describe('a Mockoon environment served', () => {
  it('chooses the response by header, query regex, route parameter and cookie rules, else the default', async () => {
    const url = await serveEnvironment(testEnvironment())
    expect((await get(`${url}/api/users/7`)).status).toBe(404)
    expect((await get(`${url}/api/users/7`, { headers: { 'X-Role': 'admin' } })).status).toBe(200)
    expect((await get(`${url}/api/users/7?filter=inactive`)).status).toBe(404)
    expect((await get(`${url}/api/users/7?filter=xactive`)).status).toBe(404)
    expect((await get(`${url}/api/users/7?filter=active`)).status).toBe(201)
    expect((await get(`${url}/api/users/42`)).status).toBe(202)
    expect((await get(`${url}/api/users/7`, { headers: { cookie: 'session=abc' } })).status).toBe(
      203,
    )
    // routes keep Mockoon's order: the literal route declared first wins
    expect((await get(`${url}/api/users/me`)).text).toBe('{"me": true}')
  })

  it('reads body rules at an object path, in an array, on the whole body, and combines AND rules', async () => {
    const url = await serveEnvironment(testEnvironment())
    const post = async (body: string, headers: Record<string, string> = {}): Promise<number> =>
      (
        await get(`${url}/api/orders`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
        })
      ).status
    expect(await post('{"order": {"type": "express"}}')).toBe(201)
    expect(await post('{"order": {"type": "slow"}}')).toBe(400)
    expect(await post('{"tags": ["new", "vip"]}')).toBe(202)
    expect(await post('{"tags": "vip"}')).toBe(202)
    expect(await post('ping', { 'content-type': 'text/plain' })).toBe(203)
    expect(await post('{"a": 1}', { 'X-B': '2' })).toBe(204)
    expect(await post('{"a": 1}')).toBe(400)
  })

  it('counts the requests of a route for request_number rules, and cycles SEQUENTIAL responses', async () => {
    const url = await serveEnvironment(testEnvironment())
    const counted = []
    for (let i = 0; i < 4; i++) counted.push((await get(`${url}/api/counter`)).text)
    expect(counted).toEqual(['first', 'second', 'later', 'later'])
    const cycled = []
    for (let i = 0; i < 4; i++) cycled.push((await get(`${url}/api/cycle`)).text)
    expect(cycled).toEqual(['one', 'two', 'three', 'one'])
  })

  it('chooses the response by a method rule on a route of every method', async () => {
    const url = await serveEnvironment(testEnvironment())
    expect(await get(`${url}/api/by-method`, { method: 'POST', body: '' })).toMatchObject({
      status: 201,
      text: 'posted',
    })
    expect(await get(`${url}/api/by-method`, { method: 'PUT', body: '' })).toMatchObject({
      status: 200,
      text: 'any other method',
    })
    expect((await get(`${url}/api/by-method`)).text).toBe('any other method')
  })

  it('serves the default response when rules are disabled, and falls through to the next route in FALLBACK mode', async () => {
    const url = await serveEnvironment(testEnvironment())
    expect((await get(`${url}/api/disabled?x=1`)).text).toBe('default')
    expect((await get(`${url}/api/fallback/1?x=1`)).text).toBe('only with x')
    expect((await get(`${url}/api/fallback/1`)).status).toBe(299)
  })

  it('translates request templating, adds the environment headers, serves data buckets, latency, CORS and any method', async () => {
    const url = await serveEnvironment(testEnvironment())
    const echoed = await get(`${url}/api/users/9?echo=1&q=hi`)
    expect(JSON.parse(echoed.text)).toEqual({ id: '9', q: 'hi' })
    expect(JSON.parse((await get(`${url}/api/users/9?echo=1`)).text)).toEqual({
      id: '9',
      q: 'none',
    })
    expect(echoed.headers.get('x-env')).toBe('env')
    expect(echoed.headers.get('content-type')).toMatch(/^application\/json/)
    const named = await get(`${url}/api/orders`, {
      method: 'POST',
      body: '{"name": "Ada"}',
      headers: { 'content-type': 'application/json', 'X-Echo': 'yes' },
    })
    expect(JSON.parse(named.text)).toEqual({ name: 'Ada' })
    expect(JSON.parse((await get(`${url}/api/bucket`)).text)).toEqual([{ id: 1, name: 'Ada' }])
    expect((await get(`${url}/api/text`)).headers.get('content-type')).toMatch(/^text\/plain/)
    const started = Date.now()
    await get(`${url}/api/slow`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    const preflight = await fetch(`${url}/api/users/1`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'DELETE' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect((await get(`${url}/api/anything`, { method: 'PATCH' })).text).toBe('{"any": true}')
  })

  it("calls a response's callbacks after answering, with their templates rendered", async () => {
    const received: Array<{ method: string; body: string }> = []
    const hook = createServer((req: IncomingMessage, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        received.push({ method: req.method ?? '', body })
        res.end()
      })
    })
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    try {
      const port = (hook.address() as AddressInfo).port
      const url = await serveEnvironment(testEnvironment(`http://127.0.0.1:${port}/hook`))
      expect((await get(`${url}/api/users/5?echo=1`)).status).toBe(200)
      await waitFor(() => received.length > 0, 'the callback to arrive')
      expect(received[0]).toEqual({ method: 'POST', body: '{"user": "5"}' })
    } finally {
      hook.close()
    }
  })

  it('forwards what no route matches in proxy mode', async () => {
    const upstream = createServer((req, res) => res.end(`live ${req.url ?? ''}`))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    try {
      const port = (upstream.address() as AddressInfo).port
      const url = await serveEnvironment({
        ...testEnvironment(),
        proxyMode: true,
        proxyHost: `http://127.0.0.1:${port}/`,
      })
      expect((await get(`${url}/elsewhere?a=1`)).text).toBe('live /elsewhere?a=1')
      expect((await get(`${url}/api/users/me`)).text).toBe('{"me": true}')
    } finally {
      upstream.close()
    }
  })
})

describeRealworld('the Mockoon environments of the corpus', () => {
  for (const file of realworldFiles('mockoon')) {
    it(`serves ${file}`, async () => {
      const result = importFile({ bytes: readRealworld('mockoon', file), fileName: file })
      expect(result.format).toBe('mockoon')
      expect(result.document.transactions.length).toBeGreaterThan(0)
      const app = await startServer({ document: result.document })
      // the first GET route without parameters or rules answers with its response's status
      const plain = result.document.transactions.find((t) => {
        const r = t.dsl.requestDsl
        return (
          r.method === 'GET' &&
          r.url?.matcherName === 'equals_url' &&
          !(r.url.matchingValue ?? '').includes('{') &&
          [r.headers, r.queryParams, r.cookies, r.body].every((m) => (m ?? []).length === 0) &&
          t.dsl.scenario == null
        )
      })
      expect(plain, 'a GET route without parameters').toBeDefined()
      const res = await fetch(`${app.url}${plain?.dsl.requestDsl.url?.matchingValue ?? ''}`)
      await res.arrayBuffer()
      expect(res.status).toBe(plain?.dsl.responseDsl.status)
    })
  }
})
