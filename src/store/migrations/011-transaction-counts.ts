import type { Migration } from './types.js'

/**
 * Lists of transactions that cost the same at 100,000 rows as at 500 (docs/api.md "Lists"):
 *
 * - `transaction_counts` holds, per (workspace, service), how many transactions there are (`n`)
 *   and how many times any of them was inserted, changed or deleted (`changes`), always in the
 *   same transaction as the write. Triggers count updates and deletes, so that every path that
 *   changes or removes rows (the API, bulk deletes, the cascade of a service or workspace delete,
 *   raw SQL) keeps it exact. Inserts are counted by the transaction repository, the one place that
 *   inserts transactions, once per statement batch: a per-row insert trigger made an upload of
 *   90,000 rows 1.3 s slower (0.9 s to 2.3 s for the inserts; with a trigger writing another table,
 *   each row's insert into the four secondary indexes lost SQLite's fast path).
 *   The total of an unfiltered list is a
 *   sum over a workspace's few services instead of a COUNT(*) over its rows; `changes` tells a
 *   list whether the page it served last is still the page before the one asked for (keyset
 *   paging, src/store/sqlite/keyset.ts).
 * - Rows are never deleted: `changes` only grows, so a sum of it over a workspace never comes
 *   back to a value it had, even when a service goes and another comes.
 * - `transactions_workspace (workspace_id)` (that is, (workspace_id, id)): the default list, in
 *   id order, reads its page from it instead of sorting the workspace.
 */
export const transactionCountsSchema: Migration = {
  version: 11,
  name: 'maintained transaction counts and the workspace index for lists',
  sql: `
CREATE TABLE transaction_counts (
  workspace_id INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  changes INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, service_id)
) STRICT;

INSERT INTO transaction_counts (workspace_id, service_id, n, changes)
SELECT workspace_id, service_id, COUNT(*), COUNT(*) FROM transactions GROUP BY workspace_id, service_id;

CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions BEGIN
  UPDATE transaction_counts SET n = n - 1, changes = changes + 1
  WHERE workspace_id = old.workspace_id AND service_id = old.service_id;
END;

-- Any change may move a row in some sort or filter; a move to another service moves its count.
CREATE TRIGGER transaction_counts_update AFTER UPDATE ON transactions BEGIN
  UPDATE transaction_counts SET n = n - 1, changes = changes + 1
  WHERE workspace_id = old.workspace_id AND service_id = old.service_id;
  INSERT INTO transaction_counts (workspace_id, service_id, n, changes) VALUES (new.workspace_id, new.service_id, 1, 1)
  ON CONFLICT (workspace_id, service_id) DO UPDATE SET n = n + 1, changes = changes + 1;
END;

CREATE INDEX transactions_workspace ON transactions (workspace_id);
`,
}
