import { describe, expect, it, onTestFinished } from 'vitest'
import { AdminRelay, adminRequest, relayable } from '../../../src/deploy/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import {
  LocalWakeups,
  openPostgresStore,
  openSqliteStore,
  PgWakeups,
} from '../../../src/store/index.js'
import { freshPgDatabase, hasPostgres } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * The platform's side of the relay: only calls of the runtime admin API are queued, a call is
 * taken by its own ship only, and one nobody takes or answers fails closed naming the ship. The
 * calls go through the store's mailbox: on SQLite within one instance, on PostgreSQL between two
 * instances, the agent's poll and answer reaching the instance that did not queue the call.
 */

const ship = { harborId: 'harbor-1', shipId: 'ship-b' }
const never = new AbortController().signal

describe('relayable', () => {
  it.each([
    ['GET', '/health'],
    ['GET', '/inspection?skip=0&limit=50'],
    ['GET', '/inspection?path=/pets/*&method=GET'],
    ['GET', '/inspection/12'],
    ['GET', '/inspection/count?matched=false'],
    ['GET', '/inspection/unmatched?limit=5'],
    ['DELETE', '/inspection'],
    ['POST', '/inspection/verify'],
    ['GET', '/recordings?keepLatency=true'],
    ['DELETE', '/recordings'],
    ['GET', '/scenarios'],
    ['PUT', '/scenarios/login%20flow'],
    ['DELETE', '/scenarios/cart?instance=a'],
    ['PUT', '/scenarios/a..b'],
  ])('allows %s %s', (method, path) => {
    expect(relayable(method, path)).toBe(true)
  })

  it.each([
    ['PUT', '/config'],
    ['GET', '/config'],
    ['GET', '/log'],
    ['GET', '/__admin/mappings'],
    ['GET', '/ui'],
    ['GET', '/inspection/../config'],
    ['GET', '/inspection/1/../../config'],
    ['GET', '//other.example/health'],
    ['GET', 'http://127.0.0.1:9/health'],
    ['GET', '/health#x'],
    ['GET', '/health\r\nHost: x'],
    ['PATCH', '/scenarios/x'],
    ['PUT', '/scenarios/a/b'],
    ['PUT', '/scenarios/..'],
    ['DELETE', '/scenarios/%2e%2E'],
    ['DELETE', '/scenarios/.%2e?instance=x'],
    ['PUT', '/scenarios/a\\..\\config'],
  ])('refuses %s %s', (method, path) => {
    expect(relayable(method, path)).toBe(false)
  })
})

/** A relay over a fresh SQLite store, stopped with the test. */
async function sqliteRelay(takeWithinMs?: number): Promise<AdminRelay> {
  const store = await openSqliteStore({ dataDir: tempDir() })
  const relay = new AdminRelay({
    calls: store.adminCalls,
    wakeups: new LocalWakeups(),
    ...(takeWithinMs === undefined ? {} : { takeWithinMs }),
  })
  onTestFinished(async () => {
    await relay.close()
    await store.close()
  })
  return relay
}

describe('AdminRelay', () => {
  it('hands a call to its ship only, and resolves with the answer that ship posts', async () => {
    const relay = await sqliteRelay(5000)
    const answered = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 1000 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await relay.take('ship-a', 4, 0, never)).toEqual([])
    const [taken] = await relay.take('ship-b', 4, 0, never)
    expect(taken).toMatchObject({ mockServiceId: 7, method: 'GET', path: '/health' })
    expect(await relay.answer('ship-a', taken?.callId as string, { status: 200, body: {} })).toBe(
      false,
    )
    expect(await relay.answer('ship-b', 'unknown', { status: 200, body: {} })).toBe(false)
    expect(
      await relay.answer('ship-b', taken?.callId as string, { status: 200, body: { result: 1 } }),
    ).toBe(true)
    expect(await answered).toEqual({ status: 200, body: { result: 1 } })
  })

  it('wakes a waiting long poll as soon as a call is queued, and hands over its JSON', async () => {
    const relay = await sqliteRelay(5000)
    const polled = relay.take('ship-b', 4, 20_000, never)
    const json = { request: { path: '/pets' }, count: 2 }
    const answered = relay.call(ship, 7, {
      method: 'POST',
      path: '/inspection/verify',
      json,
      timeoutMs: 1000,
    })
    const [taken] = await polled
    expect(taken).toMatchObject({ method: 'POST', path: '/inspection/verify', json })
    await relay.answer('ship-b', taken?.callId as string, { status: 200, body: {} })
    await answered
  })

  it('refuses a path outside the runtime admin API before queueing it', async () => {
    const relay = await sqliteRelay()
    await expect(
      relay.call(ship, 7, { method: 'PUT', path: '/config', timeoutMs: 1000, json: {} }),
    ).rejects.toThrow(/not an admin call agents answer/)
    expect(await relay.take('ship-b', 4, 0, never)).toEqual([])
  })

  it('fails closed through adminRequest: 503 ERR_API_UNAVAILABLE naming the ship when no agent takes the call', async () => {
    const relay = await sqliteRelay(50)
    const err = await adminRequest(relay.admin(ship, 7), '/inspection', {
      method: 'GET',
      timeoutMs: 1000,
      unavailable: 'ERR_API_UNAVAILABLE',
    }).catch((e: unknown) => e)
    expect(isUnderstudyError(err, 'ERR_API_UNAVAILABLE')).toBe(true)
    expect((err as Error).message).toContain('agent ship-b of private location harbor-1')
    // The call was withdrawn: a late poll does not take it.
    expect(await relay.take('ship-b', 4, 0, never)).toEqual([])
  })

  it('fails a call taken but never answered, and every call when closed', async () => {
    const relay = await sqliteRelay(50)
    const answered = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 })
    expect(await relay.take('ship-b', 1, 5000, never)).toHaveLength(1)
    await expect(answered).rejects.toThrow(/took the call but did not answer/)
    const pending = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 })
    const closing = relay.close()
    await expect(pending).rejects.toThrow(/stopping/)
    await closing
    await expect(
      relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 }),
    ).rejects.toThrow(/stopping/)
  })
})

describe.skipIf(!hasPostgres)('AdminRelay across two platform instances on PostgreSQL', () => {
  /** Two instances on one database: each its store, its wake-ups connection and its relay. */
  async function twoInstances(takeWithinMs: number): Promise<AdminRelay[] | undefined> {
    const url = await freshPgDatabase()
    if (url === undefined) return undefined
    const relays: AdminRelay[] = []
    for (let i = 0; i < 2; i++) {
      const store = await openPostgresStore({ url })
      const wakeups = new PgWakeups(url)
      const relay = new AdminRelay({ calls: store.adminCalls, wakeups, takeWithinMs })
      onTestFinished(async () => {
        await relay.close()
        await wakeups.close()
        await store.close()
      })
      relays.push(relay)
    }
    return relays
  }

  it('lets the poll and the answer reach the instance that did not queue the call', async () => {
    const relays = await twoInstances(10_000)
    if (relays === undefined) return
    const [a, b] = relays as [AdminRelay, AdminRelay]
    // The wake-ups connections are up once a signal goes round: wait for B's poll to be woken.
    const polled = b.take('ship-b', 4, 20_000, never)
    const answered = a.call(ship, 7, { method: 'GET', path: '/inspection/count', timeoutMs: 1000 })
    const [taken] = await polled
    expect(taken).toMatchObject({ mockServiceId: 7, path: '/inspection/count' })
    expect(await a.answer('ship-a', taken?.callId as string, { status: 200, body: {} })).toBe(false)
    const body = { result: { count: 4 }, error: null }
    expect(await b.answer('ship-b', taken?.callId as string, { status: 200, body })).toBe(true)
    expect(await answered).toEqual({ status: 200, body })
    // A second round trip, the poll on A this time and the answer through B.
    const second = a.take('ship-b', 4, 20_000, never)
    const again = b.call(ship, 7, { method: 'GET', path: '/scenarios', timeoutMs: 1000 })
    const [next] = await second
    expect(await b.answer('ship-b', next?.callId as string, { status: 404, body: {} })).toBe(true)
    expect(await again).toEqual({ status: 404, body: {} })
  })

  it("fails closed when no instance's agent takes the call", async () => {
    const relays = await twoInstances(300)
    if (relays === undefined) return
    const [a, b] = relays as [AdminRelay, AdminRelay]
    await expect(
      a.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 }),
    ).rejects.toThrow(
      /agent ship-b of private location harbor-1 did not take the call within 300 ms/,
    )
    expect(await b.take('ship-b', 4, 0, never)).toEqual([])
  })
})
