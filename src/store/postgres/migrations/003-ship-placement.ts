import type { Migration } from '../../migrations/types.js'

/*
 * Agents at work, in PostgreSQL: the final shape of what SQLite's migration 015 adds
 * (src/store/migrations/015-ship-placement.ts explains the columns). What differs:
 *
 * - The figures are bigint (a memory usage in bytes passes 2^31); `regions` is json, an array.
 * - Existing ships get environment ids from 2 in the order they were created, as SQLite numbers
 *   them by rowid.
 * - `ship_assignments.document` is json, kept as written.
 */
const sql = /* sql */ `
ALTER TABLE ships ADD COLUMN memory_usage bigint;
ALTER TABLE ships ADD COLUMN ms_running_count bigint;
ALTER TABLE ships ADD COLUMN transactions_count bigint;
ALTER TABLE ships ADD COLUMN agent_version text;
ALTER TABLE ships ADD COLUMN advertise_host text;
ALTER TABLE ships ADD COLUMN regions json CHECK (regions IS NULL OR json_typeof(regions) = 'array');
ALTER TABLE ships ADD COLUMN work_version bigint NOT NULL DEFAULT 0;
ALTER TABLE ships ADD COLUMN environment_id bigint;
UPDATE ships SET environment_id = numbered.n + 1
  FROM (SELECT id, row_number() OVER (ORDER BY created, id) AS n FROM ships) numbered
  WHERE ships.id = numbered.id;
CREATE UNIQUE INDEX ships_environment ON ships (environment_id);
-- The lost-ship check scans live ships by their last heartbeat.
CREATE INDEX ships_state_heartbeat ON ships (state, last_heartbeat);

CREATE TABLE ship_assignments (
  mock_service_id bigint PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  harbor_id text NOT NULL REFERENCES harbors (id) ON DELETE CASCADE,
  ship_id text NOT NULL REFERENCES ships (id) ON DELETE CASCADE,
  desired text NOT NULL,
  document json NOT NULL CHECK (json_typeof(document) = 'object'),
  document_hash text NOT NULL,
  tracking_id text,
  placed bigint NOT NULL,
  updated bigint NOT NULL
);
CREATE INDEX ship_assignments_ship ON ship_assignments (ship_id);
CREATE INDEX ship_assignments_harbor ON ship_assignments (harbor_id);
`

/**
 * PostgreSQL migration 3: heartbeat figures, work versions and environment ids of ships, and the
 * mock services placed on them.
 *
 * @example
 * await applyPgMigrations(pool, [catalogSchema, pgOperationsSchema, pgShipPlacementSchema])
 */
export const pgShipPlacementSchema: Migration = {
  version: 3,
  name: 'ships at work: heartbeat figures and the mock services placed on them',
  sql,
}
