import type { Migration } from './types.js'

/*
 * API monitoring (the monitoring specification): buckets, tests, environments, schedules, runs,
 * revisions, and the OAuth 2.0 provider's applications, tokens and authorization codes.
 *
 * - Tests keep their ordered steps as one JSON array: steps are only ever read and written with
 *   their test (the step POST answers the whole test), nested condition steps are trees, and
 *   "only attributes sent are stored" is natural for a JSON object.
 * - Environments keep their settings as one JSON object (`doc`); `test_id` NULL = shared by the
 *   bucket. A test's environments, schedules, runs and revisions cascade with the test; a bucket's
 *   with the bucket; buckets with their workspace.
 * - Secrets are stored hashed: the application's client secret (scrypt), access tokens and
 *   authorization codes (SHA-256 of 32 random bytes: unguessable, so a slow hash adds nothing).
 */
export const monitoringSchema: Migration = {
  version: 3,
  name: 'api monitoring and oauth provider',
  sql: `
CREATE TABLE monitor_buckets (
  key TEXT PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  trigger_id TEXT NOT NULL UNIQUE,
  is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX monitor_buckets_workspace ON monitor_buckets(workspace_id);

CREATE TABLE monitor_tests (
  id TEXT PRIMARY KEY,
  bucket_key TEXT NOT NULL REFERENCES monitor_buckets(key) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  default_environment_id TEXT,
  trigger_id TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL CHECK (json_valid(created_by)),
  steps TEXT NOT NULL CHECK (json_valid(steps)),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  seq INTEGER NOT NULL
) STRICT;
CREATE INDEX monitor_tests_bucket ON monitor_tests(bucket_key, seq);

CREATE TABLE monitor_environments (
  id TEXT PRIMARY KEY,
  bucket_key TEXT NOT NULL REFERENCES monitor_buckets(key) ON DELETE CASCADE,
  test_id TEXT REFERENCES monitor_tests(id) ON DELETE CASCADE,
  doc TEXT NOT NULL CHECK (json_valid(doc)),
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX monitor_environments_owner ON monitor_environments(bucket_key, test_id);

CREATE TABLE monitor_schedules (
  id TEXT PRIMARY KEY,
  test_id TEXT NOT NULL REFERENCES monitor_tests(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  interval TEXT NOT NULL,
  note TEXT,
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX monitor_schedules_test ON monitor_schedules(test_id);

CREATE TABLE monitor_runs (
  id TEXT PRIMARY KEY,
  test_id TEXT NOT NULL REFERENCES monitor_tests(id) ON DELETE CASCADE,
  bucket_key TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  result TEXT NOT NULL,
  source TEXT NOT NULL,
  created INTEGER NOT NULL,
  finished INTEGER,
  doc TEXT NOT NULL CHECK (json_valid(doc))
) STRICT;
CREATE INDEX monitor_runs_test ON monitor_runs(test_id, created);

CREATE TABLE monitor_revisions (
  uuid TEXT PRIMARY KEY,
  bucket_key TEXT NOT NULL REFERENCES monitor_buckets(key) ON DELETE CASCADE,
  test_id TEXT REFERENCES monitor_tests(id) ON DELETE CASCADE,
  item_type TEXT NOT NULL,
  item_id TEXT NOT NULL,
  timestamp REAL NOT NULL,
  author TEXT NOT NULL CHECK (json_valid(author)),
  doc TEXT NOT NULL CHECK (json_valid(doc))
) STRICT;
CREATE INDEX monitor_revisions_test ON monitor_revisions(test_id, timestamp);

CREATE TABLE oauth_apps (
  client_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  website_url TEXT NOT NULL,
  callback_url TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created INTEGER NOT NULL
) STRICT;

CREATE TABLE oauth_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL REFERENCES oauth_apps(client_id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scopes TEXT NOT NULL,
  created INTEGER NOT NULL,
  revoked INTEGER
) STRICT;

CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES oauth_apps(client_id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scopes TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  expires INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1))
) STRICT;
`,
}
