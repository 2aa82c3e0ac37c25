import type { Migration } from './types.js'

/**
 * `transactions_workspace_service (workspace_id, service_id)` answers nothing that
 * `transactions_service (service_id, workspace_id)` (both columns) or the other indexes led by
 * `workspace_id` (the workspace alone) do not; every index is work on each insert, and a large
 * upload inserts 90,000 rows in one transaction.
 */
export const transactionIndexesSchema: Migration = {
  version: 8,
  name: 'drop the redundant transactions (workspace_id, service_id) index',
  sql: `
DROP INDEX IF EXISTS transactions_workspace_service;
`,
}
