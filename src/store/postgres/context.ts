import type { PgQueryable } from './connection.js'
import type { ListWrites } from './list-changes.js'

/**
 * What a PostgreSQL repository works with: where its SQL runs (the pool for the store's own
 * repositories, the write's transaction inside `write`), a guard, and the clock. The counterpart
 * of the SQLite store's RepoContext.
 */
export interface PgRepoContext {
  readonly db: PgQueryable
  /** Throws when the store is closed, or when the `write` these repositories were given to has ended. */
  readonly check: () => void
  /** Epoch milliseconds. */
  readonly now: () => number
  /** Inside a `write`: the rows it wrote, by which kept lists are moved at its commit (list-changes.ts). */
  readonly writes?: ListWrites
}
