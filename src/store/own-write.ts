import type { OwnWriteTarget, Repositories } from './repositories.js'
import { pgWriteThroughOwnConnection } from './postgres/own-connection.js'
import { sqliteWriteThroughOwnConnection } from './sqlite/own-connection.js'

/**
 * The other half of `Store.writeElsewhere`, whichever the store: one write transaction through a
 * connection of its own, to the SQLite file or the PostgreSQL database the target names.
 *
 * @example
 * // in a worker, inside the main thread's store.writeElsewhere(async (target) => ...)
 * const ids = await writeThroughOwnConnection(target, async (tx) => await tx.transactions.createEncodedMany(into, rows))
 */
export async function writeThroughOwnConnection<T>(
  target: OwnWriteTarget,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  return 'postgresUrl' in target
    ? await pgWriteThroughOwnConnection(target, fn)
    : await sqliteWriteThroughOwnConnection(target, fn)
}
