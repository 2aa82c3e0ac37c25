import { detailAt, type MockServiceDocument, type Transaction } from '../dsl/index.js'
import { findShadowed, type ConflictSubject } from '../match/index.js'
import type { StartupWarning } from './startup-report.js'

/**
 * Warnings about transactions `serve` can never answer with (shadowed by an earlier one in
 * serving order: lower priority number first, then the later file), with the conflicts code of
 * the platform (src/match/conflicts.ts). Each names both transactions by their index in the
 * served set and, when they came from a file, file:line. `origins` is the document as loaded
 * (`served` may be a rewritten copy, as with --match-host, whose transactions lost their origin).
 *
 * @example
 * shadowedWarnings(doc, doc)[0].message // 'transaction 3 "list (2)" (pets.yaml:14) can never be reached: transaction 1 "list" (pets.yaml:4) ...'
 */
export function shadowedWarnings(
  served: MockServiceDocument,
  origins: MockServiceDocument = served,
): StartupWarning[] {
  const subjects: Array<ConflictSubject & { name: string }> = served.transactions.map(
    (t, index) => ({ id: index, name: t.name, dsl: t.dsl }),
  )
  // the runtime's order (match/compiled.ts byPriorityThenNewest): priority, then newest first
  const ordered = [...subjects].sort(
    (a, b) => (a.dsl.priority ?? 10) - (b.dsl.priority ?? 10) || b.id - a.id,
  )
  // reported in file order, which is how a person reads them
  return findShadowed(ordered)
    .sort((a, b) => a.shadowed.id - b.shadowed.id)
    .map(({ shadowed: t, by }) => ({
      message: `${describeTransaction(origins.transactions[t.id], t.id, t.name)} can never be reached: ${describeTransaction(origins.transactions[by.id], by.id, by.name)} matches every request it matches and is tried first`,
      fields: { transaction: t.name, shadowedBy: by.name },
    }))
}

/** `transaction 3 "name" (file:line)`, leaving out what is unknown. */
function describeTransaction(txn: Transaction | undefined, index: number, name: string): string {
  const where = txn === undefined ? undefined : detailAt(txn, '', '', '')
  const at =
    where?.file === undefined
      ? ''
      : ` (${where.file}${where.line === undefined ? '' : `:${where.line}`})`
  return `transaction ${index} "${name}"${at}`
}
