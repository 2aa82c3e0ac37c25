import type { KeptPositions, KeptTotal, ListMove, Mark } from './list-caches.js'
import type { Row } from './sql.js'

/*
 * Where rows stand in a kept list: the statements and arithmetic both ways of moving a kept
 * total or positions share, this pool's own writes at their commit (list-changes.ts) and the
 * rows another instance inserted, changed or deleted, found at the next list (list-arrivals.ts).
 */

/** Rows moved into a list's positions since they were read, at most: a slice between two marks gains as many. */
export const MAX_SHIFTED = 256

/** `@name` parameters, as sql.ts finds them (its statements never quote an `@`). */
export const PLACEHOLDER = /@([A-Za-z_][A-Za-z0-9_]*)/g

/**
 * The parameters of `params` that `sql` names.
 *
 * @example
 * usedParams('SELECT 1 WHERE id = @id', { id: 1, other: 2 }) // { id: 1 }
 */
export function usedParams(sql: string, params: Row): Row {
  const used: Row = {}
  for (const [, name] of sql.matchAll(PLACEHOLDER)) {
    if (name !== undefined) used[name] = params[name]
  }
  return used
}

/** How far a kept entry has seen its table: the ids, and the log of changed rows (list-arrivals.ts). */
export interface Tops {
  top?: number
  changeTop?: number
}

/**
 * Columns `list_top`, the table's highest id, and with `move.departures` `list_change_top`, the
 * log's highest sequence number (0 for none): read beside a list's total or positions (or
 * another instance's changes) so that the rows inserted or changed after them can be found
 * (list-arrivals.ts).
 *
 * @example
 * `SELECT COUNT(*) AS n, ${topColumns(move)} FROM ...`
 */
export function topColumns(move: ListMove): string {
  const ids = `(SELECT max(${move.idColumn}) FROM ${move.from}) AS list_top`
  const { departures } = move
  if (departures === undefined) return ids
  return `${ids}, (${changeTopSql(departures.table)}) AS list_change_top`
}

/**
 * The statement of a log of changed rows' highest sequence number (0 for an empty log).
 *
 * @example
 * `SELECT (${changeTopSql('transaction_changes')}) AS list_change_top`
 */
export function changeTopSql(table: string): string {
  return `SELECT coalesce(max(seq), 0) FROM ${table}`
}

/**
 * A kept entry's tops from the row a statement read `topColumns` into (NULL for an empty table:
 * none).
 *
 * @example
 * const kept = { version, total, ...topOf(row) }
 */
export function topOf(row: Row | undefined): Tops {
  const tops: Tops = {}
  const top = row?.['list_top']
  const changeTop = row?.['list_change_top']
  if (top !== null && top !== undefined) tops.top = Number(top)
  if (changeTop !== null && changeTop !== undefined) tops.changeTop = Number(changeTop)
  return tops
}

/**
 * The tops a kept entry holds, to keep with another entry read at the same time.
 *
 * @example
 * const total = { version, total: positions.total, ...keptTops(positions) }
 */
export function keptTops(kept: Tops): Tops {
  const tops: Tops = {}
  if (kept.top !== undefined) tops.top = kept.top
  if (kept.changeTop !== undefined) tops.changeTop = kept.changeTop
  return tops
}

/**
 * Whether every mark of `kept` can be compared with a row: a mark with a NULL key compares with
 * none, and such positions are read again instead of moved.
 *
 * @example
 * if (!comparableMarks(kept)) return undefined
 */
export function comparableMarks(kept: KeptTotal | KeptPositions): boolean {
  if (!('marks' in kept)) return true
  return !kept.marks.some((mark) => mark.keys.some((key) => key === null || key === undefined))
}

/**
 * A statement of one value: for each row of the list that `rows` (a condition on the list's
 * table, or on `source`, a table of the same columns with the list's filter over it, as the log
 * of changed rows) selects, how many of the kept marks sort before it. The marks' keys are bound
 * as one array per key, of the type the key had when they were read, and compared with the
 * row-value comparison the keyset pages use (a row with a NULL key gets NULL: such a list is not
 * moved).
 *
 * @example
 * placesSql(move, kept, 'id = ANY(@list_written::bigint[])') // with placesParams(move, kept)
 */
export function placesSql(
  move: ListMove,
  kept: KeptTotal | KeptPositions,
  rows: string,
  source: { from: string; where: string } = move,
): string {
  const { expressions, descending } = move.order
  const types = 'types' in kept ? kept.types : []
  const place =
    types.length === 0
      ? '0'
      : `CASE WHEN num_nulls(${expressions.join(', ')}) > 0 THEN NULL ELSE ` +
        `(SELECT count(*) FROM unnest(${types.map((type, k) => `@list_marks_${k}::${type}[]`).join(', ')}) ` +
        `m(${types.map((_, k) => `k${k}`).join(', ')}) WHERE (${expressions.join(', ')}) ${descending ? '<' : '>'} ` +
        `(${types.map((_, k) => `m.k${k}`).join(', ')}))::int END`
  return `SELECT array_agg(${place}) FROM ${source.from} WHERE (${source.where}) AND ${rows}`
}

/**
 * The parameters of `placesSql` but those of its `rows`: the list's, and its marks' keys.
 *
 * @example
 * all(q, placesSql(move, kept, rows), { ...placesParams(move, kept), list_written: ids })
 */
export function placesParams(move: ListMove, kept: KeptTotal | KeptPositions): Row {
  const params: Row = {
    ...usedParams(move.where, move.params),
    ...usedParams(move.departures?.where ?? '', move.params),
  }
  const marks = 'marks' in kept ? kept.marks : []
  const types = 'types' in kept ? kept.types : []
  types.forEach((_, k) => {
    params[`list_marks_${k}`] = marks.map((mark) => mark.keys[k])
  })
  return params
}

/**
 * The places a `placesSql` statement read (NULL for none: no row).
 *
 * @example
 * const into = placesOf(row['places'])
 */
export function placesOf(value: unknown): Array<number | null> {
  return ((value ?? []) as Array<number | null>).map((place) =>
    place === null ? null : Number(place),
  )
}

/**
 * `marks` without the rows placed at `out` and with those at `into` (a row placed at i counts in
 * mark i and every one after).
 *
 * @example
 * movedMarks(kept.marks, [], [0, 3]) // two rows entered: one before every mark, one after the third
 */
export function movedMarks(
  marks: readonly Mark[],
  out: ReadonlyArray<number | null>,
  into: ReadonlyArray<number | null>,
): Mark[] {
  const delta = new Array<number>(marks.length + 1).fill(0)
  for (const at of out) delta[at ?? 0] = (delta[at ?? 0] ?? 0) - 1
  for (const at of into) delta[at ?? 0] = (delta[at ?? 0] ?? 0) + 1
  let moving = 0
  return marks.map((mark, i) => {
    moving += delta[i] ?? 0
    return moving === 0 ? mark : { position: mark.position + moving, keys: mark.keys }
  })
}
