import type Database from 'better-sqlite3'
import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import type { Migration } from '../migrations/index.js'

/** One row of `schema_migrations`. */
interface AppliedMigration {
  version: number
  name: string
  appliedAt: number
}

/**
 * Brings the database up to the newest of `migrations`: each pending one in version order, in
 * its own IMMEDIATE transaction together with its `schema_migrations` row and `user_version`, so a
 * failing migration leaves the database at the previous version. Returns the versions applied
 * now (none when it was up to date).
 *
 * Refuses a database whose version is newer than the code (a downgrade would run old code on a
 * schema it does not know) and a pending migration older than an applied one (two branches).
 * Another process migrating the same file at the same moment is harmless: each transaction
 * re-reads what is applied after taking the write lock.
 *
 * @example
 * applyMigrations(db, migrations, log) // [1] on a new database, [] afterwards
 */
export function applyMigrations(
  db: Database.Database,
  migrations: readonly Migration[],
  log?: Logger,
): number[] {
  checkOrder(migrations)
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (' +
      'version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  )
  const applied = appliedMigrations(db)
  const newestKnown = migrations.at(-1)?.version ?? 0
  const newestApplied = applied.at(-1)?.version ?? 0
  if (newestApplied > newestKnown) {
    throw createError('ERR_STORE_FAILED', [
      `the database is at schema version ${newestApplied}, newer than this Understudy knows (${newestKnown}); use a newer release`,
    ])
  }
  const done = new Set(applied.map((m) => m.version))
  const pending = migrations.filter((m) => !done.has(m.version))
  const stray = pending.find((m) => m.version < newestApplied)
  if (stray !== undefined) {
    throw createError('ERR_STORE_FAILED', [
      `migration ${stray.version} (${stray.name}) is missing from a database already at version ${newestApplied}`,
    ])
  }
  const ran: number[] = []
  for (const migration of pending) {
    if (apply(db, migration)) {
      ran.push(migration.version)
      log?.info({ version: migration.version, name: migration.name }, 'store migration applied')
    }
  }
  return ran
}

/**
 * The rows of `schema_migrations`, oldest first.
 *
 * @example
 * appliedMigrations(db).at(-1)?.version // 1
 */
export function appliedMigrations(db: Database.Database): AppliedMigration[] {
  return db
    .prepare(
      'SELECT version, name, applied_at AS appliedAt FROM schema_migrations ORDER BY version',
    )
    .all() as AppliedMigration[]
}

function apply(db: Database.Database, migration: Migration): boolean {
  // foreign_keys cannot change inside a transaction: switch it before BEGIN.
  if (migration.rebuildsTables === true) db.pragma('foreign_keys = OFF')
  try {
    return db
      .transaction(() => {
        const already = db
          .prepare('SELECT 1 AS found FROM schema_migrations WHERE version = ?')
          .get(migration.version)
        if (already !== undefined) return false
        db.exec(migration.sql)
        if (migration.rebuildsTables === true) {
          const broken = db.pragma('foreign_key_check') as unknown[]
          if (broken.length > 0) {
            throw new Error(`${broken.length} rows break foreign keys after the migration`)
          }
        }
        db.prepare(
          'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
        ).run(migration.version, migration.name, Date.now())
        // Mirrors the version where `sqlite3 understudy.db 'PRAGMA user_version'` shows it.
        db.pragma(`user_version = ${migration.version}`)
        return true
      })
      .immediate()
  } catch (err) {
    throw createError(
      'ERR_STORE_FAILED',
      [
        `migration ${migration.version} (${migration.name}) failed: ${err instanceof Error ? err.message : String(err)}`,
      ],
      { cause: err },
    )
  } finally {
    if (migration.rebuildsTables === true) db.pragma('foreign_keys = ON')
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
