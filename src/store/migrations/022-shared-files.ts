import type { Migration } from './types.js'

/**
 * What a platform instance used to keep under its own data dir, as rows every instance on one
 * store reads alike (docs/deploy.md#high-availability):
 *
 * - `asset_chunks`: the bytes of asset files, in chunks of at most 1 MiB by file id and
 *   position, so that no statement carries a whole upload. The chunks of a file are written
 *   before the asset row that names it: a crash leaves chunks no row points to (removed once
 *   they are old enough that no upload can still be writing them), never a row without bytes.
 *   The platform on SQLite keeps its asset files under `<data-dir>/assets/` (one instance per
 *   data dir); the table is here so that both stores have one schema.
 * - `kept_inspections`: the inspection records a mock service's runtimes left when they
 *   stopped: the index (JSON: the id base and the list entries, each with where its detail
 *   lies) and the details one after the other. `version` grows with every write, so that an
 *   instance caching an index knows when another instance replaced it.
 */
export const sharedFilesSchema: Migration = {
  version: 22,
  name: 'asset bytes and kept inspection records in the store',
  sql: `
CREATE TABLE asset_chunks (
  file_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (file_id, seq)
);
CREATE INDEX asset_chunks_created ON asset_chunks (created);

CREATE TABLE kept_inspections (
  mock_service_id INTEGER PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  entries TEXT NOT NULL,
  details BLOB,
  version INTEGER NOT NULL
);
`,
}
