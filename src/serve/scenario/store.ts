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
 * Scenario states of one runtime, kept across configuration swaps. Node runs a request's match and
 * its transition in one synchronous turn, so a check-then-set here is atomic: two concurrent
 * requests can never both see the old state (the race WireMock has had since 2016).
 */
export class ScenarioStore {
  private readonly instances = new Map<string, Instance>()

  private static key (name: string, instance: string | null): string {
    return instance === null ? name : `${name}\u0000${instance}`
  }

  state (name: string, instance: string | null): string {
    const key = ScenarioStore.key(name, instance)
    const found = this.instances.get(key)
    if (found === undefined) return STARTED
    if (found.expires <= Date.now()) {
      this.instances.delete(key)
      return STARTED
    }
    return found.state
  }

  set (name: string, instance: string | null, state: string, ttl: number | null): void {
    this.instances.set(ScenarioStore.key(name, instance), { state, expires: ttl === null ? Infinity : Date.now() + ttl })
  }

  /** Every instance that is not in `Started`, by name then instance. */
  list (): ScenarioView[] {
    const now = Date.now()
    const out: ScenarioView[] = []
    for (const [key, value] of this.instances) {
      if (value.expires <= now) continue
      const cut = key.indexOf('\u0000')
      out.push({ name: cut === -1 ? key : key.slice(0, cut), instance: cut === -1 ? null : key.slice(cut + 1), state: value.state })
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || (a.instance ?? '').localeCompare(b.instance ?? ''))
  }

  /** Back to `Started`: every scenario, one scenario (all its instances), or one instance. Returns how many were reset. */
  reset (name?: string, instance?: string): number {
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
