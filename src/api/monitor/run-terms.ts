import type { MonitorRun, Store } from '../../store/index.js'

/**
 * How long a run's lease lasts unless its holder renews it (a third of it apart): an agent or a
 * platform instance that dies leaves its runs to others after at most this long.
 */
export const DEFAULT_LEASE_MS = 30_000

/**
 * How long a run may wait for an agent that nobody is there to be: a run for a region (or for one
 * agent) fails once it has waited this long and no agent that could claim it has claimed or
 * heartbeated for this long. Long enough for an agent's restart or upgrade.
 */
export const DEFAULT_RUN_WAIT_MS = 5 * 60_000

/** Runs kept per test by default (older results are deleted as new runs finish). */
export const DEFAULT_RESULT_RETENTION = 100

/** The terms agents' runs are held under on a platform: lease length and results kept per test. */
interface RunTerms {
  leaseMs: number
  /** How long a run waits for an agent that nobody is there to be (DEFAULT_RUN_WAIT_MS). */
  runWaitMs: number
  retention: number
  /** Called once an agent's run is stored completed (its notifications are sent from here). */
  completed?: (run: MonitorRun) => void
}

/*
 * The monitoring API is set up with these terms, and the agents' run routes (served by the
 * administration API, next to the rest of the ships' routes) read them from the store both serve:
 * keyed by the store, so several platforms in one process (tests) each keep their own.
 */
const termsByStore = new WeakMap<Store, RunTerms>()

export function setRunTerms(store: Store, terms: RunTerms): void {
  termsByStore.set(store, terms)
}

/** The terms of the platform serving this store (defaults when its monitoring API is not started). */
export function runTermsOf(store: Store): RunTerms {
  return (
    termsByStore.get(store) ?? {
      leaseMs: DEFAULT_LEASE_MS,
      runWaitMs: DEFAULT_RUN_WAIT_MS,
      retention: DEFAULT_RESULT_RETENTION,
    }
  )
}
