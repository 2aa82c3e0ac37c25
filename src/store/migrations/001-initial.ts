import type { Migration } from './types.js'

/*
 * The first schema: every record of src/store/types.ts. Decisions a reader would otherwise have to
 * reverse-engineer:
 *
 * - STRICT tables, so a column holds only its declared type (SQLite otherwise stores anything).
 *   Timestamps are INTEGER epoch milliseconds, booleans INTEGER 0/1 (CHECKed), JSON is TEXT
 *   (CHECKed with json_valid) and parsed by the repositories.
 * - INTEGER PRIMARY KEY AUTOINCREMENT: ids are never reused after a delete, so an id a client
 *   still holds can never start naming a different record.
 * - Uniqueness where the domain is unique: API key id (primary key); user email, case-insensitive
 *   (it is the login, the administration specification); tag name per account (`tags/name/{name}`
 *   names one tag, and `ensure` relies on it under concurrency); service name per workspace. The
 *   mock services specification does not say that service names are unique, but the contract looks
 *   services up by name (`services.getByName`), importers name the service a transaction goes to,
 *   and docs/decisions.md#unique-names answers name conflicts with 409: two services of one name
 *   would make those lookups ambiguous. A mock service's port, because two runtimes cannot listen
 *   on one. Not unique: workspace names, transaction names (the mock services specification has a
 *   `conflicts` endpoint for look-alike transactions), mock service names, and asset names: the
 *   mock services specification offers `assets/validate-name` for clients to check, and the asset
 *   create answer carries WARN-level `errors`, so a duplicate is the API's call, not a schema
 *   error.
 * - Scope is part of the foreign keys: a transaction, mock service or tracking references its
 *   parent by (id, workspace_id), so a row can never point into another workspace, whatever a
 *   caller passes. Assets, whose service is optional, get the same rule from two triggers
 *   (a composite key with SET NULL would also null workspace_id).
 * - Cascades where a child cannot outlive its parent: everything under an account or a workspace;
 *   transactions (and their tags) under their service; trackings and log snapshots under their
 *   mock service. Refusals: a service used by a mock service cannot be deleted (NO ACTION, checked
 *   at the end of the statement, so that deleting a whole workspace, which removes both, still
 *   works). SET NULL for optional references: an asset's service, a mock service's asset and
 *   its no-match transaction.
 * - Not foreign keys: the transaction ids inside mock_service_transactions (JSON; the deployer
 *   skips ids that no longer exist) and a log snapshot's tracking id (informational).
 * - Transaction tags live in a join table (name, position), not in JSON: the "carries every one of
 *   these tags" filter is an indexed lookup and exact for any tag text (commas, quotes). Tags are
 *   names, as in the mock services specification's transaction shape, not references to `tags`
 *   rows: renaming or deleting a tag does not rewrite transactions. Mock services and assets, which
 *   are never filtered by tag, keep theirs as JSON.
 */
const sql = /* sql */ `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email TEXT NOT NULL COLLATE NOCASE,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  account_roles TEXT NOT NULL CHECK (json_valid(account_roles) AND json_type(account_roles) = 'array'),
  created INTEGER NOT NULL,
  last_access INTEGER
) STRICT;
CREATE UNIQUE INDEX users_email ON users (email);
CREATE INDEX users_account ON users (account_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created INTEGER NOT NULL,
  last_used INTEGER
) STRICT;
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE workspaces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  dedicated_ips_enabled INTEGER NOT NULL CHECK (dedicated_ips_enabled IN (0, 1)),
  private_locations_enabled INTEGER NOT NULL CHECK (private_locations_enabled IN (0, 1)),
  user_id INTEGER NOT NULL REFERENCES users (id),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX workspaces_account ON workspaces (account_id);
CREATE INDEX workspaces_user ON workspaces (user_id);

CREATE TABLE services (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX services_workspace_name ON services (workspace_id, name);
-- The parent key of the (service_id, workspace_id) foreign keys below.
CREATE UNIQUE INDEX services_id_workspace ON services (id, workspace_id);

CREATE TABLE tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX tags_account_name ON tags (account_id, name);

CREATE TABLE transactions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  service_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  dsl_type TEXT NOT NULL,
  dsl TEXT NOT NULL CHECK (json_valid(dsl) AND json_type(dsl) = 'object'),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  FOREIGN KEY (service_id, workspace_id) REFERENCES services (id, workspace_id) ON DELETE CASCADE
) STRICT;
CREATE INDEX transactions_workspace_service ON transactions (workspace_id, service_id);
CREATE INDEX transactions_workspace_name ON transactions (workspace_id, name);
CREATE INDEX transactions_workspace_dsl_type ON transactions (workspace_id, dsl_type);
CREATE INDEX transactions_service ON transactions (service_id, workspace_id);

CREATE TABLE transaction_tags (
  transaction_id INTEGER NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  -- Keeps the order in which tags were given, so that a transaction reads back as written.
  position INTEGER NOT NULL,
  PRIMARY KEY (transaction_id, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX transaction_tags_name ON transaction_tags (name, transaction_id);

CREATE TABLE assets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  service_id INTEGER REFERENCES services (id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  description TEXT,
  type TEXT NOT NULL CHECK (type IN ('MAR', 'FILE_IN_ROOT', 'FILE_IN_PATH', 'FILE_IN_CLASSPATH')),
  file_id TEXT NOT NULL,
  folder_id TEXT,
  platform_vse_id INTEGER,
  tags TEXT NOT NULL CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  primary_metadata TEXT NOT NULL CHECK (json_valid(primary_metadata) AND json_type(primary_metadata) = 'object'),
  secondary_metadata TEXT NOT NULL CHECK (json_valid(secondary_metadata) AND json_type(secondary_metadata) = 'object'),
  size INTEGER NOT NULL CHECK (size >= 0),
  sha256 TEXT NOT NULL,
  content_type TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;
CREATE INDEX assets_workspace_service_name ON assets (workspace_id, service_id, name);
CREATE INDEX assets_service ON assets (service_id);
CREATE TRIGGER assets_service_in_workspace_insert BEFORE INSERT ON assets
  WHEN NEW.service_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM services WHERE id = NEW.service_id AND workspace_id = NEW.workspace_id)
BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: the asset''s service is not in its workspace');
END;
CREATE TRIGGER assets_service_in_workspace_update BEFORE UPDATE OF service_id, workspace_id ON assets
  WHEN NEW.service_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM services WHERE id = NEW.service_id AND workspace_id = NEW.workspace_id)
BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: the asset''s service is not in its workspace');
END;

CREATE TABLE mock_services (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  service_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('STOPPED', 'PENDING', 'RUNNING', 'FAILED')),
  harbor_id TEXT,
  ship_id TEXT,
  bridge_id INTEGER,
  registry_id INTEGER,
  vse_id INTEGER,
  platform_vse_id INTEGER,
  endpoint_preference TEXT CHECK (endpoint_preference IN ('HTTP', 'HTTPS')),
  live_system_host TEXT,
  live_system_port INTEGER,
  think_time INTEGER,
  capacity INTEGER,
  replicas INTEGER,
  no_matching_request_preference TEXT NOT NULL,
  no_matching_request_txn_id INTEGER REFERENCES transactions (id) ON DELETE SET NULL,
  mock_service_transactions TEXT NOT NULL
    CHECK (json_valid(mock_service_transactions) AND json_type(mock_service_transactions) = 'array'),
  tags TEXT NOT NULL CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  group_tag TEXT,
  asset_id INTEGER REFERENCES assets (id) ON DELETE SET NULL,
  http_endpoint TEXT,
  https_endpoint TEXT,
  port INTEGER CHECK (port BETWEEN 1 AND 65535),
  tls_port INTEGER CHECK (tls_port BETWEEN 1 AND 65535),
  deploy_date INTEGER,
  pending_update INTEGER NOT NULL CHECK (pending_update IN (0, 1)),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  -- NO ACTION, not CASCADE: a service in use cannot be deleted (the API answers 409 first).
  FOREIGN KEY (service_id, workspace_id) REFERENCES services (id, workspace_id)
) STRICT;
CREATE INDEX mock_services_workspace_service ON mock_services (workspace_id, service_id);
CREATE INDEX mock_services_service ON mock_services (service_id, workspace_id);
CREATE INDEX mock_services_status ON mock_services (status);
CREATE INDEX mock_services_asset ON mock_services (asset_id) WHERE asset_id IS NOT NULL;
CREATE INDEX mock_services_no_match_txn ON mock_services (no_matching_request_txn_id)
  WHERE no_matching_request_txn_id IS NOT NULL;
CREATE UNIQUE INDEX mock_services_port ON mock_services (port);
CREATE UNIQUE INDEX mock_services_tls_port ON mock_services (tls_port);
-- The parent key of the trackings' (mock_service_id, workspace_id) foreign key.
CREATE UNIQUE INDEX mock_services_id_workspace ON mock_services (id, workspace_id);

CREATE TABLE trackings (
  tracking_id TEXT PRIMARY KEY NOT NULL,
  workspace_id INTEGER NOT NULL,
  mock_service_id INTEGER NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('deploy', 'configure', 'stop')),
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'FINISHED', 'FAILED')),
  errors TEXT NOT NULL CHECK (json_valid(errors) AND json_type(errors) = 'array'),
  warnings TEXT NOT NULL CHECK (json_valid(warnings) AND json_type(warnings) = 'array'),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  ended INTEGER,
  created_by TEXT,
  FOREIGN KEY (mock_service_id, workspace_id) REFERENCES mock_services (id, workspace_id) ON DELETE CASCADE
) STRICT;
CREATE INDEX trackings_mock_service ON trackings (mock_service_id, workspace_id);

CREATE TABLE log_snapshots (
  log_id INTEGER PRIMARY KEY AUTOINCREMENT,
  mock_service_id INTEGER NOT NULL REFERENCES mock_services (id) ON DELETE CASCADE,
  tracking_id TEXT,
  log TEXT NOT NULL,
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX log_snapshots_mock_service ON log_snapshots (mock_service_id);
`

/**
 * Migration 1: the whole control-plane schema.
 *
 * @example
 * applyMigrations(db, [initialSchema])
 */
export const initialSchema: Migration = { version: 1, name: 'initial schema', sql }
