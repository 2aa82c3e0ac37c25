import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import { WrittenRows } from '../shared/written-rows.js'
import { compareKeys, type KeyComparison } from './key-compare.js'
import {
  keepPositions,
  knownPositions,
  type ListPositions,
  type ListShift,
} from './list-positions.js'

/*
 * A list's positions (list-positions.ts) hold for one change count of its scope; read again after
 * every write, a filtered list paid O(rows) of slices after any one-row write. A small write
 * moves them instead, at its commit: each written row the list held before the write is taken
 * out at its old sort keys (every mark at or after them loses one position, the total one row),
 * each row it holds after is put in at its new keys. Where a row stands among the marks is
 * decided in JavaScript (key-compare.ts), the rows' keys and whether the list's filter holds for
 * them are read by one statement per list on each side: the reader still sees the state before
 * the commit, the writer the state after.
 *
 * Exact only when the rows noted are every row the write changed in the scope: the writes note
 * how much each adds to the scope's change count (the triggers of migration 11 and the counted
 * inserts), and the move is made only when the count the writer sees is the reader's plus those
 * notes, and the list's positions were at the reader's count. Anything else (a service's delete
 * cascading to its rows, a write from another connection, more than `MAX_WRITTEN_ROWS` rows) leaves the
 * positions at their old count: they are read again, as before.
 */

/**
 * Rows moved into positions since they were read, at most: each slice of the scope may gain
 * them, and a far page steps over one slice (its cost then stays within about twice a slice's).
 */
const MAX_SHIFTED = 256

/** What the current write on each connection changed. */
const notes = new WeakMap<Connection, WrittenRows>()

/**
 * Starts noting the writes of a transaction on `conn` (forgetting an earlier one's).
 *
 * @example
 * startNoting(writer); db.exec('BEGIN IMMEDIATE')
 */
export function startNoting(conn: Connection): void {
  notes.set(conn, new WrittenRows())
}

/**
 * Notes that rows `ids` of scope `scope` were inserted, changed or deleted, adding `changes` to
 * the scope's change count. Outside a noted write it does nothing.
 *
 * @example
 * noteRowsWritten(conn, workspaceId, [id], 2) // an UPDATE: counted on the old and the new service
 */
export function noteRowsWritten(
  conn: Connection,
  scope: number,
  ids: readonly number[],
  changes: number,
): void {
  notes.get(conn)?.note(scope, ids, changes)
}

/** The lists' positions moved by a write, to keep once it committed. */
export interface MovedPositions {
  /** The change count each scope must have on the reader after the commit. */
  scopes: Map<number, { sql: string; params: Row; version: number }>
  lists: Array<[string, ListPositions]>
}

/**
 * Ends the write's notes and moves, by the rows it wrote, the positions of the lists kept on
 * `reader`. Call it inside the write, before COMMIT; keep what it returns with `keepMoved` after.
 *
 * @example
 * const moved = movePositions(writer, reader); db.exec('COMMIT'); keepMoved(reader, moved)
 */
export function movePositions(writer: Connection, reader: Connection): MovedPositions | undefined {
  const noted = notes.get(writer)
  notes.delete(writer)
  if (noted === undefined || noted.tooMany || noted.count === 0) return undefined
  const known = knownPositions(reader)
  if (known.size === 0) return undefined
  const moved: MovedPositions = { scopes: new Map(), lists: [] }
  const refused = new Set<number>()
  for (const [list, positions] of known) {
    const { shift } = positions
    if (shift === undefined) continue
    const ids = noted.rows.get(shift.scope)
    if (ids === undefined || positions.shifted + ids.size > MAX_SHIFTED) continue
    if (refused.has(shift.scope)) continue
    if (!moved.scopes.has(shift.scope)) {
      const before = versionOf(reader, shift.scopeVersion, shift.params)
      const after = versionOf(writer, shift.scopeVersion, shift.params)
      if (after - before !== noted.changes.get(shift.scope)) {
        refused.add(shift.scope)
        continue
      }
      moved.scopes.set(shift.scope, {
        sql: shift.scopeVersion,
        params: shift.params,
        version: after,
      })
    }
    if (versionOf(reader, shift.listVersion, shift.params) !== positions.version) continue
    const params = { ...shift.params, list_written: JSON.stringify([...ids]) }
    const out = reader.statement(shift.rowsOf).all(params) as Row[]
    const into = writer.statement(shift.rowsOf).all(params) as Row[]
    const version = versionOf(writer, shift.listVersion, shift.params)
    moved.lists.push([list, movedBy(positions, out, into, version, ids.size)])
  }
  return moved.lists.length === 0 ? undefined : moved
}

/**
 * Keeps the positions `movePositions` moved, once the write committed and the reader sees every
 * scope at the change count the write left it (reading it there also brings the reader up to the
 * commit before the next request).
 *
 * @example
 * keepMoved(reader, moved)
 */
export function keepMoved(reader: Connection, moved: MovedPositions): void {
  for (const { sql, params, version } of moved.scopes.values()) {
    if (versionOf(reader, sql, params) !== version) return
  }
  for (const [list, positions] of moved.lists) keepPositions(reader, list, positions)
}

function versionOf(conn: Connection, sql: string, params: Row): number {
  return (conn.statement(sql).get(params) as { version: number }).version
}

/** `positions` without the rows `out` and with the rows `into` (ids and keys as `rowsOf` reads them). */
function movedBy(
  positions: ListPositions,
  out: readonly Row[],
  into: readonly Row[],
  version: number,
  written: number,
): ListPositions {
  const { marks } = positions
  const { comparison, keyColumn } = positions.shift as ListShift
  const keyCount = comparison.collations.length
  // delta[i]: how the positions of mark i and every mark after it move
  const delta = new Array<number>(marks.length + 1).fill(0)
  const place = (row: Row, by: number) => {
    const keys = Array.from({ length: keyCount }, (_, i) => row[`${keyColumn}${i}`])
    const at = firstMarkNotBefore(marks, comparison, keys)
    delta[at] = (delta[at] ?? 0) + by
  }
  for (const row of out) place(row, -1)
  for (const row of into) place(row, 1)
  let moving = 0
  const shiftedMarks = marks.map((mark, i) => {
    moving += delta[i] ?? 0
    return moving === 0 ? mark : { position: mark.position + moving, keys: mark.keys }
  })
  return {
    ...positions,
    version,
    total: positions.total - out.length + into.length,
    marks: shiftedMarks,
    shifted: positions.shifted + written,
  }
}

/** The index of the first mark whose keys are at or after `keys` (a row there counts in its position), or `marks.length`. */
function firstMarkNotBefore(
  marks: ListPositions['marks'],
  comparison: KeyComparison,
  keys: readonly unknown[],
): number {
  let low = 0
  let high = marks.length
  while (low < high) {
    const middle = (low + high) >> 1
    const mark = marks[middle]
    if (mark !== undefined && compareKeys(comparison, mark.keys, keys) < 0) low = middle + 1
    else high = middle
  }
  return low
}
