import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { fanInAdmin, type PodAdmin } from '../../../src/deploy/kubernetes/fan-in-admin.js'

/*
 * The fan-in over pods' admin APIs, against two small HTTP servers that answer `GET /inspection`
 * and `GET /inspection/{id}` as a runtime does (newest first, at most 1,000 a page): a page
 * deeper than one runtime page is read in steps and merged in the right order, and each id
 * leads back to its pod.
 */

interface Entry {
  id: number
  timestamp: number
  url: string
}

const servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .map(async (s) => await new Promise<void>((resolve) => s.close(() => resolve()))),
  )
})

/** A pod holding `records` (oldest first), refusing pages over 1,000 as the runtime caps them. */
async function fakePod(name: string, records: Entry[]): Promise<PodAdmin & { asked: string[] }> {
  const asked: string[] = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pod')
    asked.push(url.pathname + url.search)
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ apiVersion: 1, requestId: 'r', ...(body as object) }))
    }
    const newest = [...records].reverse()
    if (url.pathname === '/inspection') {
      const skip = Number(url.searchParams.get('skip') ?? 0)
      const limit = Number(url.searchParams.get('limit') ?? 50)
      if (limit > 1000) {
        send(400, { error: { code: 'ERR_API_VALIDATION', message: 'limit' }, result: null })
        return
      }
      send(200, {
        error: null,
        result: newest.slice(skip, skip + limit),
        skip,
        limit,
        total: records.length,
      })
      return
    }
    const id = Number(url.pathname.split('/')[2])
    const found = records.find((r) => r.id === id)
    if (found === undefined) {
      send(404, { error: { code: 'ERR_INSPECT_NOT_FOUND', message: 'gone' }, result: null })
    } else send(200, { error: null, result: found })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  const address = server.address() as { port: number }
  return { name, admin: { url: `http://127.0.0.1:${address.port}`, token: null }, asked }
}

describe('fanInAdmin', () => {
  it('reads a page deeper than one runtime page in steps, merged newest first, and routes each id to its pod', async () => {
    // Pod a's records at even times, pod b's at odd ones: merged, they alternate.
    const recordsOf = (pod: string, offset: number): Entry[] =>
      Array.from({ length: 1200 }, (_, i) => ({
        id: i + 1,
        timestamp: 2 * i + offset,
        url: `/${pod}/${i + 1}`,
      }))
    const a = await fakePod('pod-a', recordsOf('a', 0))
    const b = await fakePod('pod-b', recordsOf('b', 1))
    const admin = fanInAdmin(7, async () => ({ wanted: 2, ready: [a, b], notReady: [] }), 2000)

    const page = await admin.request('GET', '/inspection?skip=1990&limit=20')
    expect(page).toMatchObject({ skip: 1990, limit: 20, total: 2400 })
    const entries = page.result as Entry[]
    // 2,400 records newest first: position p holds timestamp 2399 - p.
    expect(entries.map((e) => e.timestamp)).toEqual(
      Array.from({ length: 20 }, (_, i) => 2399 - 1990 - i),
    )
    expect(a.asked.some((q) => q.includes('limit=1000'))).toBe(true)
    expect(a.asked.some((q) => q.includes('skip=1000'))).toBe(true)

    for (const entry of entries) {
      const detail = (await admin.request('GET', `/inspection/${entry.id}`)).result as Entry
      expect(detail).toEqual({ ...entry })
    }
    await expect(admin.request('GET', `/inspection/${String(entries[0]?.id)}9`)).rejects.toThrow(
      /does not exist/,
    )
  })

  it('gives two pods distinct ids even when their names hash to the same slot', async () => {
    const one = [{ id: 1, timestamp: 1, url: '/x' }]
    const pods = [await fakePod('same', one), await fakePod('same', one)]
    const admin = fanInAdmin(7, async () => ({ wanted: 2, ready: pods, notReady: [] }), 2000)
    const ids = ((await admin.request('GET', '/inspection')).result as Entry[]).map((e) => e.id)
    expect(new Set(ids).size).toBe(2)
  })
})
