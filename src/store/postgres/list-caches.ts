import type { PgQueryable } from './connection.js'
import type { Row } from './sql.js'

/*
 * Page ends, filtered totals and positions remembered per pool (the SQLite store keeps them per
 * connection; see its keyset.ts). Each entry carries the change count it was read at, kept in the
 * database, so an entry is right whichever instance made the change since. A total or positions
 * with a `move` are moved by this pool's own small writes at their commit (list-changes.ts), and
 * by the rows other instances inserted, changed or deleted since at the next list
 * (list-arrivals.ts), instead of being read again.
 */

/** The sort of a list: its SQL expressions, id last, all in one direction. */
export interface SortOrder {
  expressions: readonly string[]
  descending: boolean
}

/** A position in a list: how many of its rows sort at or before `keys` (the sort keys of a row of its scope). */
export interface Mark {
  position: number
  keys: readonly unknown[]
}

/** What a write needs to move a kept total or positions: the list's statements and parameters. */
export interface ListMove {
  /** The scope (workspace) whose writes are noted, and the statement of its change count `{ version }`. */
  scope: number
  scopeVersion: string
  /** The list's summary (`{ total, version }`). */
  listVersion: string
  /**
   * The rows whose every change moves the list's change count (a condition on `from`): another
   * instance's inserts are found among them (list-arrivals.ts).
   */
  versionRows: string
  /**
   * The log of the list's rows as they were before each update or delete (`table`: the columns
   * of `from`'s and a `seq` in the order of the changes; `where`: the list's filter over it, as
   * `t`): another instance's changes are found in it (list-arrivals.ts).
   */
  departures?: { table: string; where: string }
  from: string
  where: string
  idColumn: string
  params: Row
  order: SortOrder
}

/** A filtered list's total at a change count. */
export interface KeptTotal {
  version: number
  total: number
  move?: ListMove
  /** The scope's change count when it was read or moved (with `move`). */
  scopeVersion?: number
  /**
   * No row of the table had a larger id when the entry was read or moved (an upper bound): the
   * rows above it are the ones inserted since (list-arrivals.ts).
   */
  top?: number
  /** Likewise the log of changed rows' sequence number (with `move.departures`). */
  changeTop?: number
}

/** A list's total and its marks (one per `POSITION_EVERY` rows of its scope) at a change count. */
export interface KeptPositions {
  version: number
  total: number
  marks: readonly Mark[]
  /** The SQL type of each sort key (`bigint`, `text`), as the marks' keys are bound to compare rows with them. */
  types: readonly string[]
  /** Rows moved into the marks since they were read: a slice between two marks grows by as many. */
  shifted: number
  move?: ListMove
  /** The scope's change count when it was read or moved (with `move`). */
  scopeVersion?: number
  /**
   * No row of the table had a larger id when the entry was read or moved (an upper bound): the
   * rows above it are the ones inserted since (list-arrivals.ts).
   */
  top?: number
  /** Likewise the log of changed rows' sequence number (with `move.departures`). */
  changeTop?: number
}

export interface ListCaches {
  ends: Map<string, { version: number; keys: readonly unknown[] }>
  totals: Map<string, KeptTotal>
  positions: Map<string, KeptPositions>
}

export const MAX_ENDS = 512
export const MAX_TOTALS = 256
/** Lists whose positions are kept (one mark per 250 rows of the scope each). */
export const MAX_POSITIONS = 64
const MAX_KEY_LENGTH = 4096

const listCaches = new WeakMap<object, ListCaches>()

/**
 * The caches of the lists read on `db` (created on first use).
 *
 * @example
 * const total = cachesOf(pool).totals.get(countKey)
 */
export function cachesOf(db: PgQueryable): ListCaches {
  let caches = listCaches.get(db)
  if (caches === undefined) {
    caches = { ends: new Map(), totals: new Map(), positions: new Map() }
    listCaches.set(db, caches)
  }
  return caches
}

/**
 * The caches of `db` if any list was read on it.
 *
 * @example
 * const caches = keptCachesOf(pool)
 */
export function keptCachesOf(db: PgQueryable): ListCaches | undefined {
  return listCaches.get(db)
}

/**
 * Keeps `value` under `key`, dropping the oldest entry past `max`; a key longer than 4,096
 * characters (a filter by thousands of ids) is not kept.
 *
 * @example
 * remember(caches.totals, countKey, { version, total }, MAX_TOTALS)
 */
export function remember<V>(cache: Map<string, V>, key: string, value: V, max: number): void {
  if (key.length > MAX_KEY_LENGTH) return
  cache.delete(key)
  cache.set(key, value)
  if (cache.size > max) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
}
