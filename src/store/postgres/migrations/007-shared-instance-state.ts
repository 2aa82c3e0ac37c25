import type { Migration } from '../../migrations/types.js'

/*
 * What SQLite's migration 019 adds (src/store/migrations/019-shared-instance-state.ts explains
 * the tables): dashboard sessions, throttle counters and agents' log lines that every platform
 * instance on the database sees alike, and the attempts of local monitoring runs.
 */
const sql = /* sql */ `
CREATE TABLE ui_sessions (
  id_hash text PRIMARY KEY,
  api_key_id text NOT NULL,
  user_id bigint,
  monitor_token_id text,
  sealed text NOT NULL,
  created bigint NOT NULL,
  last_seen bigint NOT NULL
);
CREATE INDEX ui_sessions_created ON ui_sessions (created);
CREATE INDEX ui_sessions_last_seen ON ui_sessions (last_seen);

CREATE TABLE auth_failures (
  counter text PRIMARY KEY,
  count integer NOT NULL,
  expires bigint NOT NULL
);
CREATE INDEX auth_failures_expires ON auth_failures (expires);

CREATE TABLE agent_logs (
  mock_service_id bigint PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  lines text NOT NULL,
  updated bigint NOT NULL
);

ALTER TABLE monitor_runs ADD COLUMN attempts integer NOT NULL DEFAULT 0;
`

/**
 * PostgreSQL migration 7: dashboard sessions, throttle counters and agent logs in the store; run
 * attempts.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgSharedInstanceStateSchema: Migration = {
  version: 7,
  name: 'dashboard sessions, throttle counters and agent logs in the store; run attempts',
  sql,
}
