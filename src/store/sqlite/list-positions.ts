import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import type { KeyComparison } from './key-compare.js'

/*
 * Positions of a list: its total, and the sort keys found at every few hundred to few thousand
 * rows of it ("marks"), read once per change count of the list and kept. With them, any `skip`
 * is answered from the mark at or before it (`WHERE (keys) > (mark) ... OFFSET skip - mark`),
 * so a jump to a far page reads at most one slice of rows instead of every row before it, and a
 * filtered list's total is known without counting its rows on the request.
 *
 * SQLite answers synchronously on the event loop, so the positions are read in slices, each a
 * bounded walk of the scope's index (the workspace's rows in the list's order) and a count of the
 * list's rows within it, yielding to the event loop between slices. Writes may land between two
 * slices: the change count read before the first and after the last tells, and a walk that saw
 * a change is thrown away (the list then counts in one statement, as before).
 */

/** Where a list stands after its first `position` rows: the sort keys of the last of them, id last. */
interface Mark {
  position: number
  keys: readonly unknown[]
}

/** A list's total and marks, exact while its change count is `version`. */
export interface ListPositions {
  version: number
  total: number
  /** Ascending by position. */
  marks: readonly Mark[]
  /** How a write's rows move them (list-changes.ts); undefined: they are read again after any write. */
  shift?: ListShift
  /** Rows written in the list's scope since the marks were read, which a slice may have gained. */
  shifted: number
}

/** What moving a list's positions by a write's rows takes (list-changes.ts): statements taking `params`. */
export interface ListShift {
  /** The scope's key among the written rows (list-changes.ts `noteRowsWritten`). */
  scope: number
  /** The scope's own change count (of every row in it, whatever the list's filter), `{ version }`. */
  scopeVersion: string
  /** The list's change count, as its summary reads it, `{ version }`. */
  listVersion: string
  params: Row
  /** The ids and sort keys (`{keyColumn}N`) of the rows in `@list_written` (a JSON array) the list holds. */
  rowsOf: string
  keyColumn: string
  comparison: KeyComparison
}

/** The statements that read a list's positions, with `@list_key_N` (after) and `@list_bound_N` (up to) keys. */
export interface PositionStatements {
  /** The keys of the scope's row `@list_offset` rows on (after `@list_key_N` when `after`). */
  bound: { first: string; after: string }
  /**
   * The list's rows up to the bound keys (after `@list_key_N` when `after`; `afterWithinTies`
   * when both have the same first key, as `sameFirstKey` tells).
   */
  countUpTo: { first: string; after: string; afterWithinTies: string }
  sameFirstKey: string
  /** The list's rows (after `@list_key_N`), with no upper bound: the last slice. */
  countRest: { first: string; after: string }
  /** The list's change count, as its summary reads it. */
  version: string
  shift?: ListShift
  /** How many sort keys (id last) a row has. */
  keyCount: number
  /** The prefixes of the key parameters and selected key columns. */
  keyColumn: string
  boundColumn: string
}

/**
 * Rows of the scope per slice: each slice is timed, and the next sized to take about
 * `SLICE_TARGET_MS`; the bounds keep a slow filter from walking the whole scope at once and a
 * far page's remainder (at most one slice) short.
 */
const FIRST_SLICE = 128
const MIN_SLICE = 32
const MAX_SLICE = 1024
/**
 * A quarter of a millisecond, half the budget of a turn: a slice's cost varies by the rows it
 * meets (a filter's matches, a young-generation GC falling into it), and the next slice is sized
 * by the last one, so the target leaves room for a slice twice as slow as the one before.
 */
const SLICE_TARGET_MS = 0.25
/** Lists remembered per connection (each entry holds one mark per slice); the oldest go first. */
const MAX_LISTS = 64

const caches = new WeakMap<Connection, Map<string, ListPositions>>()
const pending = new WeakMap<Connection, Map<string, Promise<ListPositions | undefined>>>()

function mapOf<V>(owner: WeakMap<Connection, Map<string, V>>, conn: Connection): Map<string, V> {
  let map = owner.get(conn)
  if (map === undefined) {
    map = new Map()
    owner.set(conn, map)
  }
  return map
}

/**
 * The positions of `list` at `version`, if they were read.
 *
 * @example
 * const positions = positionsAt(conn, list, summary.version)
 */
export function positionsAt(
  conn: Connection,
  list: string,
  version: number,
): ListPositions | undefined {
  const known = caches.get(conn)?.get(list)
  return known !== undefined && known.version === version ? known : undefined
}

/**
 * The last mark at or before `skip`, or undefined when `skip` lies in the first slice.
 *
 * @example
 * const mark = markBefore(positions, 12_345) // { position: 12_288, keys: [...] }
 */
export function markBefore(positions: ListPositions, skip: number): Mark | undefined {
  const { marks } = positions
  let low = 0
  let high = marks.length - 1
  let found: Mark | undefined
  while (low <= high) {
    const middle = (low + high) >> 1
    const mark = marks[middle] as Mark
    if (mark.position <= skip) {
      found = mark
      low = middle + 1
    } else {
      high = middle - 1
    }
  }
  return found
}

/**
 * Reads the positions of `list` in slices (see above) and keeps them; one read per list and
 * version at a time, shared by the requests that wait for it. Undefined when the list changed
 * while it was read, or a key is NULL (a row value with NULL compares to nothing).
 *
 * @example
 * await readPositions(conn, list, statements, params)
 */
export async function readPositions(
  conn: Connection,
  list: string,
  statements: PositionStatements,
  params: Row,
): Promise<ListPositions | undefined> {
  const inFlight = mapOf(pending, conn)
  const version = (conn.statement(statements.version).get(params) as { version: number }).version
  const key = `${version}\u0000${list}`
  let reading = inFlight.get(key)
  if (reading === undefined) {
    reading = slices(conn, statements, params, version).finally(() => inFlight.delete(key))
    inFlight.set(key, reading)
  }
  const positions = await reading
  if (positions !== undefined) remember(mapOf(caches, conn), list, positions)
  return positions
}

async function slices(
  conn: Connection,
  s: PositionStatements,
  params: Row,
  version: number,
): Promise<ListPositions | undefined> {
  const marks: Mark[] = []
  let position = 0
  let after: readonly unknown[] | undefined
  let slice = FIRST_SLICE
  for (;;) {
    await nextTurn()
    if (!conn.db.open) return undefined
    const started = performance.now()
    const afterParams = after === undefined ? {} : keyParams(s.keyColumn, after)
    const which = after === undefined ? 'first' : 'after'
    const boundRow = conn
      .statement(s.bound[which])
      .get({ ...params, ...afterParams, list_offset: slice - 1 }) as Row | undefined
    if (boundRow === undefined) {
      position += countOf(conn, s.countRest[which], { ...params, ...afterParams })
      break
    }
    const bound = Array.from({ length: s.keyCount }, (_, i) => boundRow[`${s.keyColumn}${i}`])
    if (bound.some((k) => k === null || k === undefined)) return undefined
    const rangeParams = { ...params, ...afterParams, ...keyParams(s.boundColumn, bound) }
    const withinTies =
      after !== undefined &&
      (conn.statement(s.sameFirstKey).get(rangeParams) as { same: number }).same === 1
    position += countOf(
      conn,
      withinTies ? s.countUpTo.afterWithinTies : s.countUpTo[which],
      rangeParams,
    )
    marks.push({ position, keys: bound })
    after = bound
    const took = performance.now() - started
    slice = Math.round(
      Math.min(MAX_SLICE, Math.max(MIN_SLICE, (slice * SLICE_TARGET_MS) / Math.max(took, 0.01))),
    )
  }
  const now = (conn.statement(s.version).get(params) as { version: number }).version
  if (now !== version) return undefined
  return s.shift === undefined
    ? { version, total: position, marks, shifted: 0 }
    : { version, total: position, marks, shift: s.shift, shifted: 0 }
}

function countOf(conn: Connection, sql: string, params: Row): number {
  return (conn.statement(sql).get(params) as { n: number }).n
}

/**
 * `{ list_key_0: keys[0], ... }`: the named parameters of a row value.
 *
 * @example
 * keyParams('list_key_', ['orders', 812]) // { list_key_0: 'orders', list_key_1: 812 }
 */
export function keyParams(prefix: string, keys: readonly unknown[]): Row {
  const params: Row = {}
  keys.forEach((key, i) => {
    params[`${prefix}${i}`] = key
  })
  return params
}

/**
 * The positions kept on `conn`, by list.
 *
 * @example
 * for (const [list, positions] of knownPositions(reader)) ...
 */
export function knownPositions(conn: Connection): ReadonlyMap<string, ListPositions> {
  return mapOf(caches, conn)
}

/**
 * Keeps `positions` of `list` (moved to a later version by a write), unless newer ones are kept.
 *
 * @example
 * keepPositions(reader, list, { ...positions, version: 812 })
 */
export function keepPositions(conn: Connection, list: string, positions: ListPositions): void {
  remember(mapOf(caches, conn), list, positions)
}

function remember(cache: Map<string, ListPositions>, list: string, positions: ListPositions): void {
  const known = cache.get(list)
  if (known !== undefined && known.version > positions.version) return
  cache.delete(list)
  cache.set(list, positions)
  if (cache.size > MAX_LISTS) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
}
