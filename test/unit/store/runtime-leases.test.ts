import { describe, expect, it } from 'vitest'
import type { Store } from '../../../src/store/index.js'
import { mockServiceInput, openTestStore, seed } from './fixtures.js'

/*
 * The runtime leases of platform instances sharing a database (on PostgreSQL with
 * scripts/test-pg-suites.sh): one holder at a time, renewal, handover on request, expiry,
 * re-adoption by the same home, release, and the shared secret the first instance creates.
 */

const T = 1_800_000_000_000
const LEASE = 15_000

async function aMock(store: Store): Promise<number> {
  const world = await seed(store)
  const mock = await store.mockServices.create(
    mockServiceInput(world.workspace.id, world.service.id, { name: 'pets' }),
  )
  return mock.id
}

function claimOf(mockServiceId: number, holder: string, now: number, adopt = false) {
  return {
    mockServiceId,
    holder,
    home: `${holder.split('/')[0] ?? ''}:data`,
    now,
    expires: now + LEASE,
    adopt,
  }
}

describe('runtime leases', () => {
  it('have one holder at a time until the lease expires, then go to whoever claims first', async () => {
    const { store } = await openTestStore()
    const id = await aMock(store)
    const a = await store.runtimeLeases.claim(claimOf(id, 'a/1/x', T))
    expect(a).toMatchObject({ mockServiceId: id, holder: 'a/1/x', expires: T + LEASE })
    // B is refused while A's lease lasts, and told who holds it
    expect((await store.runtimeLeases.claim(claimOf(id, 'b/2/y', T + 1000))).holder).toBe('a/1/x')
    // A recording what runs, then renewing, keeps it
    expect(
      await store.runtimeLeases.record(id, 'a/1/x', {
        startId: 's1',
        adminUrl: 'http://127.0.0.1:9',
        pid: 42,
        document: { name: 'pets', transactions: [{ b: 1, a: 2 }] },
      }),
    ).toBe(true)
    expect(await store.runtimeLeases.record(id, 'b/2/y', { pid: 7 })).toBe(false)
    const renewed = await store.runtimeLeases.renew('a/1/x', T + 10_000 + LEASE)
    expect(renewed.map((l) => [l.mockServiceId, l.expires])).toEqual([[id, T + 10_000 + LEASE]])
    expect(await store.runtimeLeases.expired(T + 20_000)).toEqual([])
    // Past it, B takes it, and what A ran is forgotten; the document stays, key order as written
    const expiredAt = T + 10_000 + LEASE + 1
    // Only a mock service meant to run is anyone's to take over
    expect(await store.runtimeLeases.expired(expiredAt)).toEqual([])
    await store.mockServices.update(id, { status: 'RUNNING' })
    expect((await store.runtimeLeases.expired(expiredAt)).map((l) => l.holder)).toEqual(['a/1/x'])
    const b = await store.runtimeLeases.claim(claimOf(id, 'b/2/y', expiredAt))
    expect(b).toMatchObject({ holder: 'b/2/y', startId: null, adminUrl: null, pid: null })
    expect(JSON.stringify(b.document)).toBe('{"name":"pets","transactions":[{"b":1,"a":2}]}')
    // A, late, renews nothing and learns it lost the lease
    expect(await store.runtimeLeases.renew('a/1/x', expiredAt + LEASE)).toEqual([])
  })

  it('are handed over on request, re-adopted by the same home, released, and forgotten', async () => {
    const { store } = await openTestStore()
    const id = await aMock(store)
    await store.runtimeLeases.claim(claimOf(id, 'a/1/x', T))
    await store.runtimeLeases.record(id, 'a/1/x', { startId: 's1', adminUrl: 'http://a', pid: 1 })
    await store.runtimeLeases.requestHandover(id, 'b/2/y')
    const [asked] = await store.runtimeLeases.renew('a/1/x', T + LEASE)
    expect(asked?.handover).toBe('b/2/y')
    expect(await store.runtimeLeases.handOver(id, 'b/2/y', 'c/3/z', T + LEASE)).toBe(false)
    expect(await store.runtimeLeases.handOver(id, 'a/1/x', 'b/2/y', T + 2 * LEASE)).toBe(true)
    expect(await store.runtimeLeases.get(id)).toMatchObject({
      holder: 'b/2/y',
      handover: null,
      adminUrl: null,
      expires: T + 2 * LEASE,
    })

    // A restarted cannot adopt what it handed over; B's claim (its acquire goes on) sets B's home
    expect((await store.runtimeLeases.claim(claimOf(id, 'a/5/v', T + 500, true))).holder).toBe(
      'b/2/y',
    )
    await store.runtimeLeases.claim(claimOf(id, 'b/2/y', T + 600))
    // B's restarted process (same host and data dir) re-adopts a live lease only when adopting
    const restarted = 'b/9/w'
    expect((await store.runtimeLeases.claim(claimOf(id, restarted, T + 1000))).holder).toBe('b/2/y')
    expect((await store.runtimeLeases.claim(claimOf(id, restarted, T + 1000, true))).holder).toBe(
      restarted,
    )

    // Released at a stop: anyone may take it at once
    expect(await store.runtimeLeases.releaseAll(restarted)).toBe(1)
    expect(await store.runtimeLeases.renew(restarted, T + 3 * LEASE)).toEqual([])
    expect((await store.runtimeLeases.claim(claimOf(id, 'a/1/x', T + 2000))).holder).toBe('a/1/x')
    expect(await store.runtimeLeases.remove(id, 'b/2/y')).toBe(false)
    expect(await store.runtimeLeases.remove(id, 'a/1/x')).toBe(true)
    expect(await store.runtimeLeases.get(id)).toBeUndefined()
  })

  it('go with their mock service, and share one secret, created by the first instance that asks', async () => {
    const { store } = await openTestStore()
    const id = await aMock(store)
    await store.runtimeLeases.claim(claimOf(id, 'a/1/x', T))
    const mock = await store.mockServices.getById(id)
    await store.mockServices.delete(mock?.workspaceId ?? 0, id)
    expect(await store.runtimeLeases.get(id)).toBeUndefined()

    expect(await store.runtimeLeases.sharedSecret('k', 'first')).toBe('first')
    expect(await store.runtimeLeases.sharedSecret('k', 'second')).toBe('first')
    expect(await store.runtimeLeases.sharedSecret('other', 'second')).toBe('second')
  })
})
