import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger } from '../log/index.js'
import { findShadowed, type ConflictSubject } from '../match/index.js'

/** Warnings shown one by one; beyond, one line counts the rest. */
const SHOWN = 20

/**
 * Warns about transactions `serve` can never answer with (shadowed by an earlier one in serving
 * order: lower priority number first, then the later file), with the conflicts code of the
 * platform (src/match/conflicts.ts). Answers how many there are.
 *
 * @example
 * warnShadowed(loaded.document, log) // logs `transaction "GET /v1/Services (2)" can never be reached: ...`
 */
export function warnShadowed (document: MockServiceDocument, log: Logger): number {
  const subjects: Array<ConflictSubject & { name: string }> = document.transactions.map((t, index) => ({ id: index, name: t.name, dsl: t.dsl }))
  // the runtime's order (match/compiled.ts byPriorityThenNewest): priority, then newest first
  const ordered = [...subjects].sort((a, b) => (a.dsl.priority ?? 10) - (b.dsl.priority ?? 10) || b.id - a.id)
  const shadowed = findShadowed(ordered)
  for (const { shadowed: t, by } of shadowed.slice(0, SHOWN)) {
    log.warn({ transaction: t.name, shadowedBy: by.name }, `transaction "${t.name}" can never be reached: "${by.name}" matches every request it matches and is tried first`)
  }
  if (shadowed.length > SHOWN) log.warn({ unreachable: shadowed.length }, `${shadowed.length - SHOWN} more transactions can never be reached`)
  return shadowed.length
}
