import type { Migration } from '../../migrations/types.js'

/*
 * Every row of `transactions` as it was before an update or a delete of the repository changed
 * it, with its tags, in the order of the changes: what another instance's next list needs to
 * move its kept totals and positions by the rows that changed or left (list-arrivals.ts) instead
 * of reading them again. Only the list columns are kept (not the DSL), and only the latest
 * 10,000 changes: the writes prune the older ones. A change this log misses (a service's or
 * workspace's delete cascading to its rows, a log pruned past a list's last read) is still
 * counted by `transaction_counts`, so the lists that find fewer changes than the count read
 * their rows again. The repository writes it rather than a trigger: a statement trigger on a
 * delete runs after the cascade has removed the rows' tags, and would log every row of a deleted
 * service, which no list is moved by.
 */
const sql = /* sql */ `
CREATE TABLE transaction_changes (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id BIGINT NOT NULL,
  workspace_id BIGINT NOT NULL,
  service_id BIGINT NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  description TEXT,
  dsl_type TEXT NOT NULL,
  created BIGINT NOT NULL,
  updated BIGINT NOT NULL,
  created_by TEXT COLLATE "C" NOT NULL,
  updated_by TEXT COLLATE "C" NOT NULL,
  tags TEXT[] COLLATE "C" NOT NULL
);
`

/**
 * PostgreSQL migration 14: the log of changed transactions, for other instances' lists.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgTransactionChangesSchema: Migration = {
  version: 14,
  name: 'log of transactions as they were before each update or delete',
  sql,
}
