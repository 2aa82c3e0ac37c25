import type { Migration } from './types.js'

/**
 * `admin_calls`: the mailbox of admin calls relayed to agents (src/deploy/admin-relay.ts), so that
 * the instance an agent's long poll reaches takes a call queued by any other instance on the
 * store, and the instance that queued it reads the answer posted to any instance.
 *
 * A row lives for one call: queued (`taken_at` NULL) until its agent takes it or `take_by`
 * passes; taken, until its answer (`answer_status`, `answer_body`: the runtime's JSON, at most
 * 16 MiB) or `answer_by`; then deleted by the instance waiting for it. `expires` bounds its life
 * whatever happens to that instance: later rows are swept. `answer_within_ms` is the caller's
 * "call's time plus the take window", so that whichever instance hands the call out sets the
 * same `answer_by`. Transient: no foreign keys (a deleted ship's calls just expire).
 */
export const adminCallsSchema: Migration = {
  version: 21,
  name: 'admin calls relayed to agents, in the store',
  sql: `
CREATE TABLE admin_calls (
  call_id TEXT PRIMARY KEY,
  harbor_id TEXT NOT NULL,
  ship_id TEXT NOT NULL,
  mock_service_id INTEGER NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  json TEXT,
  timeout_ms INTEGER NOT NULL,
  answer_within_ms INTEGER NOT NULL,
  created INTEGER NOT NULL,
  take_by INTEGER NOT NULL,
  taken_at INTEGER,
  answer_by INTEGER,
  answer_status INTEGER,
  answer_body TEXT,
  expires INTEGER NOT NULL
);
CREATE INDEX admin_calls_queued ON admin_calls (ship_id, created) WHERE taken_at IS NULL;
CREATE INDEX admin_calls_expires ON admin_calls (expires);
`,
}
