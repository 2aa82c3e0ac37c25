import type { Migration } from './types.js'

/**
 * Agents at work (docs/deploy.md#agents-and-locations): what each ship last reported of itself
 * (figures of its heartbeat, the host its mock services are reached at, its monitoring regions),
 * the version of its desired state (bumped whenever a mock service is placed on it, changed or
 * taken off, so that its agent's long poll answers), and the environment id it is shown under in
 * `platformvses` (1 is the platform's own local host). `ship_assignments` is the desired state
 * itself: which mock service runs on which ship, with the document it serves.
 */
export const shipPlacementSchema: Migration = {
  version: 15,
  name: 'ships at work: heartbeat figures and the mock services placed on them',
  sql: `
ALTER TABLE ships ADD COLUMN memory_usage INTEGER;
ALTER TABLE ships ADD COLUMN ms_running_count INTEGER;
ALTER TABLE ships ADD COLUMN transactions_count INTEGER;
ALTER TABLE ships ADD COLUMN agent_version TEXT;
ALTER TABLE ships ADD COLUMN advertise_host TEXT;
ALTER TABLE ships ADD COLUMN regions TEXT;
ALTER TABLE ships ADD COLUMN work_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ships ADD COLUMN environment_id INTEGER;
UPDATE ships SET environment_id = rowid + 1;
CREATE UNIQUE INDEX ships_environment ON ships (environment_id);
-- The lost-ship check scans live ships by their last heartbeat.
CREATE INDEX ships_state_heartbeat ON ships (state, last_heartbeat);

CREATE TABLE ship_assignments (
  mock_service_id INTEGER PRIMARY KEY NOT NULL REFERENCES mock_services (id) ON DELETE CASCADE,
  harbor_id TEXT NOT NULL REFERENCES harbors (id) ON DELETE CASCADE,
  ship_id TEXT NOT NULL REFERENCES ships (id) ON DELETE CASCADE,
  desired TEXT NOT NULL,
  document TEXT NOT NULL,
  document_hash TEXT NOT NULL,
  tracking_id TEXT,
  placed INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX ship_assignments_ship ON ship_assignments (ship_id);
CREATE INDEX ship_assignments_harbor ON ship_assignments (harbor_id);
`,
}
