import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import { keyParams, type ListPositions } from './list-positions.js'

/*
 * A page of a filtered list read between its positions. Two marks of a list's positions bound a
 * slice of the scope's rows (a few hundred, read in about a quarter of a millisecond when the
 * positions were taken), and the difference of their positions is how many of the list's rows
 * the slice holds. A filter few rows match would have its page read in one statement walking
 * the whole scope for them; read here slice by slice, the slices holding none of the page's
 * rows are never read, and the event loop gets a turn between two slices that are.
 */

/** The statements that read the ids and keys of a list's rows within a slice, `LIMIT @limit OFFSET @skip`. */
export interface SegmentStatements {
  /** Up to the mark `@list_bound_N` (after the mark `@list_key_N` when `after`; `afterWithinTies` when both have the same first key). */
  upTo: { first: string; after: string; afterWithinTies: string }
  /** After the last mark, to the end of the list. */
  rest: { first: string; after: string }
  sameFirstKey: string
  /** The list's change count, as its summary reads it. */
  version: string
  keyColumn: string
  boundColumn: string
}

/**
 * The ids and keys of the rows `skip` to `skip + limit` of the list, read slice by slice between
 * its marks, one turn of the event loop per slice read; undefined when the list changed since
 * its positions were read (each read checks the change count in its snapshot).
 *
 * @example
 * const rows = await rowsBetweenMarks(conn, positions, statements, params, 100, 50)
 */
export async function rowsBetweenMarks(
  conn: Connection,
  positions: ListPositions,
  s: SegmentStatements,
  params: Row,
  skip: number,
  limit: number,
): Promise<Row[] | undefined> {
  const { marks } = positions
  const rows: Row[] = []
  let reads = 0
  for (let i = -1; i < marks.length && rows.length < limit; i++) {
    const from = i < 0 ? undefined : marks[i]
    const to = marks[i + 1]
    const wanted = skip + rows.length
    const end = to?.position ?? positions.total
    if (end <= wanted) continue
    if (reads++ > 0) {
      await nextTurn()
      if (!conn.db.open) return undefined
    }
    const read = conn.snapshot(() => {
      const version = (conn.statement(s.version).get(params) as { version: number }).version
      if (version !== positions.version) return undefined
      const which = from === undefined ? 'first' : 'after'
      const bounds: Row = {
        ...params,
        ...(from === undefined ? {} : keyParams(s.keyColumn, from.keys)),
        ...(to === undefined ? {} : keyParams(s.boundColumn, to.keys)),
        limit: limit - rows.length,
        skip: wanted - (from?.position ?? 0),
      }
      if (to === undefined) return conn.statement(s.rest[which]).all(bounds) as Row[]
      const withinTies =
        from !== undefined &&
        (conn.statement(s.sameFirstKey).get(bounds) as { same: number }).same === 1
      return conn
        .statement(withinTies ? s.upTo.afterWithinTies : s.upTo[which])
        .all(bounds) as Row[]
    })
    if (read === undefined) return undefined
    rows.push(...read)
  }
  return rows
}
