import { describe, expect, it, onTestFinished } from 'vitest'
import { startRegionWorker } from '../../../src/agent/region-worker.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { startMonitorPlatform, type MonitorPlatform } from './helpers.js'
import {
  agentCall,
  createShips,
  finished,
  regionalTest,
  regionCodes,
  result,
  startTarget,
  trigger,
  type Loose,
  type Ship,
} from './region-helpers.js'

/** Starts a region worker for a ship, as `understudy agent --monitor --region R` does. */
async function worker(m: MonitorPlatform, ship: Ship, region: string) {
  const w = await startRegionWorker({
    platform: m.url,
    ...ship,
    region,
    dataDir: tempDir('understudy-agent-'),
    log: createSilentLogger(),
  })
  onTestFinished(async () => await w.stop())
  return w
}

describe('monitoring in regions (agents claim runs under leases)', () => {
  it('runs one run per region per trigger on two region workers, each stored with its region and agent', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const [eu, us] = await createShips(m, 2)
    if (eu === undefined || us === undefined) throw new Error('ships')
    await worker(m, eu, 'eu-west')
    await worker(m, us, 'us-east')
    // A worker's first claim registers its region.
    await waitFor(async () => (await regionCodes(m)).length === 3, 'both regions to be registered')
    expect((await regionCodes(m)).sort()).toEqual(['eu-west', 'local', 'us-east'])
    const agents = await m.call('GET', `/teams/${m.teamId}/agents`)
    expect(agents.status).toBe(200)
    expect(
      (agents.body.data as Loose[]).map((a) => [a.agent_id, a.name, a.regions]).sort(),
    ).toEqual(
      [
        [eu.shipId, 'agent-0', ['eu-west']],
        [us.shipId, 'agent-1', ['us-east']],
      ].sort(),
    )
    const { key, test } = await regionalTest(m, `${target.url}/ping`, ['eu-west', 'us-east'])

    for (let round = 1; round <= 2; round++) {
      const runs = await trigger(test)
      expect(runs.map((r) => [r.region, r.agent]).sort()).toEqual([
        ['eu-west', null],
        ['us-east', null],
      ])
      for (const run of runs) {
        const done = await finished(m, key, test.id, run.test_run_id)
        expect(done).toMatchObject({
          result: 'pass',
          region: run.region,
          agent: run.region === 'eu-west' ? eu.shipId : us.shipId,
          test_run_id: run.test_run_id,
          requests_executed: 1,
        })
      }
    }
    expect(target.hits('/ping')).toBe(4)
    const metrics = await m.call(
      'GET',
      `/buckets/${key}/tests/${test.id}/metrics?region=eu-west&timeframe=day`,
    )
    expect(metrics.status).toBe(200)
    expect(metrics.body.data.this_time_period.total_test_runs).toBe(2)

    // `runscope_region` picks the regions of one trigger instead of the environment's.
    const only = await fetch(`${test.trigger_url}?runscope_region=us-east`, { method: 'POST' })
    const picked = ((await only.json()) as Loose).data.runs as Loose[]
    expect(picked.map((r) => r.region)).toEqual(['us-east'])
    expect(await finished(m, key, test.id, picked[0].test_run_id)).toMatchObject({
      result: 'pass',
      agent: us.shipId,
    })
    const list = await m.call('GET', `/buckets/${key}/tests/${test.id}/results`)
    expect(
      (list.body.data as Loose[]).map((r) => `${r.region}:${r.agent}:${r.result}`).sort(),
    ).toEqual([
      `eu-west:${eu.shipId}:pass`,
      `eu-west:${eu.shipId}:pass`,
      `us-east:${us.shipId}:pass`,
      `us-east:${us.shipId}:pass`,
      `us-east:${us.shipId}:pass`,
    ])
  })

  it('hands a run abandoned by a stopped worker to another after the lease, and stores it once', async () => {
    const m = await startMonitorPlatform({ leaseMs: 1500 })
    const target = await startTarget()
    const [first, second] = await createShips(m, 2)
    if (first === undefined || second === undefined) throw new Error('ships')
    const a = await worker(m, first, 'eu-west')
    await waitFor(async () => (await regionCodes(m)).includes('eu-west'), 'the region')
    const { key, test } = await regionalTest(m, `${target.url}/hang-once`, ['eu-west'])
    const [run] = await trigger(test)
    await waitFor(
      async () => (await result(m, key, test.id, run.test_run_id)).agent === first.shipId,
      'the first worker to claim the run',
    )
    await waitFor(async () => target.hits('/hang-once') === 1, 'the first request to hang')
    await worker(m, second, 'eu-west')
    // Killed in the middle of the run: no more renewals, no result.
    await a.stop()
    const done = await finished(m, key, test.id, run.test_run_id)
    expect(done).toMatchObject({ result: 'pass', region: 'eu-west', agent: second.shipId })
    expect(target.hits('/hang-once')).toBe(2)
    const list = await m.call('GET', `/buckets/${key}/tests/${test.id}/results`)
    expect(list.body.data).toHaveLength(1)
  })

  it('refuses a late result and a renewal under a lease that ended (409), and changes nothing', async () => {
    const m = await startMonitorPlatform({ leaseMs: 1000 })
    const target = await startTarget()
    const [dead, live] = await createShips(m, 2)
    if (dead === undefined || live === undefined) throw new Error('ships')
    const asDead = agentCall(m, dead)
    expect((await asDead('/claim', { region: 'eu-west' })).status).toBe(204)
    const { key, test } = await regionalTest(m, `${target.url}/ping`, ['eu-west'], {
      webhooks: [`${target.url}/hook`],
    })
    const [run] = await trigger(test)
    const claimed = await asDead('/claim', { region: 'eu-west' })
    expect(claimed.status).toBe(200)
    expect(claimed.body.result).toMatchObject({
      id: run.test_run_id,
      region: 'eu-west',
      agent: dead.shipId,
      test: { id: test.id, steps: [{ step_type: 'request', url: `${target.url}/ping` }] },
      environments: [{ id: test.default_environment_id, regions: ['eu-west'] }],
      variables: {},
      lease: { id: expect.any(String), durationMs: 1000 },
    })
    const leaseId = claimed.body.result.lease.id as string
    // The holder renews while it lives...
    expect((await asDead(`/${run.test_run_id}/lease`, { leaseId })).status).toBe(200)
    // ...then dies: after the lease another agent takes the run and completes it.
    await worker(m, live, 'eu-west')
    const done = await finished(m, key, test.id, run.test_run_id)
    expect(done).toMatchObject({ result: 'pass', agent: live.shipId })
    // The platform notifies for the agent's run as for its own runs, once.
    await waitFor(async () => target.hits('/hook') === 1, 'the webhook')
    await waitFor(
      async () => (await result(m, key, test.id, run.test_run_id)).notifications?.length === 1,
      'the notification recorded',
    )

    const late = await asDead(`/${run.test_run_id}/result`, {
      leaseId,
      result: { result: 'fail', requests: [] },
    })
    expect(late.status).toBe(409)
    expect(late.body.error).toMatchObject({ status: 409 })
    expect((await asDead(`/${run.test_run_id}/lease`, { leaseId })).status).toBe(409)
    expect(await result(m, key, test.id, run.test_run_id)).toMatchObject({
      result: 'pass',
      agent: live.shipId,
      finished_at: done.finished_at,
    })
    expect(target.hits('/hook')).toBe(1)
  })

  it('answers bad claims with the failing field, a wrong token with 401, an empty queue with 204', async () => {
    const m = await startMonitorPlatform()
    const [ship] = await createShips(m, 1)
    if (ship === undefined) throw new Error('ship')
    const call = agentCall(m, ship)
    const missing = await call('/claim', {})
    expect(missing.status).toBe(400)
    expect(JSON.stringify(missing.body.error)).toContain('region')
    const local = await call('/claim', { region: 'local' })
    expect(local.status).toBe(400)
    expect(JSON.stringify(local.body.error)).toContain('/region')
    expect((await call('/claim', { region: 'eu west!' })).status).toBe(400)
    expect((await call('/claim', { region: 'eu-west' }, 'not-the-token')).status).toBe(401)
    expect((await call('/claim', { region: 'eu-west' })).status).toBe(204)
    const result = await call('/no-such-run/result', { leaseId: 'x', result: { result: 'pass' } })
    expect(result.status).toBe(409)
    expect((await call('/no-such-run/result', { leaseId: 'x', result: {} })).status).toBe(400)
    const badRequests = await call('/no-such-run/result', {
      leaseId: 'x',
      result: { result: 'pass', requests: 'none' },
    })
    expect(badRequests.status).toBe(400)
    expect(JSON.stringify(badRequests.body.error)).toContain('requests')
  })

  it('keeps running here the regions no agent serves (another product’s region codes)', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const { key, test } = await regionalTest(m, `${target.url}/ping`, ['us1', 'jp1'])
    const runs = await trigger(test)
    expect(runs.map((r) => [r.region, r.agent])).toEqual([['local', null]])
    expect(await finished(m, key, test.id, runs[0].test_run_id)).toMatchObject({
      result: 'pass',
      region: 'local',
    })
  })

  it("gives a run for one of the environment's remote agents to that agent only, and a team's runs only to its locations' agents", async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const [mine, other] = await createShips(m, 2)
    const workspace = await fetch(`${m.url}/api/v4/workspaces`, {
      method: 'POST',
      headers: { authorization: m.basic, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'elsewhere', accountId: m.platform.bootstrap.accountId }),
    })
    expect(workspace.status).toBe(201)
    const elsewhereId = ((await workspace.json()) as Loose).result.id as number
    const [outsider] = await createShips(m, 1, [elsewhereId])
    if (mine === undefined || other === undefined || outsider === undefined) {
      throw new Error('ships')
    }
    const { key, test } = await regionalTest(m, `${target.url}/ping`, [])
    const env = await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id}`,
      { json: { remote_agents: [{ uuid: mine.shipId, name: 'mine' }] } },
    )
    expect(env.status).toBe(200)
    const [run, ...more] = await trigger(test)
    expect(more).toEqual([])
    expect(run).toMatchObject({ region: null, agent: mine.shipId })
    expect((await agentCall(m, other)('/claim', { region: 'eu-west' })).status).toBe(204)
    expect((await agentCall(m, outsider)('/claim', { region: 'eu-west' })).status).toBe(204)
    const claimed = await agentCall(m, mine)('/claim', { region: 'eu-west' })
    expect(claimed.status).toBe(200)
    expect(claimed.body.result).toMatchObject({ id: run.test_run_id, agent: mine.shipId })

    // A region served only by another team's agent is not this team's: its runs stay here.
    await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id}`,
      { json: { remote_agents: [], regions: ['ap-south'] } },
    )
    expect((await agentCall(m, outsider)('/claim', { region: 'ap-south' })).status).toBe(204)
    expect((await trigger(test)).map((r) => r.region)).toEqual(['local'])
  })

  it('never hands one run to two agents claiming at once', async () => {
    const m = await startMonitorPlatform()
    const ships = await createShips(m, 3)
    const calls = ships.map((ship) => agentCall(m, ship))
    for (const call of calls) expect((await call('/claim', { region: 'eu-west' })).status).toBe(204)
    const { test } = await regionalTest(m, 'http://127.0.0.1:9/unused', ['eu-west'])
    const started: string[] = []
    for (let i = 0; i < 8; i++) started.push(...(await trigger(test)).map((r) => r.test_run_id))
    const answers = await Promise.all(
      Array.from(
        { length: 12 },
        async (_, i) => await calls[i % 3]?.('/claim', { region: 'eu-west' }),
      ),
    )
    const claimed = answers.filter((a) => a?.status === 200).map((a) => a?.body.result.id as string)
    expect(answers.filter((a) => a?.status === 204)).toHaveLength(4)
    expect([...new Set(claimed)].sort()).toEqual([...started].sort())
  })
})
