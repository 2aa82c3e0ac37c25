import type { Migration } from './types.js'

/*
 * Monitoring: a team's integrations (the notification channels its environments reference by id)
 * and the batches a bucket trigger starts (one id for the runs of one trigger call).
 *
 * - An integration belongs to a workspace (a team) and goes with it; `doc` holds its settings
 *   (a webhook's `url`, an e-mail integration's `recipients`) as one JSON object.
 * - A batch keeps the ids of its runs in order; runs later pruned by the retention simply drop out
 *   of its answer, while its totals stay those of the trigger call.
 */
export const monitorIntegrationsSchema: Migration = {
  version: 10,
  name: 'monitoring integrations and bucket trigger batches',
  sql: `
CREATE TABLE monitor_integrations (
  id TEXT PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  integration_type TEXT NOT NULL,
  description TEXT NOT NULL,
  doc TEXT NOT NULL CHECK (json_valid(doc)),
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX monitor_integrations_workspace ON monitor_integrations(workspace_id, created);

CREATE TABLE monitor_batches (
  id TEXT PRIMARY KEY,
  bucket_key TEXT NOT NULL REFERENCES monitor_buckets(key) ON DELETE CASCADE,
  run_ids TEXT NOT NULL CHECK (json_valid(run_ids)),
  runs_failed INTEGER NOT NULL,
  created INTEGER NOT NULL
) STRICT;
`,
}
