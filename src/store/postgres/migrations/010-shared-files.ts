import type { Migration } from '../../migrations/types.js'

/*
 * What SQLite's migration 022 adds (src/store/migrations/022-shared-files.ts explains the
 * tables): asset bytes in chunks and the inspection records kept from stopped runtimes, so that
 * every platform instance on the database reads them alike.
 */
const sql = /* sql */ `
CREATE TABLE asset_chunks (
  file_id text NOT NULL,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  created bigint NOT NULL,
  PRIMARY KEY (file_id, seq)
);
CREATE INDEX asset_chunks_created ON asset_chunks (created);

CREATE TABLE kept_inspections (
  mock_service_id bigint PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  entries text NOT NULL,
  details bytea,
  version bigint NOT NULL
);
`

/**
 * PostgreSQL migration 10: asset bytes and kept inspection records in the store.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgSharedFilesSchema: Migration = {
  version: 10,
  name: 'asset bytes and kept inspection records in the store',
  sql,
}
