import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's `host` and `port` request matchers, posted through the admin API: matched on the
// request's Host header (the name, whatever its case; the port, or none for 80 and 443).
// `scheme` and `clientIp` stay refused (422 naming the field).

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/__admin/mappings`, { method: 'POST', body: JSON.stringify(body) })
}

/** GET `path` with the given Host header (fetch does not let a Host header through). */
async function withHost(url: string, path: string, host: string): Promise<number> {
  const { port } = new URL(url)
  return await new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: Number(port), path, headers: { host } },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('host and port matchers through the WireMock admin API', () => {
  it('match the Host header name, in any case and with any port', async () => {
    const { url } = await startWireMockInProcess()
    for (const [host, status] of [
      [{ equalTo: 'api.example.com' }, 201],
      ['other.example.com', 202],
      [{ matches: 'v[0-9]+\\.example\\.com' }, 203],
      [{ contains: 'legacy' }, 204],
    ] as const) {
      const created = await post(url, {
        request: { urlPath: '/hosted', host },
        response: { status },
      })
      expect(created.status).toBe(201)
    }
    expect(await withHost(url, '/hosted', 'api.example.com')).toBe(201)
    expect(await withHost(url, '/hosted', 'API.Example.com:8443')).toBe(201)
    expect(await withHost(url, '/hosted', 'other.example.com')).toBe(202)
    expect(await withHost(url, '/hosted', 'v2.example.com:80')).toBe(203)
    expect(await withHost(url, '/hosted', 'my-legacy.example.com')).toBe(204)
    expect(await withHost(url, '/hosted', 'api.example.com.evil')).toBe(404)
    expect(await withHost(url, '/hosted', 'x.example.com')).toBe(404)
  })

  it('match the port of the Host header, a missing one being 80 or 443', async () => {
    const { url } = await startWireMockInProcess()
    await post(url, { request: { urlPath: '/ported', port: 8443 }, response: { status: 201 } })
    await post(url, { request: { urlPath: '/default', port: 80 }, response: { status: 202 } })
    expect(await withHost(url, '/ported', 'api.test:8443')).toBe(201)
    expect(await withHost(url, '/ported', '[::1]:8443')).toBe(201)
    expect(await withHost(url, '/ported', 'api.test:8444')).toBe(404)
    expect(await withHost(url, '/ported', 'api.test')).toBe(404)
    expect(await withHost(url, '/default', 'api.test')).toBe(202)
    expect(await withHost(url, '/default', 'api.test:80')).toBe(202)
    expect(await withHost(url, '/default', 'api.test:8080')).toBe(404)
  })

  it('refuses a host pattern it cannot map, a port that is not one, scheme and clientIp, naming the field', async () => {
    const { url } = await startWireMockInProcess()
    for (const [request, pointer] of [
      [{ host: { doesNotMatch: 'x' } }, '/request/host'],
      [{ port: 'eighty' }, '/request/port'],
      [{ scheme: 'https' }, '/request/scheme'],
      [{ clientIp: { equalTo: '10.0.0.1' } }, '/request/clientIp'],
    ] as const) {
      const refused = await post(url, { request: { urlPath: '/x', ...request }, response: {} })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as { errors: Array<{ source: { pointer: string } }> }
      expect(body.errors[0]?.source.pointer).toBe(pointer)
    }
  })
})
