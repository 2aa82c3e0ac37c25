import { writeFileSync } from 'node:fs'
import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startWireMockStandIn } from '../../helpers/wiremock.js'

// Who may use /__admin on the mock port: what the runtime's own admin API would allow.

const stub = JSON.stringify({ request: { url: '/guarded' }, response: { status: 200, body: 'ok' } })

/** The port of a `listening on http://HOST:PORT` URL, reached on loopback. */
function loopbackOf(url: string): string {
  return `http://127.0.0.1:${new URL(url).port}`
}

async function post(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { errors?: Array<{ title: string }> } }> {
  const res = await fetch(`${url}/__admin/mappings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: stub,
  })
  return { status: res.status, body: (await res.json()) as { errors?: Array<{ title: string }> } }
}

describe('the WireMock admin API on the mock port', () => {
  it('answers loopback Host names only on a loopback interface (no DNS rebinding)', async () => {
    const server = await startWireMockStandIn()
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${server.url}/__admin/mappings`,
        { headers: { host: 'attacker.example' } },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(403)
    expect((await post(server.url)).status).toBe(201)
  })

  it('is refused on an interface reachable from other machines without an admin token', async () => {
    const server = await startWireMockStandIn(['--host', '0.0.0.0'])
    const base = loopbackOf(server.url)
    const refused = await post(base)
    expect(refused.status).toBe(403)
    expect(refused.body.errors?.[0]?.title).toMatch(/--admin-token/)
    // Ordinary traffic is not affected.
    expect((await fetch(`${base}/guarded`)).status).toBe(404)
  })

  it('needs the admin token as a Bearer credential there when one is configured', async () => {
    const server = await startWireMockStandIn([
      '--host',
      '0.0.0.0',
      '--admin-token',
      's3cret-token',
    ])
    const base = loopbackOf(server.url)
    expect((await post(base)).status).toBe(401)
    expect((await post(base, { authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await post(base, { authorization: 'Bearer s3cret-token' })).status).toBe(201)
    expect(await (await fetch(`${base}/guarded`)).text()).toBe('ok')
  })

  it('is ordinary traffic with --no-wiremock-admin', async () => {
    const server = await startWireMockStandIn(['--no-wiremock-admin'], {
      'admin.json': JSON.stringify({
        request: { method: 'GET', url: '/__admin/mappings' },
        response: { status: 200, body: 'a stub of mine' },
      }),
    })
    expect(await (await fetch(`${server.url}/__admin/mappings`)).text()).toBe('a stub of mine')
    const posted = await fetch(`${server.url}/__admin/mappings`, { method: 'POST', body: stub })
    expect(posted.status).toBe(404)
    expect(posted.headers.get('content-type')).toMatch(/problem\+json/)
  })
})

describe('the WireMock admin API on the mock port of replicas', () => {
  it('is guarded by each replica before the call reaches the primary', async () => {
    const file = `${tempDir()}/mock.json`
    writeFileSync(file, JSON.stringify({ request: { url: '/a' }, response: { body: 'a' } }))
    const server = await startCli([
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--admin-token',
      's3cret-token',
      '--replicas',
      '2',
      '--log-level',
      'warn',
    ])
    const base = loopbackOf(server.url)
    expect((await post(base)).status).toBe(401)
    expect((await post(base, { authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await post(base, { authorization: 'Bearer s3cret-token' })).status).toBe(201)
    expect(await (await fetch(`${base}/guarded`)).text()).toBe('ok')
  }, 30_000)
})
