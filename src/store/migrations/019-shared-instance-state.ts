import type { Migration } from './types.js'

/**
 * State that every platform instance on one store must see alike (docs/deploy.md#high-availability):
 *
 * - `ui_sessions`: signed-in dashboard sessions, by a SHA-256 of the session id the cookie carries
 *   (the id itself is never stored). `sealed` holds what the session stands for (its API key's
 *   Authorization, its CSRF token, its monitoring token) encrypted under a key derived from that
 *   id, so the table alone signs nobody in. `user_id` / `monitor_token_id` name the OAuth token to
 *   revoke when the session ends on any instance.
 * - `auth_failures`: the failed-secret throttle's counters, one row per counter and fixed window
 *   (`expires`); rows of ended windows are swept.
 * - `agent_logs`: the newest log lines an agent reported for a mock service (a JSON array of
 *   strings, bounded), so that any instance answers the logs route with them.
 * - `monitor_runs.attempts`: how often a local run was taken over from an instance that died, so
 *   that a run that keeps killing its executor ends failed instead of going round for ever.
 */
export const sharedInstanceStateSchema: Migration = {
  version: 19,
  name: 'dashboard sessions, throttle counters and agent logs in the store; run attempts',
  sql: `
CREATE TABLE ui_sessions (
  id_hash TEXT PRIMARY KEY,
  api_key_id TEXT NOT NULL,
  user_id INTEGER,
  monitor_token_id TEXT,
  sealed TEXT NOT NULL,
  created INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);
CREATE INDEX ui_sessions_created ON ui_sessions (created);
CREATE INDEX ui_sessions_last_seen ON ui_sessions (last_seen);

CREATE TABLE auth_failures (
  counter TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  expires INTEGER NOT NULL
);
CREATE INDEX auth_failures_expires ON auth_failures (expires);

CREATE TABLE agent_logs (
  mock_service_id INTEGER PRIMARY KEY REFERENCES mock_services (id) ON DELETE CASCADE,
  lines TEXT NOT NULL,
  updated INTEGER NOT NULL
);

ALTER TABLE monitor_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
`,
}
