import type { Migration } from './types.js'

/**
 * Trackings of service clones (`POST /workspaces/{ws}/services/clone`), kept like the
 * trackings of mock services so that they still answer after a restart. A table of their own: a
 * clone belongs to a service, not to a mock service (the `trackings` foreign key). The cloned
 * service's id is informational (the tracking outlives a later delete of the service); the
 * tracking goes with its workspace.
 */
export const cloneTrackingsSchema: Migration = {
  version: 5,
  name: 'service clone trackings',
  sql: `
CREATE TABLE clone_trackings (
  tracking_id TEXT PRIMARY KEY NOT NULL,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  service_id INTEGER NOT NULL,
  created INTEGER NOT NULL,
  created_by TEXT
) STRICT;
CREATE INDEX clone_trackings_workspace ON clone_trackings (workspace_id);
`,
}
