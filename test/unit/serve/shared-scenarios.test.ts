import { describe, expect, it } from 'vitest'
import { SharedScenarios, type ScenarioTurn } from '../../../src/serve/scenario/shared.js'
import { commitScenarios, ScenarioStore } from '../../../src/serve/scenario/store.js'

/*
 * A replica's view of the scenario states that the cluster primary keeps (run --replicas N):
 * optimistic reads during the synchronous match, committed through the primary's compare-and-set.
 * Two replicas share one primary store here, with the IPC replaced by a direct call.
 */

function cluster(): { primary: ScenarioStore; replica: () => SharedScenarios } {
  const primary = new ScenarioStore()
  return {
    primary,
    replica: () =>
      new SharedScenarios(async (reads, writes) => commitScenarios(primary, reads, writes)),
  }
}

/** One request's match: read the state, and move Started -> Paid when it was Started. */
function matchPay(replica: SharedScenarios, instance: string | null = null): ScenarioTurn | null {
  replica.begin()
  if (replica.state('order', instance) === 'Started') replica.set('order', instance, 'Paid', null)
  return replica.end()
}

describe('shared scenario states of a cluster replica', () => {
  it('commits a transition through the primary; a second replica with a stale view is refused and refreshed', async () => {
    const { primary, replica } = cluster()
    const a = replica()
    const b = replica()
    const turnA = matchPay(a)
    const turnB = matchPay(b)
    expect(turnA?.writes).toEqual([['order', null, 'Paid', null]])
    expect(await a.commit(turnA!)).toBe(true)
    expect(primary.state('order', null)).toBe('Paid')
    // b read Started too: its commit fails and its view is refreshed, so the retry matches nothing
    expect(await b.commit(turnB!)).toBe(false)
    expect(b.state('order', null)).toBe('Paid')
    const retry = matchPay(b)
    expect(retry?.writes ?? []).toEqual([])
    expect(b.list()).toEqual([{ name: 'order', instance: null, state: 'Paid' }])
  })

  it('keeps instances apart, touches the primary only for requests that read a state, and forgets its view on reset', async () => {
    const { primary, replica } = cluster()
    const a = replica()
    a.begin()
    expect(a.end()).toBeNull()
    expect(await a.commit(matchPay(a, 'cart-1')!)).toBe(true)
    expect(primary.state('order', 'cart-1')).toBe('Paid')
    expect(primary.state('order', 'cart-2')).toBe('Started')
    expect(a.list()).toEqual([{ name: 'order', instance: 'cart-1', state: 'Paid' }])
    expect(a.reset()).toBe(1)
    expect(a.list()).toEqual([])
    expect(primary.state('order', 'cart-1')).toBe('Paid')
  })

  it('writes unconditionally outside a match, and reports an unreachable primary as ERR_SERVE_SCENARIO_UNAVAILABLE', async () => {
    const { primary, replica } = cluster()
    const a = replica()
    a.set('order', null, 'Shipped', null)
    await new Promise((resolve) => setImmediate(resolve))
    expect(primary.state('order', null)).toBe('Shipped')
    const cut = new SharedScenarios(async () => {
      throw new Error('primary gone')
    })
    await expect(
      cut.commit({ reads: [['order', null, 'Started']], writes: [] }),
    ).rejects.toMatchObject({ code: 'ERR_SERVE_SCENARIO_UNAVAILABLE' })
  })
})
