import { STARTED } from '../scenario/store.js'
import { badRequest, notFound } from './errors.js'
import type { WireMockHost } from './host.js'
import type { StubLayer } from './stubs.js'

/** WireMock's `Scenario`: every state the stubs name, and the one it is in. */
interface WireMockScenario {
  id: string
  name: string
  state: string
  possibleStates: string[]
  mappings: Array<Readonly<Record<string, unknown>>>
}

/**
 * The scenarios of the transactions being served (stubs of the admin API and the document's own),
 * with their current state from the runtime's scenario store.
 *
 * @example
 * listScenarios(host, layer)[0] // { id: 'cart', name: 'cart', state: 'Started', possibleStates: ['Started', 'filled'], ... }
 */
export function listScenarios(host: WireMockHost, stubs: StubLayer): WireMockScenario[] {
  const document = host.served().document
  const scenarios = host.scenarios()
  const byName = new Map<
    string,
    { states: Set<string>; mappings: Set<Readonly<Record<string, unknown>>> }
  >()
  for (const txn of document.transactions) {
    const scenario = txn.dsl.scenario
    if (scenario === undefined) continue
    const entry = byName.get(scenario.name) ?? { states: new Set([STARTED]), mappings: new Set() }
    if (scenario.requiredState !== undefined) entry.states.add(scenario.requiredState)
    if (scenario.newState !== undefined) entry.states.add(scenario.newState)
    const stub = stubs.byTransaction(txn.id ?? null, txn.name)
    if (stub !== undefined) entry.mappings.add(stub.json)
    byName.set(scenario.name, entry)
  }
  return [...byName].map(([name, entry]) => ({
    id: name,
    name,
    state: scenarios.state(name, null),
    possibleStates: [...entry.states],
    mappings: [...entry.mappings],
  }))
}

/**
 * `PUT /__admin/scenarios/{name}/state`: `{state}` moves the scenario there; no state resets it
 * to `Started`. 404 for a scenario no stub names, 400 for a state none of its stubs names, as
 * WireMock answers.
 */
export async function setScenarioState(
  host: WireMockHost,
  stubs: StubLayer,
  name: string,
  state: unknown,
): Promise<void> {
  const scenario = listScenarios(host, stubs).find((s) => s.name === name)
  if (scenario === undefined) throw notFound(`Scenario ${name} does not exist`)
  if (state === undefined || state === null) {
    await host.scenarios().reset(name)
    return
  }
  if (typeof state !== 'string' || !scenario.possibleStates.includes(state)) {
    throw badRequest(
      '/state',
      `State ${JSON.stringify(state)} is not listed as a possible state for scenario ${name}`,
    )
  }
  host.scenarios().set(name, null, state, null)
}
