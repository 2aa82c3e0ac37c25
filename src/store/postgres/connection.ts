import { createRequire } from 'node:module'
import type * as Pg from 'pg'

/** Something SQL runs on: the pool (each query on any free connection) or one transaction's client. */
export interface PgQueryable {
  /** The rows of one statement; `$1`, `$2`... take `params` in order. */
  query: <R>(sql: string, params?: readonly unknown[]) => Promise<R[]>
}

/** A pool of connections to one PostgreSQL database. */
export interface PgPool extends PgQueryable {
  /**
   * Runs `fn` in one transaction on one connection: BEGIN, then COMMIT when `fn` settles, or
   * ROLLBACK and rethrow when it throws. The connection goes back to the pool either way (and is
   * discarded when ROLLBACK itself failed, so a broken session is never reused).
   */
  transaction: <T>(fn: (q: PgQueryable) => Promise<T>) => Promise<T>
  /** Ends every connection; idempotent. */
  close: () => Promise<void>
}

/** Connections a pool opens at most: reads run beside the one write transaction of the store. */
const POOL_SIZE = 10

/** How long opening a connection may take before the store gives up, in ms. */
const CONNECT_TIMEOUT_MS = 10_000

/** Type OIDs whose text form the store reads as a JavaScript number (see `numberTypes`). */
const INT8_OID = 20
const NUMERIC_OID = 1700

/**
 * node-postgres is an optional dependency (only `--store postgres://` needs it): loaded on first
 * use, synchronously, so that the SQLite platform never requires it.
 */
function loadPg(): typeof Pg {
  return createRequire(import.meta.url)('pg') as typeof Pg
}

/**
 * The type parsers of the store's pools: bigint (COUNT(*), SUM, BIGINT columns holding epoch
 * milliseconds and ids) and numeric become numbers, as SQLite's INTEGER columns are, instead of
 * node-postgres's default strings. Every value the schema keeps in them (ids, epoch ms, counts)
 * is far below 2^53. Set on the pool's clients, not on `pg.types`, so that another user of
 * node-postgres in the same process keeps its defaults.
 */
function numberTypes(pg: typeof Pg): Pg.CustomTypesConfig {
  const toNumber = (text: string): number => Number(text)
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === INT8_OID || oid === NUMERIC_OID) return toNumber
      return format === undefined
        ? pg.types.getTypeParser(oid)
        : pg.types.getTypeParser(oid, format)
    }) as Pg.CustomTypesConfig['getTypeParser'],
  }
}

/**
 * A pool on the database of `url` (`postgres://user:password@host:port/database`). Nothing is
 * connected until the first query, so a wrong URL or an unreachable server shows at that query.
 *
 * @example
 * const pool = openPgPool('postgres://understudy@127.0.0.1/understudy')
 * const [row] = await pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM accounts')
 * await pool.close()
 */
export function openPgPool(url: string): PgPool {
  const pg = loadPg()
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: numberTypes(pg),
  })
  // An idle connection the server dropped (a restart, a failover) is an 'error' event on the
  // pool; without a listener Node would crash the process. The pool discards it and opens a new
  // one on the next query, which reports its own error to its caller.
  pool.on('error', () => {})
  let closing: Promise<void> | undefined
  const queryOn =
    (client: Pg.Pool | Pg.PoolClient) =>
    async <R>(sql: string, params?: readonly unknown[]): Promise<R[]> => {
      const result = await client.query(sql, params === undefined ? undefined : [...params])
      return result.rows as R[]
    }
  return {
    query: queryOn(pool),
    async transaction<T>(fn: (q: PgQueryable) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        try {
          const result = await fn({ query: queryOn(client) })
          await client.query('COMMIT')
          return result
        } catch (err) {
          await client.query('ROLLBACK').catch((rollbackError: unknown) => {
            broken =
              rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))
          })
          throw err
        }
      } finally {
        client.release(broken)
      }
    },
    async close(): Promise<void> {
      closing ??= pool.end()
      await closing
    },
  }
}

/**
 * One connection of its own on the database of `url`, outside any pool: for a session that must
 * stay open and be the same one (LISTEN). The caller connects it, listens for its 'error' and
 * 'end', and ends it.
 *
 * @example
 * const client = openPgClient(url)
 * await client.connect()
 */
export function openPgClient(url: string): Pg.Client {
  const pg = loadPg()
  return new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
}
