import type { CountedList } from '../types.js'

/*
 * The summaries (context.ts `ListSpec.summary`) of the lists whose counts migration 23 keeps in
 * `list_counts`: one row per list and scope, read by its primary key, whatever the list's size.
 */

/**
 * The summary of a counted list in the scope `@<scopeParam>`: its maintained total, or NULL when
 * `filtered` (a filter the counts do not cover: the list then counts its rows once per version),
 * and its version. A scope without a row yet has had no row: total and version 0.
 *
 * @example
 * listSummary('users', 'accountId') // SELECT ifnull(SUM(total), 0) AS total, ... WHERE scope_kind = 'users' AND scope_id = @accountId
 */
export function listSummary(kind: CountedList, scopeParam: string, filtered = false): string {
  const total = filtered ? 'NULL' : 'ifnull(SUM(total), 0)'
  return (
    `SELECT ${total} AS total, ifnull(SUM(version), 0) AS version FROM list_counts ` +
    `WHERE scope_kind = '${kind}' AND scope_id = @${scopeParam}`
  )
}
