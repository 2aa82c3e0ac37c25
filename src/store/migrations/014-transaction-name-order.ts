import type { Migration } from './types.js'

/**
 * Lists sorted by name (`sort=name`, `-name`) read their page from an index instead of sorting the
 * workspace: the list's order is `name COLLATE NOCASE, id` (src/store/sqlite/context.ts), which
 * the BINARY `transactions_workspace_name` index of migration 1 cannot give (that one still serves
 * the exact `name` filter). With the rowid (id) every index ends with, this one is the sort key and
 * its id tiebreaker, so a first page and a keyset page after it cost O(page) at any size
 * (bench/platform-lists.ts). One more index to maintain on insert: measured on a 90,000-row
 * upload in bench/README.md "Lists".
 */
export const transactionNameOrderSchema: Migration = {
  version: 14,
  name: 'an index for transaction lists sorted by name',
  sql: `
CREATE INDEX transactions_workspace_name_nocase ON transactions (workspace_id, name COLLATE NOCASE);
`,
}
