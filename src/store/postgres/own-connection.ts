import type { PostgresWriteTarget, Repositories } from '../repositories.js'
import { openPgPool } from './connection.js'
import { startListWrites } from './list-changes.js'
import { createPgRepositories } from './repositories.js'

/**
 * One write transaction through a connection of its own (a worker thread's, holding a large
 * upload's rows): the PostgreSQL half of `Store.writeElsewhere`. BEGIN, `fn` with repositories on
 * that connection, COMMIT; ROLLBACK and rethrow on a throw. The rows go in as multi-row INSERTs
 * (createEncodedMany binds a run of rows as arrays), so the thread waits on one round trip per
 * run, never on one per row.
 *
 * @example
 * const ids = await pgWriteThroughOwnConnection(target, async (tx) => await tx.transactions.createEncodedMany(into, rows))
 */
export async function pgWriteThroughOwnConnection<T>(
  target: PostgresWriteTarget,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  const pool = openPgPool(target.postgresUrl)
  try {
    return await pool.transaction(async (q) => {
      let open = true
      try {
        return await fn(
          createPgRepositories({
            db: q,
            check: () => {
              if (!open) {
                throw new Error('the repositories of a write were used after the write ended')
              }
            },
            now: () => target.now,
            // Noted only for their size: a large write does not log its changes for lists.
            writes: startListWrites(),
          }),
        )
      } finally {
        open = false
      }
    })
  } finally {
    await pool.close()
  }
}
