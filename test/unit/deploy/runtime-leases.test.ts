import { describe, expect, it } from 'vitest'
import { RuntimeLeases } from '../../../src/deploy/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import type { Store } from '../../../src/store/index.js'
import { mockServiceInput, openTestStore, seed } from '../store/fixtures.js'

/*
 * What another platform instance sees of a runtime it does not run: the admin API the holder
 * recorded, with a token it derives itself from the shared key (the same token the holder gave
 * its runtime), and 503 while the holder is gone and nobody has taken over.
 */

async function twoInstances(): Promise<{ store: Store; a: RuntimeLeases; b: RuntimeLeases }> {
  const { store, dataDir } = await openTestStore()
  const log = createSilentLogger()
  const a = await RuntimeLeases.open({ store, log, dataDir: `${dataDir}/a` })
  const b = await RuntimeLeases.open({ store, log, dataDir: `${dataDir}/b` })
  return { store, a, b }
}

async function aMock(store: Store): Promise<number> {
  const world = await seed(store)
  return (
    await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, { name: 'pets' }),
    )
  ).id
}

describe('runtime leases of a platform instance', () => {
  it("give another instance the holder's runtime admin, with the token the holder derived", async () => {
    const { store, a, b } = await twoInstances()
    expect(a.instanceId).not.toBe(b.instanceId)
    const id = await aMock(store)
    await a.acquire(id)
    expect(await b.remoteAdmin(id)).toBeNull()
    await a.record(id, { startId: 'start-1', adminUrl: 'http://127.0.0.1:4100', pid: 12 })
    const seen = await b.remoteAdmin(id)
    expect(seen).toEqual({ url: 'http://127.0.0.1:4100', token: a.token(id, 'start-1') })
    expect(seen?.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // One token per process and per mock service
    expect(a.token(id, 'start-2')).not.toBe(a.token(id, 'start-1'))
    expect(a.token(id + 1, 'start-1')).not.toBe(a.token(id, 'start-1'))
    // The holder itself answers from its own memory, not from the store
    expect(await a.remoteAdmin(id)).toBeNull()
  })

  it('answer 503 ERR_API_UNAVAILABLE for a runtime whose holder stopped renewing', async () => {
    const { store, b } = await twoInstances()
    const id = await aMock(store)
    const past = Date.now() - 60_000
    await store.runtimeLeases.claim({
      mockServiceId: id,
      holder: 'gone/1/x',
      home: 'gone:data',
      now: past,
      expires: past + 15_000,
      adopt: false,
    })
    await store.runtimeLeases.record(id, 'gone/1/x', {
      startId: 's',
      adminUrl: 'http://127.0.0.1:4100',
    })
    const refused = await b.remoteAdmin(id).then(
      () => null,
      (err: unknown) => err,
    )
    expect(isUnderstudyError(refused, 'ERR_API_UNAVAILABLE')).toBe(true)
    expect((refused as Error).message).toContain('gone/1/x')
  })

  it('adopt at start only what no other live instance holds', async () => {
    const { store, a, b } = await twoInstances()
    const id = await aMock(store)
    await a.acquire(id)
    expect(await b.adopt(id)).toBeUndefined()
    await a.close()
    expect((await b.adopt(id))?.holder).toBe(b.instanceId)
  })
})
