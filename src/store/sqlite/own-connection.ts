import type { Repositories, SqliteWriteTarget } from '../repositories.js'
import { Connection, openDatabase } from './connection.js'
import { createRepositories } from './repositories.js'

/**
 * One write transaction through a connection of its own, for a worker thread that holds what it
 * writes (a large upload's rows): the other half of `Store.writeElsewhere`, which keeps the
 * store's own writes out of the way meanwhile. BEGIN IMMEDIATE, `fn` with repositories on this
 * connection (the same SQL as `write`'s), COMMIT; on a throw ROLLBACK and rethrow. The connection
 * is closed either way, and leaves checkpoints to the store (`wal_autocheckpoint = 0`).
 *
 * @example
 * // in the worker, inside the main thread's store.writeElsewhere(async (target) => ...)
 * const ids = await writeThroughOwnConnection(target, async (tx) => await tx.transactions.createEncodedMany(into, rows))
 */
export async function sqliteWriteThroughOwnConnection<T>(
  target: SqliteWriteTarget,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  const conn = new Connection(openDatabase(target.file, { readonly: false }))
  try {
    conn.db.pragma('wal_autocheckpoint = 0')
    let open = true
    const tx = createRepositories({
      conn,
      check: () => {
        if (!open) throw new Error('the repositories of a write were used after the write ended')
      },
      now: () => target.now,
    })
    conn.db.exec('BEGIN IMMEDIATE')
    try {
      const result = await fn(tx)
      conn.db.exec('COMMIT')
      return result
    } catch (err) {
      if (conn.db.inTransaction) conn.db.exec('ROLLBACK')
      throw err
    } finally {
      open = false
    }
  } finally {
    conn.close()
  }
}
