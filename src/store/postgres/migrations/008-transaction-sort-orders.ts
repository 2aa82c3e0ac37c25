import type { Migration } from '../../migrations/types.js'

/*
 * PostgreSQL's counterpart of SQLite's migration 20 (src/store/migrations/020-transaction-sort-
 * orders.ts): an index per sort of the transaction list. A PostgreSQL index does not end with the
 * row's id as SQLite's do, so each one names `id`, the tie-breaker of every list order; the
 * default order (id) and the name order get that tie-breaker too, and search keeps `name` in the
 * `updated` index as an INCLUDE column, so it still finds it without reading the row.
 */
const sql = /* sql */ `
DROP INDEX IF EXISTS transactions_workspace;
CREATE INDEX transactions_workspace_id ON transactions (workspace_id, id);
DROP INDEX IF EXISTS transactions_workspace_name_nocase;
CREATE INDEX transactions_workspace_name_nocase_id ON transactions (workspace_id, lower(name), id);
CREATE INDEX transactions_workspace_created ON transactions (workspace_id, created, id);
DROP INDEX IF EXISTS transactions_workspace_updated_name;
CREATE INDEX transactions_workspace_updated_id ON transactions (workspace_id, updated, id) INCLUDE (name);
CREATE INDEX transactions_workspace_created_by ON transactions (workspace_id, lower(created_by), id);
CREATE INDEX transactions_workspace_updated_by ON transactions (workspace_id, lower(updated_by), id);
`

/**
 * PostgreSQL migration 8: transaction lists sorted by any of their sort keys read their page from
 * an index, ties broken by id.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgTransactionSortOrdersSchema: Migration = {
  version: 8,
  name: 'indexes for transaction lists in every sort order, id as the tie-breaker',
  sql,
}
