import { createError } from '../../errors/index.js'
import {
  instanceKey,
  STARTED,
  type ScenarioRead,
  type ScenarioStates,
  type ScenarioView,
  type ScenarioWrite,
} from './store.js'

/** Asks the cluster primary to check the reads and make the writes atomically (cluster-worker.ts). */
export type ScenarioCommitter = (
  reads: ScenarioRead[],
  writes: ScenarioWrite[],
) => Promise<{ ok: boolean; states: ScenarioRead[] }>

/** What one request read and wants written, gathered during its (synchronous) match. */
export interface ScenarioTurn {
  reads: ScenarioRead[]
  writes: ScenarioWrite[]
}

/** Instances a replica remembers; past this the memory is dropped (a miss only costs a retry). */
const MAX_CACHED = 10_000

/**
 * A cluster replica's scenario states (`run --replicas N`): the states live in the primary, so
 * that the replicas share them. Matching stays synchronous: it reads the states this replica last
 * heard of (a guess: `Started` when unknown) and records what it read and what the answering
 * transaction writes; the request then commits that through the primary, which applies the
 * writes only when every read still holds (optimistic concurrency). When a read was stale, the
 * primary's answer refreshes it and the request is matched again. So no transition is lost or
 * made twice, whichever replica the requests reach, and a request whose match read no scenario
 * state (every static transaction) never talks to the primary.
 *
 * @example
 * const shared = new SharedScenarios(async (reads, writes) => askPrimary(reads, writes))
 */
export class SharedScenarios implements ScenarioStates {
  private readonly known = new Map<string, string>()
  private turn: { reads: Map<string, ScenarioRead>; writes: ScenarioWrite[] } | null = null

  constructor(private readonly committer: ScenarioCommitter) {}

  state(name: string, instance: string | null): string {
    const key = instanceKey(name, instance)
    const state = this.known.get(key) ?? STARTED
    if (this.turn !== null && !this.turn.reads.has(key)) {
      this.turn.reads.set(key, [name, instance, state])
    }
    return state
  }

  set(name: string, instance: string | null, state: string, ttl: number | null): void {
    if (this.turn !== null) {
      this.turn.writes.push([name, instance, state, ttl])
      return
    }
    // Outside a request's match (a no-match policy answering with a scenario transaction): an
    // unconditional write.
    this.commit({ reads: [], writes: [[name, instance, state, ttl]] }).catch(() => {})
  }

  /** Starts recording a request's reads and writes (before its match). */
  begin(): void {
    this.turn = { reads: new Map(), writes: [] }
  }

  /** Stops recording; what the request read and wrote, or null when it touched no scenario. */
  end(): ScenarioTurn | null {
    const turn = this.turn
    this.turn = null
    if (turn === null || (turn.reads.size === 0 && turn.writes.length === 0)) return null
    return { reads: [...turn.reads.values()], writes: turn.writes }
  }

  /** Commits a turn through the primary; false when a read was stale (the states are refreshed: match again). */
  async commit(turn: ScenarioTurn): Promise<boolean> {
    let answer: Awaited<ReturnType<ScenarioCommitter>>
    try {
      answer = await this.committer(turn.reads, turn.writes)
    } catch (err) {
      throw createError('ERR_SERVE_SCENARIO_UNAVAILABLE', [
        err instanceof Error ? err.message : String(err),
      ])
    }
    if (this.known.size > MAX_CACHED) this.known.clear()
    for (const [name, instance, state] of answer.states) {
      const key = instanceKey(name, instance)
      if (state === STARTED) this.known.delete(key)
      else this.known.set(key, state)
    }
    return answer.ok
  }

  /** The states this replica last heard of (the primary's `GET /scenarios` is the truth). */
  list(): ScenarioView[] | Promise<ScenarioView[]> {
    return [...this.known].map(([key, state]) => {
      const cut = key.indexOf('\u0000')
      return {
        name: cut === -1 ? key : key.slice(0, cut),
        instance: cut === -1 ? null : key.slice(cut + 1),
        state,
      }
    })
  }

  /** Forgets what this replica heard (the states themselves are the primary's). */
  reset(_name?: string, _instance?: string): number | Promise<number> {
    const count = this.known.size
    this.known.clear()
    return count
  }
}
