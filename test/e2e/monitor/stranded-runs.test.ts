import { describe, expect, it } from 'vitest'
import { waitFor } from '../../helpers/wait.js'
import { startMonitorPlatform } from './helpers.js'
import {
  agentCall,
  createShips,
  deleteShip,
  finished,
  regionalTest,
  result,
  startTarget,
  trigger,
} from './region-helpers.js'

/*
 * Runs waiting for agents that are not there end: a run pinned to a silent agent fails after the
 * run wait, a deleted agent's region runs go back to the region's other agents at once.
 */

describe('monitoring runs whose agents are gone', () => {
  it('gives the region run a deleted agent held to another agent of the region at once, and refuses the deleted one', async () => {
    // A lease far longer than the test: only the deletion can free the run.
    const m = await startMonitorPlatform({ leaseMs: 120_000 })
    const target = await startTarget()
    const [doomed, other] = await createShips(m, 2)
    if (doomed === undefined || other === undefined) throw new Error('ships')
    const asDoomed = agentCall(m, doomed)
    const asOther = agentCall(m, other)
    expect((await asDoomed('/claim', { region: 'eu-west' })).status).toBe(204)
    const { key, test } = await regionalTest(m, `${target.url}/ping`, ['eu-west'])
    const [run] = await trigger(test)
    const claimed = await asDoomed('/claim', { region: 'eu-west' })
    expect(claimed.body.result).toMatchObject({ id: run.test_run_id, agent: doomed.shipId })
    expect((await asOther('/claim', { region: 'eu-west' })).status).toBe(204)

    await deleteShip(m, doomed)
    expect(await result(m, key, test.id, run.test_run_id)).toMatchObject({
      result: 'queued',
      agent: null,
    })
    const again = await asOther('/claim', { region: 'eu-west' })
    expect(again.status).toBe(200)
    expect(again.body.result).toMatchObject({ id: run.test_run_id, agent: other.shipId })
    const late = await asDoomed(`/${run.test_run_id}/result`, {
      leaseId: claimed.body.result.lease.id,
      result: { result: 'fail', requests: [] },
    })
    expect(late.status).toBe(401)
    const stored = await asOther(`/${run.test_run_id}/result`, {
      leaseId: again.body.result.lease.id,
      result: { result: 'pass', requests: [] },
    })
    expect(stored.status).toBe(200)
    expect(await result(m, key, test.id, run.test_run_id)).toMatchObject({
      result: 'pass',
      agent: other.shipId,
    })
  })

  it('fails a run pinned to an agent that went silent, after the run wait, naming the agent, and notifies', async () => {
    const m = await startMonitorPlatform({ runWaitMs: 1500 })
    const target = await startTarget()
    const [ship] = await createShips(m, 1)
    if (ship === undefined) throw new Error('ship')
    expect((await agentCall(m, ship)('/claim', { region: 'eu-west' })).status).toBe(204)
    const { key, test } = await regionalTest(m, `${target.url}/unused`, [], {
      remote_agents: [ship.shipId],
      webhooks: [`${target.url}/hook`],
    })
    const [run] = await trigger(test)
    expect(run).toMatchObject({ region: null, agent: ship.shipId })
    const done = await finished(m, key, test.id, run.test_run_id)
    expect(done).toMatchObject({ result: 'fail', agent: ship.shipId })
    expect(done.error).toContain(`its agent ${ship.shipId} has not claimed runs`)
    // As any failed run: the environment's webhook is called, once.
    await waitFor(async () => target.hits('/hook') === 1, 'the webhook')
    expect(target.hits('/unused')).toBe(0)
  })
})
