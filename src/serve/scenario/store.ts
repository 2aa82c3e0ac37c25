/** The state every scenario starts in (WireMock's name, kept for users who come from it). */
export const STARTED = 'Started'

interface Instance {
  state: string
  /** When the instance returns to `Started` (ms since epoch); Infinity: never. */
  expires: number
}

/** One scenario instance as the admin API shows it. */
export interface ScenarioView {
  name: string
  instance: string | null
  state: string
}

/**
 * Where a runtime's scenario transactions read and write states: the store of this process
 * (`ScenarioStore`), or, in a replica of a cluster, its view of the primary's (`SharedScenarios`).
 */
export interface ScenarioStates {
  state: (name: string, instance: string | null) => string
  set: (name: string, instance: string | null, state: string, ttl: number | null) => void
  /** Every instance that is not in `Started`, by name then instance (a shared store reads it remotely). */
  list: () => ScenarioView[] | Promise<ScenarioView[]>
  /** Back to `Started`: all, one scenario, or one instance; how many instances were reset. */
  reset: (name?: string, instance?: string) => number | Promise<number>
  /** Releases a connection to a shared store, when there is one. */
  close?: () => Promise<void>
}

/** The key of one scenario instance in a map (NUL cannot occur in a header value or name). */
export function instanceKey(name: string, instance: string | null): string {
  return instance === null ? name : `${name}\u0000${instance}`
}

/**
 * Scenario states of one runtime, kept across configuration swaps. Node runs a request's match and
 * its transition in one synchronous turn, so a check-then-set here is atomic: two concurrent
 * requests can never both see the old state (the race WireMock has had since 2016).
 */
export class ScenarioStore implements ScenarioStates {
  private readonly instances = new Map<string, Instance>()

  state(name: string, instance: string | null): string {
    const key = instanceKey(name, instance)
    const found = this.instances.get(key)
    if (found === undefined) return STARTED
    if (found.expires <= Date.now()) {
      this.instances.delete(key)
      return STARTED
    }
    return found.state
  }

  set(name: string, instance: string | null, state: string, ttl: number | null): void {
    this.instances.set(instanceKey(name, instance), {
      state,
      expires: ttl === null ? Infinity : Date.now() + ttl,
    })
  }

  /** Every instance that is not in `Started`, by name then instance. */
  list(): ScenarioView[] {
    const now = Date.now()
    const out: ScenarioView[] = []
    for (const [key, value] of this.instances) {
      if (value.expires <= now) continue
      const cut = key.indexOf('\u0000')
      out.push({
        name: cut === -1 ? key : key.slice(0, cut),
        instance: cut === -1 ? null : key.slice(cut + 1),
        state: value.state,
      })
    }
    return out.sort(
      (a, b) => a.name.localeCompare(b.name) || (a.instance ?? '').localeCompare(b.instance ?? ''),
    )
  }

  /** Back to `Started`: every scenario, one scenario (all its instances), or one instance. Returns how many were reset. */
  reset(name?: string, instance?: string): number {
    let count = 0
    for (const key of [...this.instances.keys()]) {
      const cut = key.indexOf('\u0000')
      const keyName = cut === -1 ? key : key.slice(0, cut)
      const keyInstance = cut === -1 ? null : key.slice(cut + 1)
      if (name !== undefined && keyName !== name) continue
      if (instance !== undefined && keyInstance !== instance) continue
      this.instances.delete(key)
      count++
    }
    return count
  }
}

/** A state read while matching, which a commit expects still to hold: `[name, instance, state]`. */
export type ScenarioRead = [name: string, instance: string | null, state: string]
/** A transition to make: `[name, instance, state, ttl]`. */
export type ScenarioWrite = [
  name: string,
  instance: string | null,
  state: string,
  ttl: number | null,
]

/**
 * A replica's check-and-transition, done by the primary of a cluster in one synchronous turn (so
 * atomic): when every state read still holds, the writes are made; either way the answer carries
 * the current state of every instance involved, so that a replica that read stale states can
 * match again on fresh ones.
 *
 * @example
 * commitScenarios(store, [['checkout', null, 'Started']], [['checkout', null, 'Paid', null]]).ok // true, once
 */
export function commitScenarios(
  store: ScenarioStore,
  reads: readonly ScenarioRead[],
  writes: readonly ScenarioWrite[],
): { ok: boolean; states: ScenarioRead[] } {
  const ok = reads.every(([name, instance, state]) => store.state(name, instance) === state)
  if (ok) for (const [name, instance, state, ttl] of writes) store.set(name, instance, state, ttl)
  const states: ScenarioRead[] = []
  const seen = new Set<string>()
  for (const [name, instance] of [...reads, ...writes]) {
    const key = instanceKey(name, instance)
    if (seen.has(key)) continue
    seen.add(key)
    states.push([name, instance, store.state(name, instance)])
  }
  return { ok, states }
}
