import { writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startUpstream } from '../../helpers/upstream.js'
import { burst, replay, ticketRace, type ReplayRequest } from '../../helpers/traffic.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * `understudy run --replicas 2`: what the replicas share through the primary (docs/runtime.md,
 * "Replicas"): scenario states (one transition winner among 1,000 concurrent requests spread over
 * both replicas), the verification API over every replica's journal, request validation
 * applied by every replica, and the recording of `noMatchingRequestPreference: record`, merged by
 * the primary from every replica's captures.
 */

interface Envelope<T> {
  result: T
  error: { code: string } | null
  total?: number
}

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

function file(name: string, text: string, dir = tempDir()): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function adminOf(server: CliServer): string {
  const url = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1]
  if (url === undefined) throw new Error(`no admin line in ${server.stdout()}`)
  return url
}

async function admin<T>(
  server: CliServer,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(adminOf(server) + path, init)
  return { status: res.status, body: (await res.json()) as Envelope<T> }
}

/** One request on its own connection (so that the primary hands it to the next replica). */
async function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; text: string }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${path}`,
      { method, headers: { connection: 'close', ...headers }, agent: false },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          text += c
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('run --replicas 2: shared state', () => {
  it('keeps scenario states in the primary: one winner among 1,000 concurrent requests, instance keys, TTL, /scenarios', async () => {
    const server = await startCli(
      [
        'run',
        '--mock',
        file('flows.yaml', flows),
        '--port',
        '0',
        '--admin-port',
        '0',
        '--replicas',
        '2',
      ],
      { timeoutMs: 20_000 },
    )
    await server.waitFor('stdout', 'admin on')

    const counts = await burst(server.url, 1000)
    expect(counts.get(201)).toBe(1)
    expect(counts.get(409)).toBe(999)
    // Both replicas answered some of them.
    const health = await admin<{ workers: Array<{ inspection: { records: number } }> }>(
      server,
      '/health',
    )
    for (const w of health.body.result.workers) expect(w.inspection.records).toBeGreaterThan(0)

    const listed = await admin<{ scenarios: unknown[] }>(server, '/scenarios')
    expect(listed.status).toBe(200)
    expect(listed.body.result.scenarios).toEqual([
      { name: 'ticket', instance: null, state: 'Claimed' },
    ])
    expect(
      (await admin<{ reset: number }>(server, '/scenarios', { method: 'DELETE' })).body.result
        .reset,
    ).toBe(1)
    // Every replica sees the reset (each one's last-known state was Claimed).
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(201)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(409)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(409)
    const put = await admin(server, '/scenarios/ticket', {
      method: 'PUT',
      body: JSON.stringify({ state: 'Started' }),
    })
    expect(put.status).toBe(200)
    expect((await send(server.url, 'POST', '/ticket')).status).toBe(201)

    // One state per instance key, whichever replica a request reaches; the TTL brings it back.
    const cart = async (session: string): Promise<string> =>
      (await send(server.url, 'GET', '/cart', { 'x-session': session })).text
    expect(await cart('a')).toBe('empty')
    expect(await cart('a')).toBe('filled')
    expect(await cart('a')).toBe('filled')
    expect(await cart('b')).toBe('empty')
    let answer = ''
    await waitFor(
      async () => {
        answer = await cart('a')
        return answer !== 'filled'
      },
      "instance a's TTL to pass",
      { intervalMs: 50 },
    )
    expect(answer).toBe('empty')
    await server.stop()
  }, 60_000)

  it('answers the verification API over every replica, and validates requests in every replica', async () => {
    const dir = tempDir()
    file(
      'mock.yaml',
      `name: shop\nvalidateRequests: true\ntransactions:\n  - name: pets\n    dsl:\n      requestDsl: {method: GET, path: /pets}\n      responseDsl: {text: '[]'}\n`,
      dir,
    )
    file(
      'openapi.yaml',
      `openapi: 3.0.3
info: {title: shop, version: '1'}
paths:
  /pets:
    get:
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer}}
      responses:
        '200': {description: ok}
`,
      dir,
    )
    const server = await startCli(
      ['run', '--mock', dir, '--port', '0', '--admin-port', '0', '--replicas', '2'],
      { timeoutMs: 20_000 },
    )
    await server.waitFor('stdout', 'admin on')

    // Validation in every replica: four requests reach both of them.
    for (let i = 0; i < 4; i++) {
      const bad = await send(server.url, 'GET', '/pets')
      expect(bad.status).toBe(422)
      expect(bad.text).toContain('/query/limit')
      expect((await send(server.url, 'GET', '/pets?limit=2')).status).toBe(200)
    }
    for (let i = 0; i < 3; i++) {
      expect((await send(server.url, 'GET', `/nowhere/${i}`)).status).toBe(404)
    }

    expect((await admin<{ count: number }>(server, '/inspection/count')).body.result.count).toBe(11)
    expect(
      (await admin<{ count: number }>(server, '/inspection/count?status=422')).body.result.count,
    ).toBe(4)
    const filtered = await admin<Array<{ id: number; timestamp: number }>>(
      server,
      '/inspection?path=/nowhere/*&limit=2',
    )
    expect(filtered.body.total).toBe(3)
    expect(filtered.body.result).toHaveLength(2)
    // Ids of both replicas (odd and even) among the 11, newest first.
    const all = await admin<Array<{ id: number; timestamp: number }>>(
      server,
      '/inspection?method=GET&limit=100',
    )
    expect(all.body.total).toBe(11)
    expect(new Set(all.body.result.map((e) => e.id % 2))).toEqual(new Set([0, 1]))
    const times = all.body.result.map((e) => e.timestamp)
    expect([...times].sort((a, b) => b - a)).toEqual(times)

    const unmatched = await admin<Array<{ url: string; diagnosis: unknown }>>(
      server,
      '/inspection/unmatched',
    )
    expect(unmatched.body.total).toBe(7)
    const verify = async (body: unknown) =>
      await admin<{ verified: boolean; actual: number; expected: string; nearest: unknown[] }>(
        server,
        '/inspection/verify',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      )
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

  it('records over both replicas into one recording in the primary, then serves it with identical answers', async () => {
    let generation = 'v1'
    const upstream = await startUpstream((req, res) => {
      const body = Buffer.from(
        JSON.stringify({ generation, method: req.method, url: req.url, got: req.body.toString() }),
      )
      res.writeHead(req.method === 'GET' ? 200 : 201, { 'content-type': 'application/json' })
      res.end(body)
    })
    const requests: ReplayRequest[] = [
      ['/pets?limit=2', {}],
      ['/pets?limit=3', {}],
      ['/pets/1', {}],
      [
        '/orders',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"item": "ball"}',
        },
      ],
      [
        '/orders',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"item": "rope"}',
        },
      ],
      ['/orders/7', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'shipped' }],
    ]
    // Several clients at once, each on its own connection: the primary hands connections to the
    // replicas in turn, so both forward (and record) the same requests.
    const clients = async (count: number): Promise<string[][]> =>
      await Promise.all(
        Array.from({ length: count }, async () => await replay(server.url, requests)),
      )
    const matched = {
      name: 'health',
      dsl: { requestDsl: { method: 'GET', path: '/health' }, responseDsl: { text: 'mocked' } },
    }
    const document = (mode: string, transactions: unknown[]): string =>
      JSON.stringify({
        name: 'rec',
        noMatchingRequestPreference: mode,
        liveSystemHost: upstream.url,
        transactions,
      })
    const server = await startCli(
      [
        'run',
        '--mock',
        file('rec.json', document('return404', [matched])),
        '--port',
        '0',
        '--admin-port',
        '0',
        '--replicas',
        '2',
      ],
      { timeoutMs: 20_000 },
    )
    await server.waitFor('stdout', 'admin on')
    type Recorded = {
      count: number
      transactions: Array<{
        dsl: {
          requestDsl: unknown
          responseDsl: { content?: string; responseDelay?: { type: string } }
        }
      }>
    }
    const recordings = async (query = ''): Promise<Recorded> =>
      (await admin<Recorded>(server, `/recordings${query}`)).body.result
    const configure = async (mode: string, transactions: unknown[]): Promise<number> =>
      (
        await admin(server, '/config', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: document(mode, transactions),
        })
      ).status

    // switched into record mode by PUT /config, as on a single runtime
    expect((await fetch(`${server.url}/pets/1`)).status).toBe(404)
    expect(await configure('record', [matched])).toBe(200)
    const rounds = await clients(8)
    const live = rounds[0] as string[]
    for (const round of rounds) expect(round).toEqual(live)
    expect(live.join()).toContain('"got":"{\\"item\\": \\"rope\\"}"')
    expect(upstream.requests).toHaveLength(8 * requests.length)
    const health = await admin<{ workers: Array<{ inspection: { records: number } }> }>(
      server,
      '/health',
    )
    for (const w of health.body.result.workers) expect(w.inspection.records).toBeGreaterThan(0)

    // read at once (each replica sends what it has queued before the primary answers): one
    // transaction per distinct request, no duplicates, latencies of both replicas fitted
    const recorded = await recordings()
    expect(recorded.count).toBe(requests.length)
    expect(new Set(recorded.transactions.map((t) => JSON.stringify(t.dsl.requestDsl))).size).toBe(
      requests.length,
    )
    expect(recorded.transactions.every((t) => t.dsl.responseDsl.responseDelay === undefined)).toBe(
      true,
    )
    expect(
      (await recordings('?keepLatency=true')).transactions.every(
        (t) => t.dsl.responseDsl.responseDelay?.type === 'lognormal',
      ),
    ).toBe(true)
    expect((await admin(server, '/recordings?keepLatency=maybe')).status).toBe(400)

    // recording again, over both replicas, updates the same transactions with the newest answers
    generation = 'v2'
    const again = await clients(4)
    expect(again[0]?.join()).toContain('"generation":"v2"')
    const updated = await recordings()
    expect(updated.count).toBe(requests.length)
    // each recorded body (base64 `content`, as the HAR importer keeps a capture) is the newest answer
    const bodies = updated.transactions.map((t) =>
      Buffer.from(t.dsl.responseDsl.content ?? '', 'base64').toString('utf8'),
    )
    expect(bodies.every((b) => b.includes('"generation":"v2"'))).toBe(true)

    // switch to serving the recording: every replica answers the same requests identically, upstream gone
    expect(await configure('return404', [matched, ...updated.transactions])).toBe(200)
    await upstream.close()
    for (const round of await clients(4)) expect(round).toEqual(again[0])
    expect(await (await fetch(`${server.url}/health`)).text()).toBe('mocked')
    // the recording outlives the swap; a reset forgets it everywhere
    expect((await recordings()).count).toBe(requests.length)
    expect(
      (await admin<{ cleared: number }>(server, '/recordings', { method: 'DELETE' })).body.result
        .cleared,
    ).toBe(requests.length)
    expect((await recordings()).count).toBe(0)
    await server.stop()
  }, 60_000)
})
