import type { Migration } from '../../migrations/types.js'

/*
 * Monitoring runs in regions, in PostgreSQL: the final shape of what SQLite's migration 016 adds
 * (src/store/migrations/016-monitor-run-leases.ts explains the columns). The claim index ends with
 * `seq`, the tie-breaker PostgreSQL has where SQLite orders by rowid.
 */
const sql = /* sql */ `
ALTER TABLE monitor_runs ADD COLUMN region text;
ALTER TABLE monitor_runs ADD COLUMN pinned_agent text;
ALTER TABLE monitor_runs ADD COLUMN agent text;
ALTER TABLE monitor_runs ADD COLUMN lease_id text;
ALTER TABLE monitor_runs ADD COLUMN lease_expires bigint;
ALTER TABLE monitor_runs ADD COLUMN slot_key text;
CREATE UNIQUE INDEX monitor_runs_slot ON monitor_runs (slot_key) WHERE slot_key IS NOT NULL;
-- Claims look for the oldest unfinished run of a region or of one agent.
CREATE INDEX monitor_runs_claim ON monitor_runs (region, created, seq) WHERE result IN ('queued', 'working');
CREATE INDEX monitor_runs_pinned ON monitor_runs (pinned_agent, created, seq) WHERE pinned_agent IS NOT NULL AND result IN ('queued', 'working');

CREATE TABLE monitor_agent_regions (
  ship_id text NOT NULL REFERENCES ships (id) ON DELETE CASCADE,
  region text NOT NULL,
  seen bigint NOT NULL,
  PRIMARY KEY (ship_id, region)
);
CREATE INDEX monitor_agent_regions_region ON monitor_agent_regions (region);
`

/**
 * PostgreSQL migration 4: leases, regions and claiming agents of monitoring runs, idempotent
 * schedule slots, the regions each ship serves.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgMonitorRunLeasesSchema: Migration = {
  version: 4,
  name: 'monitoring runs in regions: leases, claiming agents, idempotent schedule slots',
  sql,
}
