import type { Migration } from './types.js'

/**
 * Monitoring runs beyond this platform's own runner (docs/monitor-api.md#regions-and-leases):
 *
 * - `region`: where the run executes; NULL = this platform's local runner (every run before).
 *   `pinned_agent`: a ship named by the environment's `remote_agents`, the only one that may claim
 *   the run. `agent`: the ship that claimed it last.
 * - `lease_id` / `lease_expires`: who holds the run and until when (epoch ms). An agent renews its
 *   lease while it runs; a lease not renewed in time makes the run claimable again, and a result
 *   sent under a lease that is not the run's current one is refused, so a run completes once.
 *   Local runs are leased by the platform instance that executes them, so that another instance
 *   starting on the same store fails only runs whose holder is gone.
 * - `slot_key`: a scheduled run's schedule, slot and region; unique, so two schedulers firing the
 *   same slot store one run.
 * - `monitor_agent_regions`: the regions each ship has claimed or heartbeated with (GET /regions,
 *   and where a trigger sends runs).
 */
export const monitorRunLeasesSchema: Migration = {
  version: 16,
  name: 'monitoring runs in regions: leases, claiming agents, idempotent schedule slots',
  sql: `
ALTER TABLE monitor_runs ADD COLUMN region TEXT;
ALTER TABLE monitor_runs ADD COLUMN pinned_agent TEXT;
ALTER TABLE monitor_runs ADD COLUMN agent TEXT;
ALTER TABLE monitor_runs ADD COLUMN lease_id TEXT;
ALTER TABLE monitor_runs ADD COLUMN lease_expires INTEGER;
ALTER TABLE monitor_runs ADD COLUMN slot_key TEXT;
CREATE UNIQUE INDEX monitor_runs_slot ON monitor_runs (slot_key) WHERE slot_key IS NOT NULL;
-- Claims look for the oldest unfinished run of a region or of one agent.
CREATE INDEX monitor_runs_claim ON monitor_runs (region, created) WHERE result IN ('queued', 'working');
CREATE INDEX monitor_runs_pinned ON monitor_runs (pinned_agent, created) WHERE pinned_agent IS NOT NULL AND result IN ('queued', 'working');

CREATE TABLE monitor_agent_regions (
  ship_id TEXT NOT NULL REFERENCES ships (id) ON DELETE CASCADE,
  region TEXT NOT NULL,
  seen INTEGER NOT NULL,
  PRIMARY KEY (ship_id, region)
) STRICT;
CREATE INDEX monitor_agent_regions_region ON monitor_agent_regions (region);
`,
}
