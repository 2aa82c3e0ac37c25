import { describe, expect, it } from 'vitest'
import { isConstraintViolation, type MonitorRun } from '../../../../src/store/index.js'
import type { MonitoringRepository } from '../../../../src/store/monitoring.js'
import { pgMonitoringRepository } from '../../../../src/store/postgres/monitoring-repository.js'
import { hasPostgres, PG_SKIP_REASON } from '../../../helpers/postgres.js'
import { openPgOperations } from './pg-fixtures.js'

/*
 * The PostgreSQL repositories of API monitoring and the OAuth provider, against a real server:
 * what each method answers, the orders lists promise, cascades, and a code redeemed once.
 */

if (!hasPostgres) console.warn(`[PostgreSQL monitoring repository tests skipped] ${PG_SKIP_REASON}`)

const AUTHOR = { id: 'u1', name: 'Ada', email: 'ada@example.com' }

function run(id: string, testId: string, overrides: Partial<MonitorRun> = {}): MonitorRun {
  return {
    id,
    testId,
    bucketKey: 'bucket000001',
    environmentId: 'env-1',
    result: 'queued',
    source: 'api',
    created: 1000,
    finished: null,
    doc: { zeta: 1, alpha: 2 },
    region: null,
    pinnedAgent: null,
    agent: null,
    ...overrides,
  }
}

describe.skipIf(!hasPostgres)('PostgreSQL monitoring repository', () => {
  it('keeps buckets, tests, environments and schedules, in their orders, and cascades with the bucket', async () => {
    const { repos, world } = await openPgOperations()
    const m = repos.monitoring
    const bucket = await m.createBucket({
      key: 'bucket000001',
      workspaceId: world.workspaceId,
      name: 'main',
      triggerId: 'trig-b',
      isDefault: true,
    })
    expect(bucket).toEqual({
      key: 'bucket000001',
      workspaceId: world.workspaceId,
      name: 'main',
      triggerId: 'trig-b',
      isDefault: true,
      created: expect.any(Number),
    })
    await m.createBucket({
      key: 'bucket000002',
      workspaceId: world.otherWorkspaceId,
      name: 'two',
      triggerId: 'trig-b2',
      isDefault: false,
    })
    expect(await m.getBucketByTrigger('trig-b')).toEqual(bucket)
    expect(
      (await m.listBuckets([world.workspaceId, world.otherWorkspaceId])).map((b) => b.key),
    ).toEqual(['bucket000001', 'bucket000002'])
    expect(await m.listBuckets([])).toEqual([])
    // Text PostgreSQL cannot hold is the request's fault (400), as in the other repositories.
    await expect(
      m.createBucket({
        key: 'bucket000009',
        workspaceId: world.workspaceId,
        name: 'nul\u0000name',
        triggerId: 'trig-nul',
        isDefault: false,
      }),
    ).rejects.toMatchObject({ code: 'ERR_API_BAD_REQUEST' })
    await expect(
      m.createBucket({
        key: 'bucket000003',
        workspaceId: world.workspaceId,
        name: 'x',
        triggerId: 'trig-b',
        isDefault: false,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))

    const steps = [{ id: 's1', step_type: 'request', url: 'http://x', z: 1, a: 2 }]
    const first = await m.createTest({
      id: 't1',
      bucketKey: bucket.key,
      name: 'first',
      description: null,
      defaultEnvironmentId: null,
      triggerId: 'trig-t1',
      createdBy: AUTHOR,
      steps,
    })
    expect(first).toEqual({
      id: 't1',
      bucketKey: bucket.key,
      name: 'first',
      description: null,
      defaultEnvironmentId: null,
      triggerId: 'trig-t1',
      createdBy: AUTHOR,
      steps,
      created: expect.any(Number),
      updated: first.created,
    })
    expect(Object.keys(first.steps[0] ?? {})).toEqual(['id', 'step_type', 'url', 'z', 'a'])
    await m.createTest({ ...first, id: 't2', name: 'second', triggerId: 'trig-t2' })
    await m.createTest({ ...first, id: 't3', name: 'third', triggerId: 'trig-t3' })
    expect((await m.listTests(bucket.key, 10, 0)).map((t) => t.id)).toEqual(['t3', 't2', 't1'])
    expect((await m.listTests(bucket.key, 2, 1, 'oldest')).map((t) => t.id)).toEqual(['t2', 't3'])
    expect(await m.getTest('bucket000002', 't1')).toBeUndefined()
    expect((await m.getTestByTrigger('trig-t2'))?.id).toBe('t2')
    const updated = await m.updateTest('t1', { name: 'renamed', steps: [] })
    expect(updated).toEqual({ ...first, name: 'renamed', steps: [], updated: expect.any(Number) })
    expect(await m.updateTest('nope', { name: 'x' })).toBeUndefined()

    const shared = await m.createEnvironment({
      id: 'e1',
      bucketKey: bucket.key,
      testId: null,
      doc: { name: 'prod' },
    })
    const own = await m.createEnvironment({
      id: 'e2',
      bucketKey: bucket.key,
      testId: 't1',
      doc: { name: 'qa' },
    })
    expect(await m.listEnvironments(bucket.key, null)).toEqual([shared])
    expect(await m.listEnvironments(bucket.key, 't1')).toEqual([own])
    expect(await m.updateEnvironment('e1', { name: 'production' })).toEqual({
      ...shared,
      doc: { name: 'production' },
    })
    expect(await m.updateEnvironment('nope', {})).toBeUndefined()
    expect(await m.deleteEnvironment('bucket000002', 'e1')).toBe(false)

    const schedule = await m.createSchedule({
      id: 'sc1',
      testId: 't1',
      environmentId: 'e1',
      interval: '5m',
      note: null,
    })
    expect(await m.listAllSchedules()).toEqual([schedule])
    expect(await m.updateSchedule('sc1', { interval: '1h' })).toEqual({
      ...schedule,
      interval: '1h',
    })
    expect(await m.getSchedule('t2', 'sc1')).toBeUndefined()

    // A test's environments and schedules go with it; everything goes with the bucket.
    expect(await m.deleteTest(bucket.key, 't1')).toBe(true)
    expect(await m.getEnvironment(bucket.key, 'e2')).toBeUndefined()
    expect(await m.listSchedules('t1')).toEqual([])
    expect(await m.deleteBucket(bucket.key)).toBe(true)
    expect(await m.getTestById('t2')).toBeUndefined()
    expect(await m.getEnvironment(bucket.key, 'e1')).toBeUndefined()
    expect(await m.deleteBucket(bucket.key)).toBe(false)
  })

  it('keeps runs newest first (ties by creation order), prunes, fails unfinished ones, and keeps batches, integrations and revisions', async () => {
    const { repos, world } = await openPgOperations()
    const m = repos.monitoring
    await m.createBucket({
      key: 'bucket000001',
      workspaceId: world.workspaceId,
      name: 'b',
      triggerId: 'tb',
      isDefault: false,
    })
    await m.createTest({
      id: 't1',
      bucketKey: 'bucket000001',
      name: 't',
      description: null,
      defaultEnvironmentId: null,
      triggerId: 'tt',
      createdBy: AUTHOR,
      steps: [],
    })
    const r1 = await m.createRun(run('r1', 't1', { created: 1000 }))
    expect(r1).toEqual(run('r1', 't1', { created: 1000 }))
    await m.createRun(run('r2', 't1', { created: 2000, result: 'working' }))
    await m.createRun(run('r3', 't1', { created: 2000, result: 'pass', finished: 2500 }))
    expect((await m.listRuns('t1', 10)).map((r) => r.id)).toEqual(['r3', 'r2', 'r1'])
    expect(await m.getRunsByIds(['r3', 'nope', 'r1'])).toEqual([
      run('r3', 't1', { created: 2000, result: 'pass', finished: 2500 }),
      r1,
    ])
    expect(await m.updateRun('r1', { result: 'fail', finished: 1500 })).toEqual({
      ...r1,
      result: 'fail',
      finished: 1500,
    })
    await m.updateRun('r1', { result: 'queued', finished: null })

    expect(await m.failUnfinishedRuns(9000, 'the platform restarted')).toBe(2)
    const failed = await m.getRun('t1', 'r2')
    expect(failed).toEqual(
      run('r2', 't1', {
        created: 2000,
        result: 'fail',
        finished: 9000,
        doc: { zeta: 1, alpha: 2, error: 'the platform restarted' },
      }),
    )
    expect(Object.keys(failed?.doc ?? {})).toEqual(['zeta', 'alpha', 'error'])
    expect((await m.getRun('t1', 'r3'))?.result).toBe('pass')

    expect(await m.pruneRuns('t1', 2)).toBe(1)
    expect((await m.listRuns('t1', 10)).map((r) => r.id)).toEqual(['r3', 'r2'])
    expect((await m.listRuns('t1', 1)).map((r) => r.id)).toEqual(['r3'])

    const batch = await m.createBatch({
      id: 'b1',
      bucketKey: 'bucket000001',
      runIds: ['r3', 'r2'],
      runsFailed: 1,
    })
    expect(await m.getBatch('bucket000001', 'b1')).toEqual({
      ...batch,
      created: expect.any(Number),
    })
    expect(batch.runIds).toEqual(['r3', 'r2'])
    expect(await m.getBatch('other', 'b1')).toBeUndefined()

    const hook = await m.createIntegration({
      id: 'i1',
      workspaceId: world.workspaceId,
      type: 'webhook',
      description: 'hook',
      doc: { url: 'http://x' },
    })
    expect(await m.listIntegrations(world.workspaceId)).toEqual([hook])
    expect(await m.getIntegration(world.otherWorkspaceId, 'i1')).toBeUndefined()
    expect(await m.deleteIntegration(world.otherWorkspaceId, 'i1')).toBe(false)
    expect(await m.deleteIntegration(world.workspaceId, 'i1')).toBe(true)

    const revision = (uuid: string, timestamp: number) => ({
      uuid,
      bucketKey: 'bucket000001',
      testId: 't1',
      itemType: 'radar_test' as const,
      itemId: 't1',
      timestamp,
      author: AUTHOR,
      doc: { name: uuid },
    })
    await m.addRevision(revision('v2', 1.5))
    await m.addRevision(revision('v1', 1.25))
    await m.addRevision(revision('v3', 1.5))
    expect((await m.listRevisions('t1')).map((r) => [r.uuid, r.timestamp])).toEqual([
      ['v1', 1.25],
      ['v2', 1.5],
      ['v3', 1.5],
    ])
  })
})

/** A bucket and test in the seeded workspace, a harbor offered to it with two ships, and one bucket and test in a workspace the harbor is not offered to. */
async function regionWorld() {
  const opened = await openPgOperations()
  const { repos, world } = opened
  const m = repos.monitoring
  for (const [key, workspaceId, testId] of [
    ['bucket000001', world.workspaceId, 't1'],
    ['bucket000002', world.otherWorkspaceId, 't2'],
  ] as const) {
    await m.createBucket({ key, workspaceId, name: key, triggerId: `tb-${key}`, isDefault: false })
    await m.createTest({
      id: testId,
      bucketKey: key,
      name: testId,
      description: null,
      defaultEnvironmentId: null,
      triggerId: `tt-${testId}`,
      createdBy: AUTHOR,
      steps: [],
    })
  }
  await repos.locations.createHarbor({
    id: 'harbor-1',
    accountId: world.accountId,
    name: 'lab',
    userId: world.userId,
    workspaceIds: [world.workspaceId],
  })
  for (const id of ['ship-1', 'ship-2']) {
    await repos.locations.createShip({
      id,
      harborId: 'harbor-1',
      name: id,
      address: null,
      tokenHash: 'x',
    })
  }
  return opened
}

const claim = (shipId: string, leaseId: string, now: number, expires = now + 30_000) => ({
  shipId,
  harborId: 'harbor-1',
  region: 'eu',
  leaseId,
  now,
  expires,
})

describe.skipIf(!hasPostgres)('PostgreSQL monitoring runs in regions', () => {
  it('stores one run per schedule slot, counts unclaimed runs, and claims the oldest run of the region or pinned to the ship, of offered workspaces only', async () => {
    const { repos } = await regionWorld()
    const m = repos.monitoring
    const slotted = { ...run('s1', 't1', { created: 1000 }), region: 'eu', slotKey: 'sch-1:60:eu' }
    expect(await m.createRunOnce(slotted)).toEqual(run('s1', 't1', { created: 1000, region: 'eu' }))
    expect(await m.createRunOnce({ ...slotted, id: 's1-again' })).toBeUndefined()
    expect((await m.listRuns('t1', 10)).map((r) => r.id)).toEqual(['s1'])
    await m.createRun({ ...run('s2', 't1', { created: 2000 }), region: 'eu' })
    await m.createRun({ ...run('p1', 't1', { created: 500 }), region: 'eu', pinnedAgent: 'ship-2' })
    await m.createRun({ ...run('us', 't1', { created: 100 }), region: 'us' })
    await m.createRun({ ...run('local', 't1', { created: 100 }) })
    await m.createRun({
      ...run('elsewhere', 't2', { created: 100, bucketKey: 'bucket000002' }),
      region: 'eu',
    })
    expect(await m.countUnclaimedRuns('t1', 'eu', null, 10)).toBe(2)
    expect(await m.countUnclaimedRuns('t1', 'eu', null, 1)).toBe(1)
    expect(await m.countUnclaimedRuns('t1', null, null, 10)).toBe(1)
    expect(await m.countUnclaimedRuns('t1', 'eu', 'ship-2', 10)).toBe(1)

    // ship-1 passes over the run pinned to ship-2, the other region, the local run and the
    // workspace its harbor is not offered to.
    const first = await m.claimRun(claim('ship-1', 'lease-a', 5000))
    expect(first).toEqual(
      run('s1', 't1', {
        created: 1000,
        region: 'eu',
        agent: 'ship-1',
        result: 'working',
        doc: { zeta: 1, alpha: 2, agent: 'ship-1', started_at: 5 },
      }),
    )
    expect(Object.keys(first?.doc ?? {})).toEqual(['zeta', 'alpha', 'agent', 'started_at'])
    expect((await m.claimRun(claim('ship-1', 'lease-b', 5000)))?.id).toBe('s2')
    expect(await m.claimRun(claim('ship-1', 'lease-c', 5000))).toBeUndefined()
    expect(await m.countUnclaimedRuns('t1', 'eu', null, 10)).toBe(0)
    const pinned = await m.claimRun(claim('ship-2', 'lease-d', 5000))
    expect(pinned).toMatchObject({ id: 'p1', agent: 'ship-2', pinnedAgent: 'ship-2' })
    expect((await m.getRun('t2', 'elsewhere'))?.result).toBe('queued')
  })

  it('renews and completes a run only under its current live lease; an expired lease lets another ship take the run', async () => {
    const { repos } = await regionWorld()
    const m = repos.monitoring
    await m.createRun({ ...run('r1', 't1', { created: 1000 }), region: 'eu' })
    await m.claimRun(claim('ship-1', 'lease-a', 5000, 6000))
    const held = { runId: 'r1', shipId: 'ship-1', leaseId: 'lease-a', now: 5500 }
    expect(await m.renewRunLease(held, 7000)).toBe(true)
    expect(await m.renewRunLease({ ...held, leaseId: 'lease-x' }, 9000)).toBe(false)
    expect(await m.renewRunLease({ ...held, shipId: 'ship-2' }, 9000)).toBe(false)
    // Renewed to 7000: not free at 6500, free at 7001.
    expect(await m.claimRun(claim('ship-2', 'lease-b', 6500))).toBeUndefined()
    const taken = await m.claimRun(claim('ship-2', 'lease-b', 7001))
    expect(taken).toMatchObject({ id: 'r1', agent: 'ship-2', result: 'working' })
    expect(taken?.doc['started_at']).toBe(7.001)

    const patch = { result: 'pass' as const, finished: 7500, doc: { done: true } }
    expect(await m.renewRunLease({ ...held, now: 7100 }, 9000)).toBe(false)
    expect(await m.completeLeasedRun({ ...held, now: 7100 }, patch)).toBeUndefined()
    const mine = { runId: 'r1', shipId: 'ship-2', leaseId: 'lease-b', now: 7200 }
    expect(await m.completeLeasedRun(mine, patch)).toMatchObject({
      id: 'r1',
      result: 'pass',
      finished: 7500,
      doc: { done: true },
      agent: 'ship-2',
    })
    // Completed: the lease is over, and the run is not claimable again.
    expect(await m.renewRunLease(mine, 9000)).toBe(false)
    expect(await m.completeLeasedRun(mine, patch)).toBeUndefined()
    expect(await m.claimRun(claim('ship-1', 'lease-c', 99_000))).toBeUndefined()
  })

  it('fails only the local runs whose lease ended or that have none, and renews the leases of one instance', async () => {
    const { repos } = await regionWorld()
    const m = repos.monitoring
    await m.createRun({ ...run('mine', 't1'), leaseId: 'inst-1', leaseExpires: 2000 })
    await m.createRun({ ...run('theirs', 't1'), leaseId: 'inst-2', leaseExpires: 2000 })
    await m.createRun({ ...run('orphan', 't1') })
    await m.createRun({ ...run('regional', 't1'), region: 'eu' })
    await m.createRun({ ...run('pinned', 't1'), pinnedAgent: 'ship-1' })
    expect(await m.renewLocalLeases('inst-1', 50_000)).toBe(1)
    expect(await m.failUnfinishedRuns(10_000, 'gone')).toBe(2)
    const results = Object.fromEntries(
      (await m.listRuns('t1', 10)).map((r) => [r.id, r.result] as const),
    )
    expect(results).toEqual({
      mine: 'queued',
      theirs: 'fail',
      orphan: 'fail',
      regional: 'queued',
      pinned: 'queued',
    })
    expect((await m.getRun('t1', 'orphan'))?.doc).toEqual({ zeta: 1, alpha: 2, error: 'gone' })
  })

  it('records the regions ships serve, lists them for the workspaces their harbor is offered to, and tells which ships are offered', async () => {
    const { repos, world } = await regionWorld()
    const m = repos.monitoring
    await m.recordAgentRegion('ship-2', 'eu', 100)
    await m.recordAgentRegion('ship-1', 'eu', 100)
    await m.recordAgentRegion('ship-1', 'ap', 100)
    await m.recordAgentRegion('ship-1', 'eu', 300)
    expect(await m.listAgentRegions([world.workspaceId, world.otherWorkspaceId])).toEqual([
      { region: 'ap', shipId: 'ship-1', shipName: 'ship-1', seen: 100 },
      { region: 'eu', shipId: 'ship-1', shipName: 'ship-1', seen: 300 },
      { region: 'eu', shipId: 'ship-2', shipName: 'ship-2', seen: 100 },
    ])
    expect(await m.listAgentRegions([world.otherWorkspaceId])).toEqual([])
    expect(await m.listAgentRegions([])).toEqual([])
    expect(await m.agentsOffered(world.workspaceId, ['ship-2', 'ship-9', 'ship-1'])).toEqual([
      'ship-2',
      'ship-1',
    ])
    expect(await m.agentsOffered(world.otherWorkspaceId, ['ship-1'])).toEqual([])
    // A deleted ship takes its regions with it.
    await repos.locations.deleteShip('harbor-1', 'ship-1')
    expect((await m.listAgentRegions([world.workspaceId])).map((r) => r.shipId)).toEqual(['ship-2'])
  })

  it('gives two claimers at once distinct runs: a run another transaction holds is passed over, not waited for', async () => {
    const { pool, ctx } = await regionWorld()
    const inTx = async <T>(fn: (m: MonitoringRepository) => Promise<T>): Promise<T> =>
      await pool.transaction(async (q) => await fn(pgMonitoringRepository({ ...ctx, db: q })))
    const m = pgMonitoringRepository(ctx)
    for (const [id, created] of [
      ['r1', 1000],
      ['r2', 2000],
      ['r3', 3000],
    ] as const) {
      await m.createRun({ ...run(id, 't1', { created }), region: 'eu' })
    }
    // The first claimer's transaction stays open while the second claims: without SKIP LOCKED
    // the second would wait for the first, which waits for it.
    const [first, second] = await inTx(async (a) => {
      const held = await a.claimRun(claim('ship-1', 'lease-a', 5000))
      const other = await inTx(async (b) => await b.claimRun(claim('ship-2', 'lease-b', 5000)))
      return [held, other]
    })
    expect([first?.id, second?.id]).toEqual(['r1', 'r2'])
    // Many at once: every run goes to exactly one claimer.
    for (let i = 4; i <= 9; i++) {
      await m.createRun({ ...run(`r${i}`, 't1', { created: i * 1000 }), region: 'eu' })
    }
    const claims = await Promise.all(
      Array.from(
        { length: 8 },
        async (_, i) =>
          (await inTx(async (c) => await c.claimRun(claim(`ship-${1 + (i % 2)}`, `l${i}`, 5000))))
            ?.id,
      ),
    )
    const got = claims.filter((id) => id !== undefined)
    expect(new Set(got).size).toBe(got.length)
    expect([...got].sort()).toEqual(['r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'])
  })
})

describe.skipIf(!hasPostgres)('PostgreSQL OAuth repository', () => {
  it('keeps apps and tokens per user, revokes once, and redeems a code once even when two ask at once', async () => {
    const { repos, world } = await openPgOperations()
    const o = repos.oauth
    const app = await o.createApp({
      clientId: 'client-1',
      userId: world.userId,
      name: 'app',
      websiteUrl: 'https://app.example.com',
      callbackUrl: 'https://app.example.com/cb',
      secretHash: 'hash',
    })
    expect(await o.getApp('client-1')).toEqual(app)
    expect(await o.listApps(world.userId)).toEqual([app])
    const token = await o.createToken({
      id: 'tok-1',
      tokenHash: 'th',
      clientId: 'client-1',
      userId: world.userId,
      scopes: ['read', 'write'],
    })
    expect(token).toEqual({
      id: 'tok-1',
      tokenHash: 'th',
      clientId: 'client-1',
      userId: world.userId,
      scopes: ['read', 'write'],
      created: expect.any(Number),
      revoked: null,
    })
    expect(await o.getTokenByHash('th')).toEqual(token)
    expect(await o.revokeToken(world.userId + 1000, 'tok-1')).toBe(false)
    expect(await o.revokeToken(world.userId, 'tok-1')).toBe(true)
    expect(await o.revokeToken(world.userId, 'tok-1')).toBe(false)
    expect(await o.listTokens(world.userId)).toEqual([])

    const code = await o.createCode({
      codeHash: 'ch',
      clientId: 'client-1',
      userId: world.userId,
      scopes: ['read'],
      redirectUri: 'https://app.example.com/cb',
      expires: 5000,
    })
    expect(code.used).toBe(false)
    const both = await Promise.all([o.consumeCode('ch'), o.consumeCode('ch')])
    expect(both.map((c) => c?.used).sort()).toEqual([false, true])
    expect(await o.consumeCode('nope')).toBeUndefined()

    expect(await o.deleteApp(world.userId + 1000, 'client-1')).toBe(false)
    expect(await o.deleteApp(world.userId, 'client-1')).toBe(true)
    expect(await o.getTokenByHash('th')).toBeUndefined()
  })
})
