import { describe, expect, it } from 'vitest'
import { mockServiceInput, openTestStore, seed } from './fixtures.js'

/*
 * Ships at work in the store: heartbeats, lost ships, environment ids, and the placements whose
 * every change bumps the work version an agent's long poll waits on.
 */

const figures = {
  memoryUsage: 1000,
  msRunningCount: 1,
  transactionsCount: 7,
  agentVersion: '0.1.0',
  advertiseHost: 'lab-1',
  regions: ['eu-west'],
}

describe('ships and placements', () => {
  it('bumps the work version of every ship a placement change concerns, and only those', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const harbor = await store.locations.createHarbor({
      id: 'harbor-1',
      accountId: world.account.id,
      name: 'lab',
      userId: world.user.id,
      workspaceIds: [world.workspace.id],
    })
    const ship = async (id: string) =>
      await store.locations.createShip({
        id,
        harborId: harbor.id,
        name: id,
        address: null,
        tokenHash: 'x',
      })
    const one = await ship('ship-1')
    const two = await ship('ship-2')
    expect([one.environmentId, two.environmentId]).toEqual([2, 3])
    expect([one.workVersion, one.state]).toEqual([0, 'empty'])
    const versions = async () =>
      (await store.locations.ships([harbor.id])).map((s) => s.workVersion)

    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, { name: 'pets' }),
    )
    const placement = {
      mockServiceId: mock.id,
      harborId: harbor.id,
      shipId: one.id,
      desired: 'RUNNING' as const,
      document: { name: 'pets' },
      documentHash: 'h1',
      trackingId: 't1',
    }
    await store.placements.assign(placement)
    expect(await versions()).toEqual([1, 0])
    await store.placements.assign({ ...placement, documentHash: 'h2' })
    expect(await versions()).toEqual([2, 0])
    // Moving to another ship: the ship it leaves learns it too.
    await store.placements.assign({ ...placement, shipId: two.id })
    expect(await versions()).toEqual([3, 1])
    expect(await store.placements.ofShip(one.id)).toEqual([])
    expect((await store.placements.ofHarbor(harbor.id)).map((p) => p.shipId)).toEqual([two.id])
    expect(await store.placements.remove(mock.id)).toBe(true)
    expect(await store.placements.remove(mock.id)).toBe(false)
    expect(await versions()).toEqual([3, 2])
    // A deleted mock service takes its placement with it.
    await store.placements.assign(placement)
    await store.write(async (tx) => await tx.mockServices.delete(world.workspace.id, mock.id))
    expect(await store.placements.get(mock.id)).toBeUndefined()
  })

  it('records heartbeats and marks lost only the ready ships silent since the cutoff', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await store.locations.createHarbor({
      id: 'harbor-1',
      accountId: world.account.id,
      name: 'lab',
      userId: world.user.id,
      workspaceIds: [world.workspace.id],
    })
    for (const id of ['ship-1', 'ship-2']) {
      await store.locations.createShip({
        id,
        harborId: 'harbor-1',
        name: id,
        address: null,
        tokenHash: 'x',
      })
    }
    const beat = await store.locations.heartbeat('harbor-1', 'ship-1', figures)
    expect(beat).toMatchObject({ state: 'ready', ...figures })
    expect(await store.locations.heartbeat('harbor-1', 'ship-9', figures)).toBeUndefined()
    const seen = beat?.lastHeartbeat as number
    expect(await store.locations.countSilent(seen)).toBe(0)
    expect(await store.locations.markLost(seen)).toEqual([])
    expect(await store.locations.countSilent(seen + 1)).toBe(1)
    const lost = await store.locations.markLost(seen + 1)
    // The ship that never connected stays empty: it was never live.
    expect(lost.map((s) => [s.id, s.state])).toEqual([['ship-1', 'lost']])
    expect((await store.locations.shipByEnvironment(3))?.id).toBe('ship-2')
  })
})
