import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import type { Migration } from '../migrations/types.js'
import type { PgPool, PgQueryable } from './connection.js'

/**
 * The key of the advisory lock migrations hold: any constant shared by every Understudy instance
 * on the database (the ASCII of "undrstdy" read as a signed 64-bit integer).
 */
const MIGRATION_LOCK = '8461811192601797753'

/**
 * Brings the database up to the newest of `migrations`, every pending one in version order in ONE
 * transaction, with its `schema_migrations` rows, under a transaction-scoped advisory lock: two
 * instances starting at once on one database take turns, and the second finds the work done. A
 * failing migration rolls back all of them (PostgreSQL's DDL is transactional). Returns the
 * versions applied now.
 *
 * Refuses, as the SQLite store does, a database newer than the code and a pending migration older
 * than an applied one.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations, log) // [1, 2] on a new database, [] afterwards
 */
export async function applyPgMigrations(
  pool: PgPool,
  migrations: readonly Migration[],
  log?: Logger,
): Promise<number[]> {
  checkOrder(migrations)
  const ran = await pool.transaction(async (q) => {
    await q.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await q.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (' +
        'version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    )
    const applied = await appliedVersions(q)
    const newestKnown = migrations.at(-1)?.version ?? 0
    const newestApplied = applied.at(-1) ?? 0
    if (newestApplied > newestKnown) {
      throw createError('ERR_STORE_FAILED', [
        `the database is at schema version ${newestApplied}, newer than this Understudy knows (${newestKnown}); use a newer release`,
      ])
    }
    const done = new Set(applied)
    const pending = migrations.filter((m) => !done.has(m.version))
    const stray = pending.find((m) => m.version < newestApplied)
    if (stray !== undefined) {
      throw createError('ERR_STORE_FAILED', [
        `migration ${stray.version} (${stray.name}) is missing from a database already at version ${newestApplied}`,
      ])
    }
    for (const migration of pending) await apply(q, migration)
    return pending
  })
  for (const m of ran) log?.info({ version: m.version, name: m.name }, 'store migration applied')
  return ran.map((m) => m.version)
}

async function appliedVersions(q: PgQueryable): Promise<number[]> {
  const rows = await q.query<{ version: number }>(
    'SELECT version FROM schema_migrations ORDER BY version',
  )
  return rows.map((r) => r.version)
}

async function apply(q: PgQueryable, migration: Migration): Promise<void> {
  try {
    await q.query(migration.sql)
    await q.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      Date.now(),
    ])
  } catch (err) {
    throw createError(
      'ERR_STORE_FAILED',
      [
        `migration ${migration.version} (${migration.name}) failed: ${err instanceof Error ? err.message : String(err)}`,
      ],
      { cause: err },
    )
  }
}

function checkOrder(migrations: readonly Migration[]): void {
  let previous = 0
  for (const m of migrations) {
    if (!Number.isSafeInteger(m.version) || m.version <= previous) {
      throw new Error(
        `migrations must have strictly increasing positive integer versions: ${m.version} after ${previous}`,
      )
    }
    previous = m.version
  }
}
