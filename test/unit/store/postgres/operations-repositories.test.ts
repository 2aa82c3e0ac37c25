import { describe, expect, it } from 'vitest'
import { isConstraintViolation, type Asset } from '../../../../src/store/index.js'
import { pgTrackingRepository } from '../../../../src/store/postgres/tracking-repositories.js'
import { mockServiceInput } from '../../../helpers/mock-service-input.js'
import { hasPostgres, PG_SKIP_REASON } from '../../../helpers/postgres.js'
import { ALL, BY, openPgOperations } from './pg-fixtures.js'

/*
 * The PostgreSQL repositories of mock services, trackings, log snapshots, assets, mock settings,
 * sandboxes and private locations: the SQLite repositories' tests (test/unit/store/) asked of
 * PostgreSQL, against a real server.
 */

if (!hasPostgres) console.warn(`[PostgreSQL operations repository tests skipped] ${PG_SKIP_REASON}`)

function assetInput(workspaceId: number, serviceId: number | null, overrides: Partial<Asset> = {}) {
  return {
    workspaceId,
    serviceId,
    name: 'pets.mar',
    description: null,
    type: 'MAR' as const,
    fileId: '0b7c4c4e-5b9b-4a55-9d5e-2f3f1a4a9f00',
    folderId: null,
    platformVseId: null,
    tags: [],
    primaryMetadata: {},
    secondaryMetadata: {},
    size: 1234,
    sha256: 'ab'.repeat(32),
    contentType: 'application/octet-stream',
    ...overrides,
    by: BY,
  }
}

describe.skipIf(!hasPostgres)('PostgreSQL mock services', () => {
  it('round-trips every field, JSON as written, and updates only what a patch names', async () => {
    const { repos, world } = await openPgOperations()
    const input = mockServiceInput(world.workspaceId, world.serviceId, {
      description: 'd',
      status: 'PENDING',
      harborId: 'h1',
      shipId: 's1',
      bridgeId: 3,
      registryId: 4,
      vseId: 5,
      platformVseId: 6,
      endpointPreference: 'HTTPS',
      liveSystemHost: 'live.example.com',
      liveSystemPort: 8443,
      thinkTime: 250,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: world.transactionId,
      mockServiceTransactions: [
        { txnId: world.transactionId, priority: 2 },
        { txnId: 999, priority: null },
      ],
      tags: ['a, b', 'c'],
      groupTag: 'g',
      httpEndpoint: 'http://127.0.0.1:41000',
      port: 41000,
      tlsPort: 41001,
      deployDate: 1_700_000_000_000,
      pendingUpdate: true,
      proxy: {
        proxyUrl: 'http://proxy:3128',
        nonProxyHosts: 'localhost',
        username: 'u',
        password: 'p',
      },
      cors: { zeta: 1, alpha: [true] },
      templateSeed: 42,
      matchHost: true,
    })
    const mock = await repos.mockServices.create(input)
    const { by, ...fields } = input
    expect(mock).toEqual({
      ...fields,
      id: mock.id,
      faults: null,
      created: expect.any(Number),
      updated: mock.created,
      createdBy: by,
      updatedBy: by,
    })
    // Key order of a JSON column is kept (json, not jsonb).
    expect(Object.keys(mock.cors as object)).toEqual(['zeta', 'alpha'])
    expect(await repos.mockServices.get(world.workspaceId, mock.id)).toEqual(mock)
    expect(await repos.mockServices.getById(mock.id)).toEqual(mock)

    const running = await repos.mockServices.update(mock.id, { status: 'RUNNING', port: 4000 })
    expect(running).toEqual({ ...mock, status: 'RUNNING', port: 4000 })
    const edited = await repos.mockServices.update(mock.id, {
      name: 'renamed',
      thinkTime: null,
      by: 'bob@example.com',
      ...({ id: 555, workspaceId: world.otherWorkspaceId, createdBy: 'eve' } as object),
    })
    expect(edited).toEqual({
      ...running,
      name: 'renamed',
      thinkTime: null,
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    expect(edited!.updated).toBeGreaterThan(mock.updated)
    expect(await repos.mockServices.update(999, { status: 'FAILED' })).toBeUndefined()

    // A fault given by its name is a JSON string, kept as one.
    const chaos = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId, { faults: 'connection_reset' }),
    )
    expect(chaos.faults).toBe('connection_reset')
    expect((await repos.mockServices.update(chaos.id, { name: 'x' }))?.faults).toBe(
      'connection_reset',
    )
    expect((await repos.mockServices.getById(chaos.id))?.faults).toBe('connection_reset')
  })

  it('lists, sorts and pages by workspace and service, by status, counts per service, and reports used ports', async () => {
    const { repos, world, pool } = await openPgOperations()
    const [orders] = await pool.query<{ id: number }>(
      `INSERT INTO services (workspace_id, name, created, updated, created_by, updated_by) VALUES ($1, 'orders', 1, 1, 'x', 'x') RETURNING id`,
      [world.workspaceId],
    )
    const a = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId, {
        name: 'beta',
        status: 'RUNNING',
        port: 4100,
        tlsPort: 4101,
      }),
    )
    const b = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, orders!.id, {
        name: 'Alpha',
        status: 'PENDING',
        port: 4050,
      }),
    )
    const c = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId, { name: 'gamma' }),
    )
    const d = await repos.mockServices.create(
      mockServiceInput(world.otherWorkspaceId, world.otherServiceId, { status: 'RUNNING' }),
    )
    const ids = async (query: { limit: number; skip: number; sort?: string }, serviceId?: number) =>
      (
        await repos.mockServices.list(
          world.workspaceId,
          serviceId === undefined ? {} : { serviceId },
          query,
        )
      ).items.map((m) => m.id)
    expect(await ids(ALL)).toEqual([a.id, b.id, c.id])
    expect(await ids(ALL, world.serviceId)).toEqual([a.id, c.id])
    // Names sort ignoring ASCII case, as SQLite's NOCASE does; -x is the exact reverse.
    expect(await ids({ ...ALL, sort: 'name' })).toEqual([b.id, a.id, c.id])
    expect(await ids({ ...ALL, sort: '-name' })).toEqual([c.id, a.id, b.id])
    const page = await repos.mockServices.list(world.workspaceId, {}, { limit: 1, skip: 1 })
    expect(page).toEqual({ items: [b], total: 3 })
    // A page past the end still carries the total.
    expect(await repos.mockServices.list(world.workspaceId, {}, { limit: 10, skip: 10 })).toEqual({
      items: [],
      total: 3,
    })
    expect(await ids({ limit: -1, skip: 2 })).toEqual([c.id])
    expect(
      (await repos.mockServices.list(world.otherWorkspaceId, { serviceId: world.serviceId }, ALL))
        .total,
    ).toBe(0)
    expect(
      (await repos.mockServices.listByStatus(['RUNNING', 'PENDING'])).map((m) => m.id),
    ).toEqual([a.id, b.id, d.id])
    expect(await repos.mockServices.listByStatus([])).toEqual([])
    expect(await repos.mockServices.countByService(world.workspaceId, world.serviceId)).toBe(2)
    expect(await repos.mockServices.countByService(world.otherWorkspaceId, world.serviceId)).toBe(0)
    expect(await repos.mockServices.usedPorts()).toEqual([4050, 4100, 4101])
  })

  it('refuses a taken port, a service of another workspace, and never acts through another workspace', async () => {
    const { repos, world, pool } = await openPgOperations()
    const mock = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId, { port: 4100 }),
    )
    await expect(
      repos.mockServices.create(
        mockServiceInput(world.workspaceId, world.serviceId, { port: 4100 }),
      ),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
    await expect(
      repos.mockServices.create(mockServiceInput(world.workspaceId, world.otherServiceId)),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    // A service in use cannot be deleted.
    await expect(
      pool.query('DELETE FROM services WHERE id = $1', [world.serviceId]),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    expect(await repos.mockServices.get(world.otherWorkspaceId, mock.id)).toBeUndefined()
    expect(await repos.mockServices.delete(world.otherWorkspaceId, mock.id)).toBe(false)
    expect(await repos.mockServices.delete(world.workspaceId, mock.id)).toBe(true)
    expect(await repos.mockServices.getById(mock.id)).toBeUndefined()
  })
})

describe.skipIf(!hasPostgres)('PostgreSQL trackings, clone trackings and log snapshots', () => {
  it('moves a tracking along, finds the latest of an action, and lets them go with their mock service', async () => {
    const { repos, world, ctx } = await openPgOperations()
    const mock = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId),
    )
    const base = {
      workspaceId: world.workspaceId,
      mockServiceId: mock.id,
      status: 'PENDING' as const,
      errors: [],
      warnings: [],
      createdBy: BY,
    }
    const tracking = await repos.trackings.create({ ...base, trackingId: 't1', action: 'deploy' })
    expect(tracking).toEqual({
      ...base,
      trackingId: 't1',
      action: 'deploy',
      created: expect.any(Number),
      updated: tracking.created,
      ended: null,
    })
    const failed = await repos.trackings.update('t1', {
      status: 'FAILED',
      errors: [{ code: 'ERR_DEPLOY_FAILED', message: 'port "4000" taken' }],
      ended: 42,
    })
    expect(failed).toEqual({
      ...tracking,
      status: 'FAILED',
      errors: [{ code: 'ERR_DEPLOY_FAILED', message: 'port "4000" taken' }],
      ended: 42,
      updated: expect.any(Number),
    })
    expect(await repos.trackings.get('t1')).toEqual(failed)
    expect(await repos.trackings.update('nope', { status: 'RUNNING' })).toBeUndefined()

    // Two deploys of the same millisecond: the one created last is the latest.
    const frozen = pgTrackingRepository({ ...ctx, now: () => 1_800_000_000_000 })
    await frozen.create({ ...base, trackingId: 't2', action: 'deploy' })
    await frozen.create({ ...base, trackingId: 't3', action: 'deploy' })
    expect((await repos.trackings.latestOf(mock.id, 'deploy'))?.trackingId).toBe('t3')
    expect(await repos.trackings.latestOf(mock.id, 'stop')).toBeUndefined()

    await expect(
      repos.trackings.create({
        ...base,
        workspaceId: world.otherWorkspaceId,
        trackingId: 'x',
        action: 'stop',
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))

    const first = await repos.logs.create({ mockServiceId: mock.id, trackingId: null, log: 'a\nb' })
    const second = await repos.logs.create({ mockServiceId: mock.id, trackingId: 't1', log: '' })
    expect(second.logId).toBeGreaterThan(first.logId)
    expect(await repos.logs.get(mock.id, first.logId)).toEqual({
      logId: first.logId,
      mockServiceId: mock.id,
      trackingId: null,
      log: 'a\nb',
      created: expect.any(Number),
    })

    await repos.mockServices.delete(world.workspaceId, mock.id)
    expect(await repos.trackings.get('t1')).toBeUndefined()
    expect(await repos.logs.get(mock.id, first.logId)).toBeUndefined()

    const clone = await repos.cloneTrackings.create({
      trackingId: 'c1',
      workspaceId: world.workspaceId,
      serviceId: world.serviceId,
      createdBy: BY,
    })
    expect(await repos.cloneTrackings.get('c1')).toEqual(clone)
    expect(await repos.cloneTrackings.get('c2')).toBeUndefined()
  })
})

describe.skipIf(!hasPostgres)('PostgreSQL assets', () => {
  it('round-trips an asset, finds it by name (no service too), lists and sorts, and keeps its service in its workspace', async () => {
    const { repos, world, pool } = await openPgOperations()
    const input = assetInput(world.workspaceId, world.serviceId, {
      description: 'the pets MAR',
      tags: ['x, y'],
      primaryMetadata: { nested: { list: [1, 'two', null], flag: true } },
      secondaryMetadata: { 'key with "quotes"': 'ünï' },
    })
    const asset = await repos.assets.create(input)
    const { by, ...fields } = input
    expect(asset).toEqual({
      ...fields,
      id: asset.id,
      created: expect.any(Number),
      updated: asset.created,
      createdBy: by,
      updatedBy: by,
    })
    const loose = await repos.assets.create(
      assetInput(world.workspaceId, null, { name: 'Zoo.mar', fileId: 'f2' }),
    )
    expect(await repos.assets.findByName(world.workspaceId, null, 'Zoo.mar')).toEqual(loose)
    expect(
      await repos.assets.findByName(world.workspaceId, null, 'Zoo.mar', loose.id),
    ).toBeUndefined()
    expect(await repos.assets.findByName(world.workspaceId, world.serviceId, 'pets.mar')).toEqual(
      asset,
    )
    expect(await repos.assets.fileIds()).toEqual(new Set([asset.fileId, 'f2']))
    expect(
      (await repos.assets.list(world.workspaceId, {}, { ...ALL, sort: '-size' })).items.map(
        (a) => a.id,
      ),
    ).toEqual([loose.id, asset.id])
    expect(
      (await repos.assets.list(world.workspaceId, { serviceId: world.serviceId }, ALL)).total,
    ).toBe(1)

    const updated = await repos.assets.update(world.workspaceId, asset.id, {
      description: 'new',
      serviceId: null,
      by: 'bob@example.com',
    })
    expect(updated).toEqual({
      ...asset,
      description: 'new',
      serviceId: null,
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    await expect(
      repos.assets.update(world.workspaceId, asset.id, { serviceId: world.otherServiceId, by: BY }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    await expect(
      repos.assets.create(assetInput(world.workspaceId, world.otherServiceId)),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    expect(await repos.assets.update(world.otherWorkspaceId, asset.id, { by: BY })).toBeUndefined()

    // Deleting the service leaves the asset without one.
    await repos.assets.update(world.workspaceId, asset.id, { serviceId: world.serviceId, by: BY })
    await pool.query('DELETE FROM services WHERE id = $1', [world.serviceId])
    expect((await repos.assets.get(world.workspaceId, asset.id))?.serviceId).toBeNull()
    expect(await repos.assets.delete(world.otherWorkspaceId, asset.id)).toBe(false)
    expect(await repos.assets.delete(world.workspaceId, asset.id)).toBe(true)
    expect(await repos.assets.get(world.workspaceId, asset.id)).toBeUndefined()
  })
})

describe.skipIf(!hasPostgres)('PostgreSQL mock settings and sandboxes', () => {
  it('creates, lists, updates settings, and sets and clears the configuration of a mock service', async () => {
    const { repos, world } = await openPgOperations()
    const qa = await repos.mockSettings.create({
      workspaceId: world.workspaceId,
      kind: 'configuration',
      name: 'qa',
      description: null,
      body: { configurationMap: { b: 1, a: 2 } },
      by: BY,
    })
    await repos.mockSettings.create({
      workspaceId: world.workspaceId,
      kind: 'template',
      name: 'qa',
      description: null,
      body: {},
      by: BY,
    })
    await expect(
      repos.mockSettings.create({
        workspaceId: world.workspaceId,
        kind: 'configuration',
        name: 'qa',
        description: null,
        body: {},
        by: BY,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
    expect(await repos.mockSettings.list(world.workspaceId, 'configuration', ALL)).toEqual({
      items: [qa],
      total: 1,
    })
    expect(await repos.mockSettings.get(world.workspaceId, 'template', qa.id)).toBeUndefined()
    const renamed = await repos.mockSettings.update(world.workspaceId, 'configuration', qa.id, {
      name: 'staging',
      by: 'bob@example.com',
    })
    expect(renamed).toEqual({
      ...qa,
      name: 'staging',
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })

    const mock = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId),
    )
    expect(await repos.mockSettings.configurationOf(mock.id)).toBeNull()
    await repos.mockSettings.setConfiguration(mock.id, qa.id)
    await repos.mockSettings.setConfiguration(mock.id, qa.id)
    expect(await repos.mockSettings.configurationOf(mock.id)).toBe(qa.id)
    await repos.mockSettings.setConfiguration(mock.id, null)
    expect(await repos.mockSettings.configurationOf(mock.id)).toBeNull()
  })

  it('opens one sandbox per user and workspace, replacing the previous, gone with its transaction', async () => {
    const { repos, world, pool } = await openPgOperations()
    const first = await repos.sandboxes.open({
      workspaceId: world.workspaceId,
      userId: world.userId,
      transactionId: world.transactionId,
    })
    expect(first).toEqual({
      workspaceId: world.workspaceId,
      userId: world.userId,
      transactionId: world.transactionId,
      opened: expect.any(Number),
    })
    const again = await repos.sandboxes.open({ ...first })
    expect(again.opened).toBeGreaterThan(first.opened)
    expect(await repos.sandboxes.get(world.workspaceId, world.userId)).toEqual(again)
    expect(await repos.sandboxes.get(world.otherWorkspaceId, world.userId)).toBeUndefined()
    await pool.query('DELETE FROM transactions WHERE id = $1', [world.transactionId])
    expect(await repos.sandboxes.get(world.workspaceId, world.userId)).toBeUndefined()
  })
})

describe.skipIf(!hasPostgres)('PostgreSQL private locations', () => {
  it('keeps harbors per account with their workspaces, lists them by workspace, and their ships', async () => {
    const { repos, world } = await openPgOperations()
    const lab = await repos.locations.createHarbor({
      id: 'harbor-lab',
      accountId: world.accountId,
      name: 'lab',
      userId: world.userId,
      workspaceIds: [world.otherWorkspaceId, world.workspaceId, world.workspaceId],
    })
    expect(lab).toEqual({
      id: 'harbor-lab',
      accountId: world.accountId,
      name: 'lab',
      userId: world.userId,
      workspaceIds: [world.workspaceId, world.otherWorkspaceId].sort((a, b) => a - b),
      created: expect.any(Number),
      updated: expect.any(Number),
    })
    const dock = await repos.locations.createHarbor({
      id: 'harbor-dock',
      accountId: world.accountId,
      name: 'Dock',
      userId: null,
      workspaceIds: [],
    })
    expect(await repos.locations.harbor([world.accountId], 'harbor-lab')).toEqual(lab)
    expect(await repos.locations.harbor([world.otherAccountId], 'harbor-lab')).toBeUndefined()
    expect(
      await repos.locations.harbors({ accountId: world.accountId }, { ...ALL, sort: 'name' }),
    ).toEqual({ items: [dock, lab], total: 2 })
    expect(
      await repos.locations.harbors(
        { accountId: world.accountId, workspaceIds: [world.otherWorkspaceId] },
        ALL,
      ),
    ).toEqual({ items: [lab], total: 1 })

    const ship = await repos.locations.createShip({
      id: 'ship-1',
      harborId: 'harbor-lab',
      name: 'one',
      address: null,
      tokenHash: 'hash',
    })
    expect(ship).toEqual({
      id: 'ship-1',
      harborId: 'harbor-lab',
      name: 'one',
      address: null,
      tokenHash: 'hash',
      state: 'empty',
      lastHeartbeat: null,
      created: expect.any(Number),
      updated: expect.any(Number),
      memoryUsage: null,
      msRunningCount: null,
      transactionsCount: null,
      agentVersion: null,
      advertiseHost: null,
      regions: null,
      workVersion: 0,
      environmentId: 2,
    })
    await repos.locations.createShip({
      id: 'ship-2',
      harborId: 'harbor-dock',
      name: 'two',
      address: 'x:1',
      tokenHash: 'h',
    })
    expect((await repos.locations.ships(['harbor-lab', 'harbor-dock'])).map((s) => s.id)).toEqual([
      'ship-1',
      'ship-2',
    ])
    expect(await repos.locations.ship('harbor-dock', 'ship-1')).toBeUndefined()
    expect(await repos.locations.deleteShip('harbor-dock', 'ship-1')).toBe(false)
    expect(await repos.locations.deleteShip('harbor-lab', 'ship-1')).toBe(true)
    expect(await repos.locations.ships(['harbor-lab'])).toEqual([])
  })
  it('records heartbeats, counts and marks lost the silent ready ships, and bumps the work version of every ship a placement concerns', async () => {
    const { repos, world } = await openPgOperations()
    await repos.locations.createHarbor({
      id: 'harbor-1',
      accountId: world.accountId,
      name: 'lab',
      userId: null,
      workspaceIds: [world.workspaceId],
    })
    const ship = async (id: string) =>
      await repos.locations.createShip({
        id,
        harborId: 'harbor-1',
        name: id,
        address: null,
        tokenHash: 'x',
      })
    expect((await ship('ship-1')).environmentId).toBe(2)
    expect((await ship('ship-2')).environmentId).toBe(3)
    const figures = {
      memoryUsage: 6_000_000_000,
      msRunningCount: 1,
      transactionsCount: 7,
      agentVersion: '0.1.0',
      advertiseHost: 'lab-1',
      regions: ['eu-west', 'ap'],
    }
    const beat = await repos.locations.heartbeat('harbor-1', 'ship-1', figures)
    expect(beat).toMatchObject({ state: 'ready', ...figures })
    expect(await repos.locations.ship('harbor-1', 'ship-1')).toEqual(beat)
    expect(await repos.locations.heartbeat('harbor-9', 'ship-1', figures)).toBeUndefined()
    const seen = beat?.lastHeartbeat as number
    expect(await repos.locations.countSilent(seen)).toBe(0)
    expect(await repos.locations.markLost(seen)).toEqual([])
    expect(await repos.locations.countSilent(seen + 1)).toBe(1)
    // The ship that never sent a heartbeat was never live: it stays empty.
    expect((await repos.locations.markLost(seen + 1)).map((s) => [s.id, s.state])).toEqual([
      ['ship-1', 'lost'],
    ])
    expect((await repos.locations.shipByEnvironment(3))?.id).toBe('ship-2')
    expect(await repos.locations.shipByEnvironment(99)).toBeUndefined()

    const versions = async () =>
      (await repos.locations.ships(['harbor-1'])).map((s) => s.workVersion)
    const mock = await repos.mockServices.create(
      mockServiceInput(world.workspaceId, world.serviceId),
    )
    const placement = {
      mockServiceId: mock.id,
      harborId: 'harbor-1',
      shipId: 'ship-1',
      desired: 'RUNNING' as const,
      document: { name: 'pets', zeta: 1, alpha: [1] },
      documentHash: 'h1',
      trackingId: 't1',
    }
    const placed = await repos.placements.assign(placement)
    expect(placed).toEqual({ ...placement, placed: expect.any(Number), updated: placed.placed })
    expect(Object.keys(placed.document)).toEqual(['name', 'zeta', 'alpha'])
    expect(await versions()).toEqual([1, 0])
    const changed = await repos.placements.assign({ ...placement, documentHash: 'h2' })
    expect(changed.placed).toBe(placed.placed)
    expect(await versions()).toEqual([2, 0])
    const moved = await repos.placements.assign({ ...placement, shipId: 'ship-2' })
    expect(moved.placed).toBeGreaterThan(placed.placed)
    expect(await versions()).toEqual([3, 1])
    expect(await repos.placements.ofShip('ship-1')).toEqual([])
    expect(await repos.placements.ofHarbor('harbor-1')).toEqual([moved])
    expect(await repos.placements.get(mock.id)).toEqual(moved)
    expect(await repos.placements.remove(mock.id)).toBe(true)
    expect(await repos.placements.remove(mock.id)).toBe(false)
    expect(await versions()).toEqual([3, 2])
    // A deleted mock service takes its placement with it.
    await repos.placements.assign(placement)
    await repos.mockServices.delete(world.workspaceId, mock.id)
    expect(await repos.placements.get(mock.id)).toBeUndefined()
  })
})
