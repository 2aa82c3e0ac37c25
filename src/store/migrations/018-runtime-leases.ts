import type { Migration } from './types.js'

/**
 * Which platform instance runs each local runtime, when several share one database
 * (docs/deploy.md "High availability"):
 *
 * - `runtime_leases`: one row per mock service the local deployers have run. `holder` is the
 *   instance (host and a random id of its process) that may run it until `expires` (epoch ms; 0
 *   once released); it renews its rows every few seconds. `home` names the holder's host and data
 *   dir, so that the same platform restarted re-adopts what it ran. `handover` is another
 *   instance asking for the runtime (a deploy, stop or delete it was sent): the holder stops its
 *   copy and passes the lease on. `start_id`, `admin_url` and `pid` describe the process running
 *   now (the admin token is derived from `start_id`, never stored); `document` is the mock-service
 *   document last deployed, which an instance taking over starts.
 * - `platform_secrets`: secrets every instance of the database shares, created by the first that
 *   needs one (the key runtime admin tokens are derived with).
 */
export const runtimeLeasesSchema: Migration = {
  version: 18,
  name: 'runtime leases of platform instances sharing one database',
  sql: `
CREATE TABLE runtime_leases (
  mock_service_id INTEGER PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  holder TEXT NOT NULL,
  home TEXT NOT NULL,
  expires INTEGER NOT NULL,
  handover TEXT,
  start_id TEXT,
  admin_url TEXT,
  pid INTEGER,
  document TEXT,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX runtime_leases_holder ON runtime_leases (holder);
CREATE INDEX runtime_leases_expires ON runtime_leases (expires);

CREATE TABLE platform_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`,
}
