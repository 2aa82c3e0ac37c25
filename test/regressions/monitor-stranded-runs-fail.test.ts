import { describe, expect, it } from 'vitest'
import { startMonitorPlatform } from '../e2e/monitor/helpers.js'
import {
  agentCall,
  createShips,
  deleteShip,
  finished,
  regionalTest,
  result,
  trigger,
} from '../e2e/monitor/region-helpers.js'

/*
 * A monitoring run for a region whose agents were all gone, or pinned to an agent that was
 * deleted, used to stay `queued` for ever: the trigger answered 201 and nothing ever ran or
 * failed. Now such a run fails, with the reason, once it has waited the platform's run wait with
 * no agent that could take it showing life; a deleted agent's pinned runs fail at once.
 */

describe('monitoring runs no agent can take', () => {
  it('fails a run queued for a region whose agents are gone, after the run wait, with the reason', async () => {
    const m = await startMonitorPlatform({ runWaitMs: 1500 })
    const [ship] = await createShips(m, 1)
    if (ship === undefined) throw new Error('ship')
    // The agent claims once (the region is served from then on), then is gone.
    expect((await agentCall(m, ship)('/claim', { region: 'eu-west' })).status).toBe(204)
    const { key, test } = await regionalTest(m, 'http://127.0.0.1:9/unused', ['eu-west'])
    const [run] = await trigger(test)
    expect(run).toMatchObject({ region: 'eu-west', agent: null })
    const done = await finished(m, key, test.id, run.test_run_id)
    expect(done).toMatchObject({ result: 'fail', region: 'eu-west' })
    expect(done.error).toContain('no agent of region eu-west')
    expect(done.finished_at).toEqual(expect.any(Number))
  })

  it('fails at once the queued runs pinned to an agent that is deleted', async () => {
    const m = await startMonitorPlatform()
    const [ship] = await createShips(m, 1)
    if (ship === undefined) throw new Error('ship')
    const { key, test } = await regionalTest(m, 'http://127.0.0.1:9/unused', [], {
      remote_agents: [{ uuid: ship.shipId, name: 'lab' }],
    })
    const [run] = await trigger(test)
    expect(run).toMatchObject({ region: null, agent: ship.shipId })
    expect((await result(m, key, test.id, run.test_run_id)).result).toBe('queued')
    await deleteShip(m, ship)
    const done = await result(m, key, test.id, run.test_run_id)
    expect(done).toMatchObject({ result: 'fail', agent: ship.shipId })
    expect(done.error).toContain(`agent ${ship.shipId} was deleted`)
  })
})
