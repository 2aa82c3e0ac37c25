import type { Migration } from '../../migrations/types.js'

/*
 * The two transaction list orders migration 8 left without an index in their order:
 * `sort=serviceId` and `sort=dslType`, ties broken by id. Migration 1's `transactions_service
 * (service_id, workspace_id)` and `transactions_workspace_dsl_type (workspace_id, dsl_type)` end
 * without the id (a PostgreSQL index does not end with the row as SQLite's do), so such a page,
 * and a keyset page after a row too, sorted every row of the workspace: 20 and 30 ms at 50,000
 * rows against 0.1 ms from these indexes (EXPLAIN ANALYZE in bench/README.md). The service one
 * also serves one service's list in the default order (`workspace_id = ? AND service_id = ?
 * ORDER BY id`). The dsl_type index is replaced, its columns being the new one's first two;
 * `transactions_service` stays: the foreign key to services looks transactions up by
 * (service_id, workspace_id) on a service's delete.
 */
const sql = /* sql */ `
CREATE INDEX transactions_workspace_service_id ON transactions (workspace_id, service_id, id);
DROP INDEX IF EXISTS transactions_workspace_dsl_type;
CREATE INDEX transactions_workspace_dsl_type_id ON transactions (workspace_id, dsl_type, id);
`

/**
 * PostgreSQL migration 11: transaction lists sorted by service or by DSL type read their page
 * from an index.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgTransactionServiceAndTypeOrdersSchema: Migration = {
  version: 11,
  name: 'indexes for transaction lists sorted by service or DSL type, id as the tie-breaker',
  sql,
}
