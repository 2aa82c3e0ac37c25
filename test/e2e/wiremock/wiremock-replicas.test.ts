import { writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WireMockRestClient } from 'wiremock-rest-client'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

// `understudy run --replicas 2` driven by wiremock-rest-client: the primary owns the stubs and
// swaps them into both replicas, the journal gathers both replicas' rings, and whichever replica
// the shared mock port hands a `/__admin` call to, the answer is the same.

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

function clientOf(url: string): WireMockRestClient {
  return new WireMockRestClient(url, { logLevel: 'silent', continueOnFailure: true })
}

/** One request on its own connection, so that the replicas take turns. */
async function send(
  url: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${path}`,
      { method, headers: { connection: 'close' }, agent: false },
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

/** Answers of `count` requests, each on its own connection. */
async function many(url: string, path: string, count = 6): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await send(url, 'GET', path)
    out.push(`${res.status} ${res.status === 200 ? res.text : ''}`)
  }
  return out
}

/** The replica an inspection id belongs to: replica k of 2 numbers k, k + 2... (odd, even). */
function replicaOf(journalId: string): number {
  return parseInt(journalId.slice(-12), 16) % 2
}

describe('the WireMock admin API on run --replicas 2', () => {
  it('adds, lists, finds over both replicas, deletes and resets, the same through either replica', async () => {
    const dir = tempDir()
    const file = join(dir, 'mock.json')
    writeFileSync(file, JSON.stringify({ request: { url: '/file' }, response: { body: 'f' } }))
    const server = await startCli([
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
      '--log-level',
      'warn',
    ])
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
    const wm = clientOf(server.url)

    const created = (await wm.mappings.createMapping({
      request: { method: 'GET', url: '/b' },
      response: { status: 200, body: 'bee' },
      metadata: { team: 'a' },
    })) as Json
    expect(created['id']).toMatch(/^[0-9a-f-]{36}$/)
    // Served by both replicas from the moment the call answered.
    expect(await many(server.url, '/b')).toEqual(Array(6).fill('200 bee'))
    expect(await many(server.url, '/nope', 2)).toEqual(['404 ', '404 '])

    // Every replica answers the same listing (each call on its own connection).
    const listings = await Promise.all(
      [1, 2, 3, 4].map(async () => (await send(server.url, 'GET', '/__admin/mappings')).text),
    )
    expect(new Set(listings).size).toBe(1)
    const listed = JSON.parse(listings[0] ?? '{}') as Json
    expect(listed['meta']).toEqual({ total: 2 })
    expect(listed['mappings'][0]).toEqual(created)
    // The primary's admin port answers the same API.
    expect(await (await fetch(`${admin}/__admin/mappings`)).json()).toEqual(listed)

    // The journal holds the traffic of both replicas.
    const all = (await wm.requests.getAllRequests()) as Json
    expect(all['meta']).toEqual({ total: 8 })
    const ids = (all['requests'] as Json[]).map((r) => r['id'] as string)
    expect(new Set(ids.map(replicaOf))).toEqual(new Set([0, 1]))
    const found = (await wm.requests.findRequests({ method: 'GET', url: '/b' })) as Json
    expect(found['requests']).toHaveLength(6)
    expect(((await wm.requests.getCount({ method: 'GET', url: '/b' })) as Json)['count']).toBe(6)
    const unmatched = (await wm.requests.getUnmatchedRequests()) as Json
    expect((unmatched['requests'] as Json[]).map((r) => r['url'])).toEqual(['/nope', '/nope'])
    for (const id of [ids.find((i) => replicaOf(i) === 0), ids.find((i) => replicaOf(i) === 1)]) {
      const event = (await wm.requests.getRequest(id ?? '')) as Json
      expect(event['id']).toBe(id)
    }
    const nearMisses = (await wm.requests.getUnmatchedNearMisses()) as Json
    expect(nearMisses['nearMisses'].length).toBeGreaterThan(0)

    // A configuration swap on the admin port (the document without the API's stubs) keeps the
    // API's stubs layered over it in both replicas.
    const config = ((await (await fetch(`${admin}/config`)).json()) as Json)['result'] as Json
    const own = (config['transactions'] as Json[]).filter((t) => (t['id'] ?? 0) < 2_000_000_000)
    expect(own).toHaveLength(1)
    const swapped = await fetch(`${admin}/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...config, transactions: own, mockServiceTransactions: [] }),
    })
    expect(swapped.status).toBe(200)
    expect(await many(server.url, '/b', 4)).toEqual(Array(4).fill('200 bee'))

    // Deleted: no replica serves it any more.
    await wm.mappings.deleteMapping(created['id'])
    expect(await many(server.url, '/b', 4)).toEqual(Array(4).fill('404 '))
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']).toEqual({ total: 1 })

    // A stub that does not compile changes nothing anywhere.
    const refused = await send(
      server.url,
      'POST',
      '/__admin/mappings',
      JSON.stringify({ request: { urlPattern: '/(unclosed' }, response: { body: 'x' } }),
    )
    expect(refused.status).toBe(422)
    expect(JSON.parse(refused.text)).toMatchObject({
      errors: [{ source: { pointer: '/request/urlPattern' } }],
    })
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']).toEqual({ total: 1 })

    // Journal reset clears every replica's ring.
    await wm.requests.resetAllRequests()
    expect(((await wm.requests.getAllRequests()) as Json)['meta']).toEqual({ total: 0 })
    expect(await many(server.url, '/file', 4)).toEqual(Array(4).fill('200 f'))
    expect(((await wm.requests.getAllRequests()) as Json)['meta']).toEqual({ total: 4 })

    // A full reset: stubs back to the file's, journal empty, in both replicas.
    await wm.mappings.createMapping({ request: { url: '/c' }, response: { body: 'c' } })
    expect(await many(server.url, '/c', 2)).toEqual(['200 c', '200 c'])
    await wm.global.resetAll()
    expect(await many(server.url, '/c', 2)).toEqual(['404 ', '404 '])
    const after = (await wm.mappings.getAllMappings()) as Json
    expect(after['meta']).toEqual({ total: 1 })
    // The file's stub, rendered from the document the swap above put (its WireMock original is gone).
    expect(after['mappings'][0]['request']).toEqual({ method: 'ANY', urlPath: '/file' })
  }, 60_000)

  it('fails closed: a replica that does not answer makes a journal read a 503, not a partial list', async () => {
    const file = join(tempDir(), 'mock.json')
    writeFileSync(file, JSON.stringify({ request: { url: '/a' }, response: { body: 'a' } }))
    const server = await startCli([
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
      '--log-level',
      'error',
    ])
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
    await many(server.url, '/a', 4)
    const health = (await (await fetch(`${admin}/health`)).json()) as Json
    const pid = (health['result'] ?? health)['workers'][0]['pid'] as number
    // A replica that stops answering (a stopped process of this test), then resumes.
    process.kill(pid, 'SIGSTOP')
    try {
      const res = await fetch(`${admin}/__admin/requests`)
      expect(res.status).toBe(503)
      const body = (await res.json()) as Json
      expect(body['errors'][0]['title']).toMatch(/replica 1/)
    } finally {
      process.kill(pid, 'SIGCONT')
    }
    expect(((await clientOf(admin).requests.getAllRequests()) as Json)['meta']).toEqual({
      total: 4,
    })
  }, 60_000)
})
