import type { AuthFailureRepository } from '../repositories.js'
import { listParams, num, type SqlRow, type SqlRunner } from './runner.js'

type Counts = Map<string, { count: number; expires: number }>

function countsOf(rows: readonly SqlRow[]): Counts {
  return new Map(
    rows.map((row) => [
      String(row['counter']),
      { count: num(row['count']), expires: num(row['expires']) },
    ]),
  )
}

/**
 * The failed-secret throttle's counters in the store (both dialects): a fixed window per counter,
 * counted with one upsert per failure, so that guesses spread over several platform instances add
 * up in one place.
 *
 * @example
 * await authFailureRepository(run).bump(['a:10.0.0.1'], Date.now(), 60_000)
 */
export function authFailureRepository(run: SqlRunner): AuthFailureRepository {
  return {
    async counts(counters, now) {
      if (counters.length === 0) return new Map()
      const { placeholders, params } = listParams(counters)
      return countsOf(
        await run(
          `SELECT counter, count, expires FROM auth_failures WHERE counter IN (${placeholders}) AND expires > @now`,
          { ...params, now },
        ),
      )
    },
    async bump(counters, now, windowMs) {
      const rows: SqlRow[] = []
      for (const counter of counters) {
        // A window that has ended starts again at one; otherwise the count goes up in it.
        const [row] = await run(
          'INSERT INTO auth_failures (counter, count, expires) VALUES (@counter, 1, @expires) ' +
            'ON CONFLICT (counter) DO UPDATE SET ' +
            'count = CASE WHEN auth_failures.expires <= @now THEN 1 ELSE auth_failures.count + 1 END, ' +
            'expires = CASE WHEN auth_failures.expires <= @now THEN @expires ELSE auth_failures.expires END ' +
            'RETURNING counter, count, expires',
          { counter, now, expires: now + windowMs },
        )
        if (row !== undefined) rows.push(row)
      }
      return countsOf(rows)
    },
    async sweep(now, max) {
      const ended = await run('DELETE FROM auth_failures WHERE expires <= @now RETURNING counter', {
        now,
      })
      const [counted] = await run('SELECT COUNT(*) AS n FROM auth_failures')
      const extra = num(counted?.['n'] ?? 0) - max
      if (extra <= 0) return ended.length
      const dropped = await run(
        'DELETE FROM auth_failures WHERE counter IN (SELECT counter FROM auth_failures ORDER BY expires, counter LIMIT @extra) RETURNING counter',
        { extra },
      )
      return ended.length + dropped.length
    },
  }
}
