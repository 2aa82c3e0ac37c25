import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { hasChromium, openBrowser, SKIP_REASON } from '../ui/browser.js'

/*
 * CORS as a real browser enforces it: a page on one origin calls a mock service on
 * another port with a non-simple header (so Chromium sends a preflight) and with credentials (so
 * it needs the echoed origin and Access-Control-Allow-Credentials), and a page on an origin the
 * mock service does not list is refused by the browser.
 */

if (!hasChromium) console.warn(`[CORS browser tests skipped] ${SKIP_REASON}`)

/** A page server on 127.0.0.1:0 answering every path with an empty HTML page; its origin. */
async function pageOrigin(): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>app</title><p>app</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** What the page's fetch saw: the status and body, or the browser's error. */
interface Outcome {
  status?: number
  body?: string
  error?: string
}

describe.skipIf(!hasChromium)('CORS in Chromium', () => {
  it(
    'lets an allowed origin call with a custom header and credentials, and refuses another origin',
    { timeout: 60_000 },
    async () => {
      const allowed = await pageOrigin()
      const other = await pageOrigin()
      const mock = await startServer({
        admin: true,
        yaml: `
cors: { origins: ['${allowed}'], credentials: true, maxAge: 0 }
transactions:
  - dsl: { requestDsl: { method: GET, path: /orders }, responseDsl: { json: { orders: [1, 2] } } }
  - dsl: { requestDsl: { method: PUT, path: /orders/1 }, responseDsl: { status: 202, json: { saved: true } } }
`,
      })
      const { page } = await openBrowser()
      const call = async (path: string, init: Record<string, unknown>): Promise<Outcome> =>
        page.evaluate(
          async ([url, options]) => {
            try {
              const res = await fetch(url, options as RequestInit)
              return { status: res.status, body: await res.text() }
            } catch (err) {
              return { error: String(err) }
            }
          },
          [`${mock.url}${path}`, init] as const,
        )

      await page.goto(`${allowed}/app`)
      const get = await call('/orders', {
        headers: { 'X-Trace-Id': 'abc' },
        credentials: 'include',
      })
      expect(get).toEqual({ status: 200, body: '{"orders":[1,2]}' })
      const put = await call('/orders/1', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'X-Trace-Id': 'abc' },
        body: '{}',
        credentials: 'include',
      })
      expect(put).toEqual({ status: 202, body: '{"saved":true}' })
      // an unmatched request's 404 carries the headers too: the page reads it
      expect((await call('/nothing', { credentials: 'include' })).status).toBe(404)

      // the browser really sent preflights, answered without matching
      const list = (await (await fetch(`${mock.admin?.url ?? ''}/inspection?limit=50`)).json()) as {
        result: Array<{ operation: string; url: string }>
      }
      const preflights = list.result.filter((r) => r.operation === 'OPTIONS')
      expect(preflights.map((r) => r.url).sort()).toEqual(['/orders', '/orders/1'])

      // another origin: the mock answers without CORS headers, and the browser refuses the answer
      await page.goto(`${other}/app`)
      const refused = await call('/orders', {
        headers: { 'X-Trace-Id': 'abc' },
        credentials: 'include',
      })
      expect(refused.error).toMatch(/TypeError: Failed to fetch/)
      const simple = await call('/orders', {})
      expect(simple.error).toMatch(/TypeError: Failed to fetch/)
    },
  )
})
