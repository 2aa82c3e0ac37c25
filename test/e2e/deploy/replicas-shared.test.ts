import { writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { burst, ticketRace } from '../../helpers/traffic.js'

/*
 * `understudy run --replicas 2`: what the replicas share through the primary (docs/runtime.md,
 * "Replicas"): scenario states (one transition winner among 1,000 concurrent requests spread over
 * both replicas), the verification API over every replica's journal, and request validation
 * applied by every replica.
 */

interface Envelope<T> { result: T, error: { code: string } | null, total?: number }

const flows = `
transactions:
${ticketRace}  - name: cart empty
    dsl:
      requestDsl: {method: GET, path: /cart}
      scenario: {name: cart, requiredState: Started, newState: Filled, instanceKey: {part: header, key: X-Session}, ttl: 400}
      responseDsl: {text: empty}
  - name: cart filled
    dsl:
      requestDsl: {method: GET, path: /cart}
      scenario: {name: cart, requiredState: Filled, instanceKey: {part: header, key: X-Session}}
      responseDsl: {text: filled}
  - name: pets
    dsl:
      requestDsl: {method: GET, path: /pets}
      responseDsl: {text: '[]'}
`

function file (name: string, text: string, dir = tempDir()): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function adminOf (server: CliServer): string {
  const url = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1]
  if (url === undefined) throw new Error(`no admin line in ${server.stdout()}`)
  return url
}

async function admin<T> (server: CliServer, path: string, init?: RequestInit): Promise<{ status: number, body: Envelope<T> }> {
  const res = await fetch(adminOf(server) + path, init)
  return { status: res.status, body: await res.json() as Envelope<T> }
}

/** One request on its own connection (so that the primary hands it to the next replica). */
async function send (url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number, text: string }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method, headers: { connection: 'close', ...headers }, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('run --replicas 2: shared state', () => {
  it('keeps scenario states in the primary: one winner among 1,000 concurrent requests, instance keys, TTL, /scenarios', async () => {
    const server = await startCli(['run', '--mock', file('flows.yaml', flows), '--port', '0', '--admin-port', '0', '--replicas', '2'], { timeoutMs: 20_000 })
    await server.waitFor('stdout', 'admin on')

    const counts = await burst(server.url, 1000)
    expect(counts.get(201)).toBe(1)
    expect(counts.get(409)).toBe(999)
    // Both replicas answered some of them.
    const health = await admin<{ workers: Array<{ inspection: { records: number } }> }>(server, '/health')
    for (const w of health.body.result.workers) expect(w.inspection.records).toBeGreaterThan(0)

    const listed = await admin<{ scenarios: unknown[] }>(server, '/scenarios')
    expect(listed.status).toBe(200)
    expect(listed.body.result.scenarios).toEqual([{ name: 'ticket', instance: null, state: 'Claimed' }])
    expect((await admin<{ reset: number }>(server, '/scenarios', { method: 'DELETE' })).body.result.reset).toBe(1)
    // Every replica sees the reset (each one's last-known state was Claimed).
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(201)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(409)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(409)
    const put = await admin(server, '/scenarios/ticket', { method: 'PUT', body: JSON.stringify({ state: 'Started' }) })
    expect(put.status).toBe(200)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(201)

    // One state per instance key, whichever replica a request reaches; the TTL brings it back.
    const cart = async (session: string): Promise<string> => (await send(server.url, 'GET', '/cart', { 'x-session': session })).text
    expect(await cart('a')).toBe('empty')
    expect(await cart('a')).toBe('filled')
    expect(await cart('a')).toBe('filled')
    expect(await cart('b')).toBe('empty')
    const deadline = Date.now() + 5000
    let answer = await cart('a')
    while (answer === 'filled' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await cart('a')
    }
    expect(answer).toBe('empty')
    await server.stop()
  }, 60_000)

  it('answers the verification API over every replica, and validates requests in every replica', async () => {
    const dir = tempDir()
    file('mock.yaml', `name: shop\nvalidateRequests: true\ntransactions:\n  - name: pets\n    dsl:\n      requestDsl: {method: GET, path: /pets}\n      responseDsl: {text: '[]'}\n`, dir)
    file('openapi.yaml', `openapi: 3.0.3
info: {title: shop, version: '1'}
paths:
  /pets:
    get:
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer}}
      responses:
        '200': {description: ok}
`, dir)
    const server = await startCli(['run', '--mock', dir, '--port', '0', '--admin-port', '0', '--replicas', '2'], { timeoutMs: 20_000 })
    await server.waitFor('stdout', 'admin on')

    // Validation in every replica: four requests reach both of them.
    for (let i = 0; i < 4; i++) {
      const bad = await send(server.url, 'GET', '/pets')
      expect(bad.status).toBe(422)
      expect(bad.text).toContain('/query/limit')
      expect((await send(server.url, 'GET', '/pets?limit=2')).status).toBe(200)
    }
    for (let i = 0; i < 3; i++) expect((await send(server.url, 'GET', `/nowhere/${i}`)).status).toBe(404)

    expect((await admin<{ count: number }>(server, '/inspection/count')).body.result.count).toBe(11)
    expect((await admin<{ count: number }>(server, '/inspection/count?status=422')).body.result.count).toBe(4)
    const filtered = await admin<Array<{ id: number, timestamp: number }>>(server, '/inspection?path=/nowhere/*&limit=2')
    expect(filtered.body.total).toBe(3)
    expect(filtered.body.result).toHaveLength(2)
    // Ids of both replicas (odd and even) among the 11, newest first.
    const all = await admin<Array<{ id: number, timestamp: number }>>(server, '/inspection?method=GET&limit=100')
    expect(all.body.total).toBe(11)
    expect(new Set(all.body.result.map((e) => e.id % 2))).toEqual(new Set([0, 1]))
    const times = all.body.result.map((e) => e.timestamp)
    expect([...times].sort((a, b) => b - a)).toEqual(times)

    const unmatched = await admin<Array<{ url: string, diagnosis: unknown }>>(server, '/inspection/unmatched')
    expect(unmatched.body.total).toBe(7)
    const verify = async (body: unknown) => await admin<{ verified: boolean, actual: number, expected: string, nearest: unknown[] }>(server, '/inspection/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const exact = await verify({ request: { method: 'GET', path: '/pets', status: 200 }, count: 4 })
    expect(exact.body.result).toMatchObject({ verified: true, actual: 4, expected: 'exactly 4' })
    const wrong = await verify({ request: { path: '/pets' }, atMost: 3 })
    expect(wrong.body.result).toMatchObject({ verified: false, actual: 8 })
    expect(wrong.body.result.nearest.length).toBeGreaterThan(0)
    expect((await verify({ request: { bogus: 1 } })).status).toBe(400)

    const cleared = await admin<{ deleted: number }>(server, '/inspection', { method: 'DELETE' })
    expect(cleared.body.result.deleted).toBe(11)
    expect((await admin<{ count: number }>(server, '/inspection/count')).body.result.count).toBe(0)
    await server.stop()
  }, 60_000)
})
