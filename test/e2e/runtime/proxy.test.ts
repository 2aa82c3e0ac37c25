import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { inspectionDetail, newestEntry } from '../../helpers/admin.js'
import { h2Request, http1Request } from '../../helpers/clients.js'
import { startServer } from '../../helpers/server.js'
import { closedPort, startUpstream } from '../../helpers/upstream.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * responseDsl.proxyUrl: the request goes to the base URL + its own path and query, its body too;
 * the answer streams back; hop-by-hop headers are dropped both ways; failures are 502.
 */

const proxied = (path: string, proxyUrl: string, method = 'ANY') => ({
  id: 5,
  name: 'proxied',
  dsl: { requestDsl: { method, path }, responseDsl: { proxyUrl } },
})

describe('proxyUrl', () => {
  it('forwards method, base path + path + query, and body, and returns status, headers and body', async () => {
    const upstream = await startUpstream((req, res) => {
      res.writeHead(207, { 'content-type': 'application/json', 'x-upstream': 'u1' })
      // Written in parts: the runtime streams it back.
      res.write('{"got":')
      res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body.toString() }) + '}')
    })
    const app = await startServer({ dsl: [proxied('/items/{id}', `${upstream.url}/base/`)] })
    const res = await fetch(`${app.url}/items/42?x=1&y=%20z`, {
      method: 'POST',
      body: 'hello body',
      headers: { 'content-type': 'text/plain', 'x-client': 'c1' },
    })
    expect(res.status).toBe(207)
    expect(res.headers.get('x-upstream')).toBe('u1')
    expect(await res.json()).toEqual({
      got: { method: 'POST', url: '/base/items/42?x=1&y=%20z', body: 'hello body' },
    })

    const seen = upstream.requests[0]
    expect(seen?.headers['x-client']).toBe('c1')
    expect(seen?.headers['content-type']).toBe('text/plain')
    expect(seen?.headers['content-length']).toBe('10')
  })

  it('forwards to the upstream root when the proxy URL has no path', async () => {
    const upstream = await startUpstream()
    const app = await startServer({ dsl: [proxied('/a/b', upstream.url)] })
    const res = await fetch(`${app.url}/a/b?q`)
    expect(await res.json()).toMatchObject({ url: '/a/b?q' })
  })

  it('sets host to the upstream and drops hop-by-hop request headers', async () => {
    const upstream = await startUpstream()
    const app = await startServer({ dsl: [proxied('/hop', upstream.url)] })
    const res = await http1Request(app.url, {
      method: 'POST',
      path: '/hop',
      headers: {
        host: 'mock.example',
        connection: 'x-conn-listed',
        'x-conn-listed': 'drop me',
        'keep-alive': 'timeout=9',
        'proxy-authorization': 'Basic eDp5',
        'proxy-connection': 'keep-alive',
        upgrade: 'websocket',
        te: 'trailers',
        'transfer-encoding': 'chunked',
        'x-end-to-end': 'keep me',
      },
      body: 'chunked body',
    })
    expect(res.status).toBe(200)
    const seen = upstream.requests[0]
    expect(seen?.headers['host']).toBe(`127.0.0.1:${upstream.port}`)
    expect(seen?.headers['x-end-to-end']).toBe('keep me')
    for (const name of [
      'x-conn-listed',
      'keep-alive',
      'proxy-authorization',
      'proxy-connection',
      'upgrade',
      'te',
      'transfer-encoding',
    ]) {
      expect(seen?.headers[name], name).toBeUndefined()
    }
    expect(seen?.body.toString()).toBe('chunked body')
  })

  it('drops hop-by-hop response headers', async () => {
    const upstream = await startUpstream((_req, res) => {
      res.setHeader('connection', 'x-up-listed')
      res.setHeader('x-up-listed', 'drop me')
      res.setHeader('keep-alive', 'timeout=99')
      res.setHeader('proxy-authenticate', 'Basic')
      res.setHeader('upgrade', 'h2c')
      res.setHeader('trailer', 'x-t')
      res.setHeader('x-end-to-end', 'keep me')
      res.end('answer')
    })
    const app = await startServer({ dsl: [proxied('/hop', upstream.url)] })
    const res = await http1Request(app.url, { path: '/hop' })
    expect(res.status).toBe(200)
    expect(res.body.toString()).toBe('answer')
    expect(res.headers['x-end-to-end']).toBe('keep me')
    for (const name of ['x-up-listed', 'keep-alive', 'proxy-authenticate', 'upgrade', 'trailer']) {
      expect(res.headers[name], name).toBeUndefined()
    }
  })

  it('streams a large upstream body back whole while the journal keeps only its head', async () => {
    const big = Buffer.alloc(300_000, 0x7a)
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      for (let i = 0; i < big.length; i += 50_000) res.write(big.subarray(i, i + 50_000))
      res.end()
    })
    const app = await startServer({
      dsl: [proxied('/big', upstream.url)],
      options: { inspection: { maxBodyBytes: 100 } },
      admin: true,
    })
    const res = await fetch(`${app.url}/big`)
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true)

    const entry = await newestEntry(app)
    expect(entry).toMatchObject({
      matched: true,
      source: 'MOCK',
      transactionId: 5,
      respondingTxn: 'proxied',
      hasError: false,
    })
    const { body } = await inspectionDetail(app, entry.id)
    expect(body.result).toMatchObject({ statusCode: 200, responseBodyTruncated: true })
    expect(Buffer.from(body.result?.responseBody ?? '', 'base64')).toEqual(big.subarray(0, 100))
  })

  it('answers 502 ERR_SERVE_UPSTREAM_UNAVAILABLE when the upstream is down', async () => {
    const port = await closedPort()
    const app = await startServer({
      dsl: [proxied('/down', `http://127.0.0.1:${port}`)],
      admin: true,
    })
    const res = await fetch(`${app.url}/down`)
    expect(res.status).toBe(502)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await res.json()) as Record<string, unknown>
    expect(problem).toMatchObject({ status: 502, code: 'ERR_SERVE_UPSTREAM_UNAVAILABLE' })
    expect(await newestEntry(app)).toMatchObject({ hasError: true, matched: true, source: 'MOCK' })
    expect(app.runtime.inFlight()).toBe(0)
  })

  it('answers 502 ERR_SERVE_UPSTREAM_TIMEOUT when the upstream does not answer within proxyTimeout', async () => {
    // The upstream never answers; closing it at the end of the test ends its connections.
    const upstream = await startUpstream(() => {})
    const app = await startServer({
      dsl: [proxied('/slow', upstream.url)],
      options: { proxyTimeout: 300 },
      admin: true,
    })
    const started = performance.now()
    const res = await fetch(`${app.url}/slow`)
    const elapsed = performance.now() - started
    expect(res.status).toBe(502)
    expect(await res.json()).toMatchObject({ status: 502, code: 'ERR_SERVE_UPSTREAM_TIMEOUT' })
    expect(elapsed).toBeGreaterThanOrEqual(250)
    // the upstream never answers: a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(elapsed).toBeLessThan(5000)
    expect(await newestEntry(app)).toMatchObject({ hasError: true })
    expect(app.runtime.inFlight()).toBe(0)
  })

  it('cuts the client connection when the upstream stalls after its headers', async () => {
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
    })
    const app = await startServer({
      dsl: [proxied('/stall', upstream.url)],
      options: { proxyTimeout: 300 },
      admin: true,
    })
    const res = await fetch(`${app.url}/stall`)
    expect(res.status).toBe(200)
    await expect(res.text()).rejects.toThrow()
    expect(await newestEntry(app)).toMatchObject({ hasError: true })
    expect(app.runtime.inFlight()).toBe(0)
  })

  it('proxies for an HTTP/2 client, dropping headers HTTP/2 forbids', async () => {
    const upstream = await startUpstream((_req, res) => {
      res.setHeader('keep-alive', 'timeout=5')
      res.setHeader('x-upstream', 'u')
      res.end('over h2')
    })
    const app = await startServer({ dsl: [proxied('/h2', upstream.url)], options: { h2cPort: 0 } })
    const res = await h2Request(app.runtime.urls.h2c ?? '', { path: '/h2?a=1' })
    expect(res.status).toBe(200)
    expect(res.body.toString()).toBe('over h2')
    expect(res.headers['x-upstream']).toBe('u')
    expect(upstream.requests[0]?.url).toBe('/h2?a=1')
    expect(upstream.requests[0]?.headers['host']).toBe(`127.0.0.1:${upstream.port}`)
  })

  // Was a bug (fixed in src/serve/proxy.ts): the proxy awaited 'drain' only, so a client leaving
  // while backpressured left the request in flight forever (capacity place and record never freed).
  it('frees the request place when a backpressured client leaves in the middle of a proxied body', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x61)
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      let sent = 0
      const pump = (): void => {
        while (sent < 64) {
          sent++
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        res.end()
      }
      pump()
    })
    const app = await startServer({ dsl: [proxied('/big', upstream.url)], admin: true })
    const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1')
    try {
      socket.write('GET /big HTTP/1.1\r\nhost: localhost\r\n\r\n')
      await new Promise((resolve) => socket.once('data', resolve))
      // Stop reading: the runtime's writes back up.
      socket.pause()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(app.runtime.inFlight()).toBe(1)
    } finally {
      socket.destroy()
    }
    await waitFor(() => app.runtime.inFlight() === 0, 'no request in flight')
    expect(await newestEntry(app)).toMatchObject({ url: '/big', hasError: true })
  })
})
