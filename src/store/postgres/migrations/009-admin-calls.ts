import type { Migration } from '../../migrations/types.js'

/*
 * What SQLite's migration 021 adds (src/store/migrations/021-admin-calls.ts explains the table):
 * the mailbox of admin calls relayed to agents, shared by every platform instance on the database.
 */
const sql = /* sql */ `
CREATE TABLE admin_calls (
  call_id text PRIMARY KEY,
  harbor_id text NOT NULL,
  ship_id text NOT NULL,
  mock_service_id bigint NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  json text,
  timeout_ms integer NOT NULL,
  answer_within_ms integer NOT NULL,
  created bigint NOT NULL,
  take_by bigint NOT NULL,
  taken_at bigint,
  answer_by bigint,
  answer_status integer,
  answer_body text,
  expires bigint NOT NULL
);
CREATE INDEX admin_calls_queued ON admin_calls (ship_id, created) WHERE taken_at IS NULL;
CREATE INDEX admin_calls_expires ON admin_calls (expires);
`

/**
 * PostgreSQL migration 9: admin calls relayed to agents, in the store.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgAdminCallsSchema: Migration = {
  version: 9,
  name: 'admin calls relayed to agents, in the store',
  sql,
}
