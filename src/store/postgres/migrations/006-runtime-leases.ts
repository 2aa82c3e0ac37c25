import type { Migration } from '../../migrations/types.js'

/*
 * Runtime leases and shared secrets in PostgreSQL: what SQLite's migration 018 adds
 * (src/store/migrations/018-runtime-leases.ts explains the columns). The document is `json`, as
 * every stored document, so that it reads back as written.
 */
const sql = /* sql */ `
CREATE TABLE runtime_leases (
  mock_service_id bigint PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  holder text NOT NULL,
  home text NOT NULL,
  expires bigint NOT NULL,
  handover text,
  start_id text,
  admin_url text,
  pid integer,
  document json,
  updated bigint NOT NULL
);
CREATE INDEX runtime_leases_holder ON runtime_leases (holder);
CREATE INDEX runtime_leases_expires ON runtime_leases (expires);

CREATE TABLE platform_secrets (
  name text PRIMARY KEY,
  value text NOT NULL
);
`

/**
 * PostgreSQL migration 6: which platform instance runs each local runtime, and the secrets the
 * instances share.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgRuntimeLeasesSchema: Migration = {
  version: 6,
  name: 'runtime leases of platform instances sharing one database',
  sql,
}
