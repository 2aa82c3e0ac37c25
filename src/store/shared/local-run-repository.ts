import type { LocalRunRepository } from '../repositories.js'
import type { SqlRunner } from './runner.js'

/**
 * Takes over the local monitoring runs (no region, no pinned ship) whose platform instance died:
 * their lease ended (or they have none) while queued or working. The lease condition is written
 * in the UPDATE itself, not only in its subquery, so that of two instances taking over at once
 * the second re-checks the row the first changed (PostgreSQL re-evaluates it after the row lock)
 * and leaves it.
 *
 * @example
 * const ids = await localRunRepository(run).takeOver({ leaseId, now, expires: now + 30_000, maxAttempts: 3 })
 */
export function localRunRepository(run: SqlRunner): LocalRunRepository {
  return {
    async takeOver({ leaseId, now, expires, maxAttempts }) {
      const abandoned =
        "result IN ('queued', 'working') AND region IS NULL AND pinned_agent IS NULL " +
        'AND (lease_expires IS NULL OR lease_expires < @now) AND attempts < @maxAttempts'
      const rows = await run(
        "UPDATE monitor_runs SET result = 'queued', lease_id = @leaseId, lease_expires = @expires, attempts = attempts + 1 " +
          `WHERE ${abandoned} AND id IN (SELECT id FROM monitor_runs WHERE ${abandoned}) RETURNING id`,
        { leaseId, now, expires, maxAttempts },
      )
      return rows.map((row) => String(row['id']))
    },
  }
}
