import { describe, expect, it } from 'vitest'
import { testHarbor } from '../../helpers/agent.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { waitFor } from '../../helpers/wait.js'
import { call, makeAccount } from '../platform/tenancy-helpers.js'

/*
 * The platform's side of agents, driven over HTTP as an agent drives it: the ship's token opens
 * only its own routes; a deploy to a harbor is placed on a live ship (or refused, never "done");
 * the work long poll, the reports that finish trackings, the figures shown in locations and
 * platformvses; lost ships and the re-placement of their mock services.
 */

interface Ship {
  id: string
  token: string
}
interface Work {
  version: number
  mockServices: Array<{
    mockServiceId: number
    desired: string
    documentHash: string
    document: { transactions: unknown[] }
    trackingId: string | null
  }>
}

/** A harbor 'lab' with ships lab-1 ... lab-<count>. */
async function harborWithShips(platform: TestPlatform, count: number) {
  const names = Array.from({ length: count }, (_, i) => `lab-${i + 1}`)
  return await testHarbor(platform, 'lab', names)
}

function agentCall(platform: TestPlatform, harborId: string, ship: Ship) {
  const base = `/api/v4/private-locations/${harborId}/servers/${ship.id}`
  return async <T>(method: string, path: string, json?: unknown) =>
    await call<T>(platform, `Bearer ${ship.token}`, method, `${base}${path}`, json)
}

const heartbeat = {
  memoryUsage: 123_456_789,
  msRunningCount: 0,
  transactionsCount: 42,
  version: '0.1.0',
  advertiseHost: 'lab-1.example.com',
  regions: [],
  running: [],
}

async function mockService(platform: TestPlatform, fields: Record<string, unknown>) {
  const ws = `/api/v1/workspaces/${platform.workspaceId}`
  const service = await call<{ id: number }>(platform, platform.auth, 'POST', `${ws}/services`, {
    name: `svc-${Math.random().toString(36).slice(2, 8)}`,
  })
  const txn = await call<{ id: number }>(
    platform,
    platform.auth,
    'POST',
    `${ws}/transactions?serviceId=${service.body.result.id}`,
    {
      name: 'list',
      dsl: {
        requestDsl: { method: 'GET', path: '/pets' },
        responseDsl: { status: 200, json: [] },
      },
    },
  )
  const mock = await call<{ id: number }>(platform, platform.auth, 'POST', `${ws}/service-mocks`, {
    serviceId: service.body.result.id,
    name: 'pets',
    mockServiceTransactions: [txn.body.result.id],
    ...fields,
  })
  expect(mock.status).toBe(201)
  return { id: mock.body.result.id, path: `${ws}/service-mocks/${mock.body.result.id}` }
}

describe('agent routes: a ship token reads and reports only its own work', () => {
  it('answers 401 to a missing, wrong or other ship token and to a user API key, 400 to a bad heartbeat', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await harborWithShips(platform, 2)
    const [one, two] = ships as [Ship, Ship]
    const base = `/api/v4/private-locations/${harborId}/servers/${one.id}`
    for (const auth of [
      '',
      `Bearer ${two.token}`,
      'Bearer not-a-token',
      platform.auth,
      `Basic ${Buffer.from(`${one.id}:${one.token}`).toString('base64')}`,
    ]) {
      const refused = await call(platform, auth, 'POST', `${base}/heartbeat`, heartbeat)
      expect(refused.status).toBe(401)
      expect((await call(platform, auth, 'GET', `${base}/work`)).status).toBe(401)
      const report = { mockServiceId: 1, status: 'RUNNING', endpoints: {} }
      expect((await call(platform, auth, 'POST', `${base}/reports`, report)).status).toBe(401)
    }
    const elsewhere = await call(
      platform,
      `Bearer ${one.token}`,
      'POST',
      `/api/v4/private-locations/${harborId}/servers/ship-unknown/heartbeat`,
      heartbeat,
    )
    expect(elsewhere.status).toBe(401)

    const agent = agentCall(platform, harborId, one)
    const bad = await agent('POST', '/heartbeat', { ...heartbeat, memoryUsage: -1 })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body.error)).toContain('/memoryUsage')
    const accepted = await agent<{ state: string; desiredVersion: number; lastHeartBeat: string }>(
      'POST',
      '/heartbeat',
      heartbeat,
    )
    expect(accepted.status).toBe(200)
    expect(accepted.body.result).toMatchObject({ state: 'ready', desiredVersion: 0 })
    expect(Date.parse(accepted.body.result.lastHeartBeat)).toBeGreaterThan(Date.now() - 60_000)
  })
})

describe('deploying to a private location', () => {
  it('refuses clearly when no ship of the harbor is live, when the harbor is another account’s, or the ship unknown', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await harborWithShips(platform, 1)
    const mock = await mockService(platform, { harborId })
    const none = await call(platform, platform.auth, 'GET', `${mock.path}/deploy`)
    expect(none.status).toBe(409)
    expect(none.body.error).toMatchObject({ code: 'ERR_API_CONFLICT' })
    expect(JSON.stringify(none.body.error)).toContain(harborId)
    expect(JSON.stringify(none.body.error)).toContain(`${(ships[0] as Ship).id} is empty`)
    const record = await call<{ status: string }>(platform, platform.auth, 'GET', mock.path)
    expect(record.body.result.status).toBe('STOPPED')

    const unknownShip = await mockService(platform, { harborId, shipId: 'ship-nope' })
    const missing = await call(platform, platform.auth, 'GET', `${unknownShip.path}/deploy`)
    expect(missing.status).toBe(404)
    expect(JSON.stringify(missing.body.error)).toContain('ship-nope')

    // Another account's harbor is not found, whoever asks: it is not theirs to use.
    const other = await makeAccount(platform, 'globex')
    const theirs = await call<{ id: string }>(
      platform,
      other.auth.owner,
      'POST',
      '/api/v4/private-locations',
      { name: 'theirs', accountId: other.accountId, workspacesId: [other.workspaceId] },
    )
    const foreign = await mockService(platform, { harborId: theirs.body.result.id })
    const refused = await call(platform, platform.auth, 'GET', `${foreign.path}/deploy`)
    expect(refused.status).toBe(404)
    expect(refused.body.error).toMatchObject({ code: 'ERR_API_NOT_FOUND' })
    expect(JSON.stringify(refused.body.error)).toContain(theirs.body.result.id)
  })

  it('places the mock on the least-loaded live ship, serves it through the work long poll, and finishes its tracking with the agent’s report', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await harborWithShips(platform, 2)
    const [one, two] = ships as [Ship, Ship]
    const agentOne = agentCall(platform, harborId, one)
    const agentTwo = agentCall(platform, harborId, two)
    expect((await agentOne('POST', '/heartbeat', heartbeat)).status).toBe(200)

    const first = await mockService(platform, { harborId })
    const deployed = await call<{ trackingId: string; status: string }>(
      platform,
      platform.auth,
      'GET',
      `${first.path}/deploy`,
    )
    expect(deployed.status).toBe(200)
    expect(deployed.body.result.status).toBe('RUNNING')
    const pending = await call<{ status: string; shipId: string; harborId: string }>(
      platform,
      platform.auth,
      'GET',
      first.path,
    )
    expect(pending.body.result).toMatchObject({ status: 'PENDING', shipId: one.id, harborId })

    // The agent's long poll answers at once when its version is behind.
    const work = await agentOne<Work>('GET', '/work?version=0&wait=5')
    expect(work.body.result.version).toBe(1)
    expect(work.body.result.mockServices).toHaveLength(1)
    const item = work.body.result.mockServices[0]
    expect(item).toMatchObject({
      mockServiceId: first.id,
      desired: 'RUNNING',
      trackingId: deployed.body.result.trackingId,
    })
    expect(item?.document.transactions).toHaveLength(1)
    expect(item?.documentHash).toMatch(/^[0-9a-f]{64}$/)
    // Nothing for the other ship; and it may not report on this one's mock service.
    expect((await agentTwo<Work>('GET', '/work')).body.result.mockServices).toEqual([])
    const notTheirs = await agentTwo('POST', '/reports', {
      mockServiceId: first.id,
      status: 'RUNNING',
      endpoints: { http: 'http://evil:1' },
    })
    expect(notTheirs.status).toBe(404)

    const reported = await agentOne('POST', '/reports', {
      mockServiceId: first.id,
      status: 'RUNNING',
      endpoints: { http: 'http://lab-1.example.com:47001', https: null },
      trackings: [{ trackingId: deployed.body.result.trackingId, status: 'FINISHED' }],
      logs: ['{"level":30,"msg":"runtime started"}'],
    })
    expect(reported.status).toBe(200)
    const tracking = await call<{ status: string }>(
      platform,
      platform.auth,
      'GET',
      `/api/v1/trackings/${deployed.body.result.trackingId}`,
    )
    expect(tracking.body.result.status).toBe('FINISHED')
    const running = await call<{ status: string; httpEndpoint: string }>(
      platform,
      platform.auth,
      'GET',
      first.path,
    )
    expect(running.body.result).toMatchObject({
      status: 'RUNNING',
      httpEndpoint: 'http://lab-1.example.com:47001',
    })
    const log = await call<{ log: string }>(platform, platform.auth, 'GET', `${first.path}/log`)
    expect(log.body.result.log).toContain('runtime started')

    // A long poll at the current version waits, and wakes when the desired state changes.
    const waiting = agentOne<Work>('GET', '/work?version=1&wait=20')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const stopped = await call(platform, platform.auth, 'GET', `${first.path}/stop`)
    expect(stopped.status).toBe(200)
    const woken = await waiting
    expect(woken.body.result.version).toBe(2)
    expect(woken.body.result.mockServices[0]?.desired).toBe('STOPPED')
    // ... and, with nothing changing, answers the same version after `wait`.
    const idle = await agentOne<Work>('GET', '/work?version=2&wait=1')
    expect(idle.body.result.version).toBe(2)
    const tooLong = await agentOne('GET', '/work?version=2&wait=31')
    expect(tooLong.status).toBe(400)

    // With both ships live, the next mock service goes to the one with less to run.
    await call(platform, platform.auth, 'GET', `${first.path}/deploy`)
    expect((await agentTwo('POST', '/heartbeat', heartbeat)).status).toBe(200)
    const second = await mockService(platform, { harborId })
    expect((await call(platform, platform.auth, 'GET', `${second.path}/deploy`)).status).toBe(200)
    const placed = await call<{ shipId: string }>(platform, platform.auth, 'GET', second.path)
    expect(placed.body.result.shipId).toBe(two.id)

    // Ships are environments: their figures, and the mock services placed on them.
    const envs = await call<
      Array<{
        id: number
        shipId: string
        status: string
        memoryUsage: number
        totalTxnCount: number
        serviceMocks: Array<{ id: number }>
        lastHeartBeat: string | null
      }>
    >(platform, platform.auth, 'GET', `/api/v1/workspaces/${platform.workspaceId}/platformvses`)
    const envOne = envs.body.result.find((e) => e.shipId === one.id)
    expect(envOne).toMatchObject({
      status: 'RUNNING',
      memoryUsage: heartbeat.memoryUsage,
      totalTxnCount: heartbeat.transactionsCount,
      serviceMocks: [{ id: first.id }],
    })
    expect(envOne?.lastHeartBeat).not.toBeNull()
    const byId = await call<{ shipId: string }>(
      platform,
      platform.auth,
      'GET',
      `/api/v1/workspaces/${platform.workspaceId}/platformvses/${envOne?.id}`,
    )
    expect(byId.body.result.shipId).toBe(one.id)

    // A mock service put in a ship's environment (platformVseId) is deployed to that ship.
    const envTwo = envs.body.result.find((e) => e.shipId === two.id)
    const third = await mockService(platform, { platformVseId: envTwo?.id })
    expect((await call(platform, platform.auth, 'GET', `${third.path}/deploy`)).status).toBe(200)
    const onTwo = await call<{ shipId: string; harborId: string }>(
      platform,
      platform.auth,
      'GET',
      third.path,
    )
    expect(onTwo.body.result).toMatchObject({ shipId: two.id, harborId })

    // Locations list the harbor with its ships' states and figures.
    const locations = await call<
      Array<{ id: string; ships?: Array<{ id: string; state: string; memoryUsage: number }> }>
    >(platform, platform.auth, 'GET', `/api/v1/workspaces/${platform.workspaceId}/locations`)
    const lab = locations.body.result.find((l) => l.id === harborId)
    expect(lab?.ships?.map((s) => s.state)).toEqual(['ready', 'ready'])
    expect(lab?.ships?.[0]?.memoryUsage).toBe(heartbeat.memoryUsage)
  })
})

describe('lost ships', () => {
  it('marks a silent ship lost and places its mock services on another live ship, else shows them failed with the reason', async () => {
    const platform = await startTestPlatform({ shipLostAfterMs: 800 })
    const { harborId, ships } = await harborWithShips(platform, 2)
    const [one, two] = ships as [Ship, Ship]
    const agentOne = agentCall(platform, harborId, one)
    const agentTwo = agentCall(platform, harborId, two)
    await agentOne('POST', '/heartbeat', heartbeat)
    const mock = await mockService(platform, { harborId, shipId: one.id })
    const deployed = await call<{ trackingId: string }>(
      platform,
      platform.auth,
      'GET',
      `${mock.path}/deploy`,
    )
    expect(deployed.status).toBe(200)
    // Only the second ship keeps sending heartbeats.
    const beating = { on: true }
    const beat = (async () => {
      while (beating.on) {
        await agentTwo('POST', '/heartbeat', heartbeat)
        await new Promise((resolve) => setTimeout(resolve, 150))
      }
    })()
    try {
      await waitFor(
        async () =>
          (await call<{ shipId: string }>(platform, platform.auth, 'GET', mock.path)).body.result
            .shipId === two.id,
        'the mock service to move to the live ship',
        { timeoutMs: 10_000, intervalMs: 100 },
      )
      const work = await agentTwo<Work>('GET', '/work')
      const moved = work.body.result.mockServices.find((m) => m.mockServiceId === mock.id)
      expect(moved?.desired).toBe('RUNNING')
      expect(moved?.trackingId).not.toBe(deployed.body.result.trackingId)
      const servers = await call<Array<{ id: string; state: string }>>(
        platform,
        platform.auth,
        'GET',
        `/api/v4/private-locations/${harborId}/servers`,
      )
      expect(servers.body.result.find((s) => s.id === one.id)?.state).toBe('lost')
      // The lost ship's agent no longer has it to run.
      expect((await agentOne<Work>('GET', '/work')).body.result.mockServices).toEqual([])
    } finally {
      beating.on = false
      await beat
    }
    // The second ship goes silent too, with no other live ship: the mock service shows the failure.
    await waitFor(
      async () =>
        (await call<{ status: string }>(platform, platform.auth, 'GET', mock.path)).body.result
          .status === 'FAILED',
      'the mock service to fail with its last agent',
      { timeoutMs: 10_000, intervalMs: 100 },
    )
    // Stopping it with its agent gone is done at once, and says so.
    const stop = await call<{ status: string; warnings: Array<{ message: string }> }>(
      platform,
      platform.auth,
      'GET',
      `${mock.path}/stop`,
    )
    expect(stop.body.result.status).toBe('FINISHED')
    expect(stop.body.result.warnings[0]?.message).toContain(`${two.id} of private location`)
    const stoppedRecord = await call<{ status: string }>(platform, platform.auth, 'GET', mock.path)
    expect(stoppedRecord.body.result.status).toBe('STOPPED')
    const desired = await agentTwo<Work>('GET', '/work')
    expect(desired.body.result.mockServices[0]?.desired).toBe('STOPPED')
  })
})
