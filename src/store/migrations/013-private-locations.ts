import type { Migration } from './types.js'

/**
 * Private locations (docs/deploy.md#agents-and-locations): a harbor is a location of an account, offered to some
 * of its workspaces (`harbor_workspaces`); a ship is an agent in a harbor. An agent proves who it
 * is with a token shown once at creation and kept here only as a scrypt hash (as API key secrets
 * are). `state` and `last_heartbeat` are what the agent reports; a new ship is `empty` (never
 * connected), as the product shows it.
 *
 * Numbered 13 (not 12) so that another branch adding its migration at the same time does not
 * collide with this one.
 */
export const privateLocationsSchema: Migration = {
  version: 13,
  name: 'private locations (harbors) and their agents (ships)',
  sql: `
CREATE TABLE harbors (
  id TEXT PRIMARY KEY NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX harbors_account ON harbors (account_id);

CREATE TABLE harbor_workspaces (
  harbor_id TEXT NOT NULL REFERENCES harbors (id) ON DELETE CASCADE,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  PRIMARY KEY (harbor_id, workspace_id)
) STRICT;
-- A workspace's locations are looked up by it.
CREATE INDEX harbor_workspaces_workspace ON harbor_workspaces (workspace_id);

CREATE TABLE ships (
  id TEXT PRIMARY KEY NOT NULL,
  harbor_id TEXT NOT NULL REFERENCES harbors (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  address TEXT,
  token_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  last_heartbeat INTEGER,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX ships_harbor ON ships (harbor_id);
`,
}
