import type { Migration } from './types.js'

/**
 * Lists sorted by `created`, `updated`, `createdBy` or `updatedBy` read their page from an index
 * instead of sorting the workspace's rows. A list's order is the sort key, then id in the same
 * direction (src/store/sqlite/context.ts); every SQLite index ends with the rowid (id), so
 * `(workspace_id, key)` is exactly that order, text keys folded as the list folds them (NOCASE).
 *
 * Search's covering index `(workspace_id, updated, name)` orders ties of `updated` by name, not
 * id, so it cannot serve `sort=updated`; it is replaced by `(workspace_id, updated, id, name)`,
 * which serves both (search still finds name there without reading the row). Three new indexes,
 * not four, to maintain on every insert: their price on a 90,000-row upload is in
 * bench/README.md "Lists".
 */
export const transactionSortOrdersSchema: Migration = {
  version: 20,
  name: 'indexes for transaction lists sorted by created, updated, createdBy, updatedBy',
  sql: `
CREATE INDEX IF NOT EXISTS transactions_workspace_created ON transactions (workspace_id, created);
DROP INDEX IF EXISTS transactions_workspace_updated_name;
CREATE INDEX IF NOT EXISTS transactions_workspace_updated_id_name ON transactions (workspace_id, updated, id, name);
CREATE INDEX IF NOT EXISTS transactions_workspace_created_by ON transactions (workspace_id, created_by COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS transactions_workspace_updated_by ON transactions (workspace_id, updated_by COLLATE NOCASE);
`,
}
