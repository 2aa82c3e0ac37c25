import type { CountedList } from '../types.js'

/**
 * The summary (list.ts `PgListSpec.summary`) of a list whose counts PostgreSQL migration 13 keeps
 * in `list_counts`: its maintained total, or NULL when `filtered` (the list then counts its rows
 * once per version), and its version, read by primary key whatever the list's size.
 *
 * @example
 * pgListSummary('users', 'accountId') // SELECT coalesce(SUM(total), 0) AS total, ... AND scope_id = @accountId
 */
export function pgListSummary(kind: CountedList, scopeParam: string, filtered = false): string {
  const total = filtered ? 'NULL::bigint' : 'coalesce(SUM(total), 0)'
  return (
    `SELECT ${total} AS total, coalesce(SUM(version), 0) AS version FROM list_counts ` +
    `WHERE scope_kind = '${kind}' AND scope_id = @${scopeParam}`
  )
}
