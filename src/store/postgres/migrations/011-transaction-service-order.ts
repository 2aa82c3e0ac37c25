import type { Migration } from '../../migrations/types.js'

/*
 * The one transaction list order migration 8 left without an index: `sort=serviceId` (ties
 * broken by id). Migration 1's `transactions_service (service_id, workspace_id)` gives neither
 * the workspace first nor the id, so such a page sorted every row of the workspace: 20 ms at
 * 50,000 rows against 0.1 ms from this index, and a keyset page after a row the same (EXPLAIN
 * ANALYZE in bench/README.md). It also serves one service's list in the default order
 * (`workspace_id = ? AND service_id = ? ORDER BY id`). The old index stays: the foreign key to
 * services looks transactions up by (service_id, workspace_id) on a service's delete.
 */
const sql = /* sql */ `
CREATE INDEX transactions_workspace_service_id ON transactions (workspace_id, service_id, id);
`

/**
 * PostgreSQL migration 11: transaction lists sorted by service read their page from an index.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgTransactionServiceOrderSchema: Migration = {
  version: 11,
  name: 'index for transaction lists sorted by service, id as the tie-breaker',
  sql,
}
