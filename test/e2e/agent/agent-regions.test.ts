import { describe, expect, it } from 'vitest'
import { freePortBlock, startAgent, type AgentProcess } from '../../helpers/agent.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { startMonitorPlatform, type MonitorPlatform } from '../monitor/helpers.js'
import {
  createShips,
  finished,
  regionalTest,
  regionCodes,
  result,
  results,
  startTarget,
  trigger,
  type Loose,
  type Ship,
} from '../monitor/region-helpers.js'

/*
 * Monitoring in regions through real agents: `understudy agent --monitor --region R` processes,
 * each a ship with its own token, data dir and port block on loopback, claiming the runs of its
 * region from a platform whose leases are short for the test. Each trigger and each schedule tick
 * makes one run per region, stored with its region and agent; a run whose agent is killed in the
 * middle is run again, once, by another agent of the region after the lease.
 */

const LEASE_MS = 2000

async function startRegionAgent(
  m: MonitorPlatform,
  ship: Ship,
  region: string,
): Promise<AgentProcess> {
  const block = await freePortBlock(5)
  return await startAgent(
    {
      platform: m.url,
      harborId: ship.harborId,
      ship: { id: ship.shipId, token: ship.token },
      ports: [block, block + 4],
      dataDir: tempDir('understudy-agent-region-'),
      tokenVia: 'flag',
      extraArgs: ['--monitor', '--region', region, '--log-level', 'warn'],
    },
    /agent ready/,
  )
}

describe('understudy agent --monitor --region: runs in regions through agent processes', () => {
  it(
    'runs one run per region per trigger and per schedule tick, and reruns once a killed agent’s run on another agent of its region',
    { timeout: 120_000 },
    async () => {
      // "1m" schedules tick every 6 s: one tick is seen and the schedule deleted long before the next.
      const m = await startMonitorPlatform({
        leaseMs: LEASE_MS,
        scheduleScale: 10,
        runWaitMs: 30_000,
      })
      const target = await startTarget()
      const [eu, us, euSpare] = await createShips(m, 3)
      if (eu === undefined || us === undefined || euSpare === undefined) throw new Error('ships')
      const euAgent = await startRegionAgent(m, eu, 'eu-west')
      await startRegionAgent(m, us, 'us-east')
      await waitFor(
        async () => (await regionCodes(m)).length === 3,
        'both regions to be registered',
        { timeoutMs: 15_000 },
      )
      expect((await regionCodes(m)).sort()).toEqual(['eu-west', 'local', 'us-east'])
      const agentOf: Record<string, string> = { 'eu-west': eu.shipId, 'us-east': us.shipId }

      // Triggers: one run per region each, run by that region's agent.
      const { key, test } = await regionalTest(m, `${target.url}/ping`, ['eu-west', 'us-east'])
      for (let round = 1; round <= 2; round++) {
        const runs = await trigger(test)
        expect(runs.map((r) => [r.region, r.agent]).sort()).toEqual([
          ['eu-west', null],
          ['us-east', null],
        ])
        for (const run of runs) {
          expect(await finished(m, key, test.id, run.test_run_id)).toMatchObject({
            result: 'pass',
            region: run.region,
            agent: agentOf[run.region],
            source: 'trigger',
          })
        }
      }
      expect(target.hits('/ping')).toBe(4)

      // A schedule tick: one run per region.
      const schedule = await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
        json: { environment_id: test.default_environment_id, interval: '1m' },
      })
      expect(schedule.status).toBe(201)
      const scheduled = async (): Promise<Loose[]> =>
        (await results(m, key, test.id)).filter((r) => r.source === 'scheduled')
      await waitFor(async () => (await scheduled()).length >= 2, 'a schedule tick', {
        timeoutMs: 20_000,
      })
      const removed = await m.call(
        'DELETE',
        `/buckets/${key}/tests/${test.id}/schedules/${schedule.body.data.id}`,
      )
      expect(removed.status).toBe(204)
      const ticked = await scheduled()
      expect(ticked.map((r) => r.region).sort()).toEqual(['eu-west', 'us-east'])
      for (const run of ticked) {
        expect(await finished(m, key, test.id, run.test_run_id)).toMatchObject({
          result: 'pass',
          agent: agentOf[run.region],
        })
      }

      // The eu agent is killed (SIGKILL, its whole process group) while its run waits for an
      // answer; the spare eu agent takes the run once the lease has ended, and it is stored once.
      const slow = await regionalTest(m, `${target.url}/hang-once`, ['eu-west'])
      const [run] = await trigger(slow.test)
      await waitFor(async () => target.hits('/hang-once') === 1, 'the eu agent to start the run')
      expect(await result(m, slow.key, slow.test.id, run.test_run_id)).toMatchObject({
        result: 'working',
        agent: eu.shipId,
      })
      await euAgent.killGroup()
      await startRegionAgent(m, euSpare, 'eu-west')
      const done = await finished(m, slow.key, slow.test.id, run.test_run_id, 30_000)
      expect(done).toMatchObject({
        result: 'pass',
        region: 'eu-west',
        agent: euSpare.shipId,
        requests_executed: 1,
      })
      expect(target.hits('/hang-once')).toBe(2)
      const stored = await results(m, slow.key, slow.test.id)
      expect(stored.map((r) => [r.test_run_id, r.result, r.agent])).toEqual([
        [run.test_run_id, 'pass', euSpare.shipId],
      ])
    },
  )

  it(
    'keeps the runs of a live agent’s region, and fails after the run wait a run whose region’s agents were all killed',
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform({ leaseMs: LEASE_MS, runWaitMs: 3000 })
      const target = await startTarget()
      const [ship] = await createShips(m, 1)
      if (ship === undefined) throw new Error('ship')
      const agent = await startRegionAgent(m, ship, 'ap-south')
      await waitFor(async () => (await regionCodes(m)).includes('ap-south'), 'the region')
      const { key, test } = await regionalTest(m, `${target.url}/ping`, ['ap-south'])
      const [served] = await trigger(test)
      expect(await finished(m, key, test.id, served.test_run_id)).toMatchObject({
        result: 'pass',
        agent: ship.shipId,
      })

      await agent.killGroup()
      const [stranded] = await trigger(test)
      expect(stranded).toMatchObject({ region: 'ap-south', agent: null })
      const failed = await finished(m, key, test.id, stranded.test_run_id)
      expect(failed).toMatchObject({ result: 'fail', region: 'ap-south', agent: null })
      expect(failed.error).toContain('no agent of region ap-south')
      expect(target.hits('/ping')).toBe(1)
    },
  )
})
