import type { Predicate, UrlPredicate } from './predicates/index.js'

/**
 * One transaction, compiled: its conditions as predicates ordered cheapest first, and the
 * caller's payload (the runtime puts its precomputed response there). It keeps no reference to
 * the DSL it came from, so that a served configuration does not hold its document on the heap.
 */
export interface CompiledTransaction<P> {
  /** Position in the document; later means newer, and newer wins ties. */
  readonly index: number
  readonly id: number | null
  readonly name: string
  /** Effective priority: the mock service's override, else the transaction's own. */
  readonly priority: number
  /** Uppercase method, or null for any. */
  readonly method: string | null
  readonly url: UrlPredicate | null
  readonly predicates: readonly Predicate[]
  readonly needsBody: boolean
  readonly payload: P
}

/**
 * Orders transactions as the runtime tries them: ascending priority (1 first), then newest first
 * (docs/decisions.md#priority-order).
 */
export function byPriorityThenNewest<P>(
  a: CompiledTransaction<P>,
  b: CompiledTransaction<P>,
): number {
  return a.priority - b.priority || b.index - a.index
}
