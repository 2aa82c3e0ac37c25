import type { PgQueryable } from './connection.js'
import {
  MAX_POSITIONS,
  remember,
  type KeptPositions,
  type ListCaches,
  type ListMove,
  type Mark,
  type SortOrder,
} from './list-caches.js'
import { arrivedInto } from './list-arrivals.js'
import { topColumns, topOf } from './list-places.js'
import { all, type Row } from './sql.js'

/*
 * A list's positions: the sort keys of every `POSITION_EVERY`th row of its scope (the workspace),
 * each with how many of the list's rows sort at or before it, and the list's total. A page at
 * `skip` starts after the last mark at or before `skip` and steps over the rest (fewer than a
 * slice of the scope); a filter few rows match, whose marks mostly share one position, has its
 * first page read from the last of them instead of walking the scope for its rows (as SQLite's
 * slices do, list-segments.ts). Read in one statement, once per change count, or moved by this
 * pool's writes at their commit (list-changes.ts) or by the rows other instances wrote
 * (list-arrivals.ts).
 */

/**
 * Rows of the scope between two marks. A far page steps over up to this many rows after its
 * mark: at 1,000 a far filtered page of 50,000 rows cost twice one of 500. A write compares
 * each written row with every mark of each kept list: at 250, a one-row write at 50,000 rows
 * took 5.9 to 6.1 ms against 5.3 to 5.4 ms at 1,000 (bench/README.md, "Lists").
 */
const POSITION_EVERY = 250

/** Prefix of the sort-key columns a keyset-paged list selects beside its own, and of their parameters. */
export const KEY_COLUMN = 'list_key_'

const TYPE_COLUMN = 'list_type_'

/** A list as its positions are read: the spec's statements, its order, the change count. */
export interface Listing {
  spec: { from: string; where: string; scope?: string; params: Row }
  order: SortOrder
  orderBy: string
  version: number
  /** How this pool's writes move the positions, and the scope's change count they are read at. */
  movable: { move?: ListMove; scopeVersion?: number }
}

/**
 * The positions of `listing` at its change count: kept, or read now (and kept).
 *
 * @example
 * const { total, marks } = await positionsOf(q, cachesOf(pool), listing)
 */
export async function positionsOf(
  q: PgQueryable,
  caches: ListCaches,
  listing: Listing,
): Promise<KeptPositions> {
  const known = keptPositionsOf(caches, listing)
  if (known !== undefined) return known
  const key = positionsKey(listing)
  const behind = caches.positions.get(key)
  const arrived =
    behind === undefined
      ? undefined
      : await arrivedInto(q, behind, listing.version, listing.movable.scopeVersion)
  if (arrived !== undefined) {
    remember(caches.positions, key, arrived, MAX_POSITIONS)
    return arrived
  }
  const { spec, order, orderBy } = listing
  const { move } = listing.movable
  // The tops, for the rows inserted or changed after them to be found (list-arrivals.ts).
  const top = move === undefined ? '' : `, ${topColumns(move)}`
  const keys = order.expressions
    .map((e, i) => `${e} AS ${KEY_COLUMN}${i}, pg_typeof(${e})::text AS ${TYPE_COLUMN}${i}`)
    .join(', ')
  // Without a scope the list is its own: every row counts.
  const counted = spec.scope === undefined ? '1' : `CASE WHEN (${spec.where}) THEN 1 ELSE 0 END`
  const rows = await all(
    q,
    `SELECT * FROM (SELECT ${keys}, row_number() OVER w AS scope_position, sum(${counted}) OVER w AS list_position, ` +
      `count(*) OVER () AS scope_rows${top} FROM ${spec.from} WHERE ${spec.scope ?? spec.where} ` +
      `WINDOW w AS (ORDER BY ${orderBy} ROWS UNBOUNDED PRECEDING)) s ` +
      `WHERE scope_position % ${POSITION_EVERY} = 0 OR scope_position = scope_rows ORDER BY scope_position`,
    spec.params,
  )
  const marks = rows.map((row) => ({
    position: Number(row['list_position']),
    keys: order.expressions.map((_, i) => row[`${KEY_COLUMN}${i}`]),
  }))
  const first = rows[0]
  const positions: KeptPositions = {
    version: listing.version,
    total: marks.at(-1)?.position ?? 0,
    marks,
    types:
      first === undefined
        ? []
        : order.expressions.map((_, i) => String(first[`${TYPE_COLUMN}${i}`])),
    shifted: 0,
    ...listing.movable,
    ...topOf(first),
  }
  remember(caches.positions, key, positions, MAX_POSITIONS)
  return positions
}

/**
 * The positions of `listing` kept at its change count, without reading them.
 *
 * @example
 * const positions = keptPositionsOf(caches, listing)
 */
export function keptPositionsOf(caches: ListCaches, listing: Listing): KeptPositions | undefined {
  const kept = caches.positions.get(positionsKey(listing))
  if (kept === undefined || kept.version !== listing.version) return undefined
  seenAt(kept, listing.movable)
  return kept
}

/**
 * Notes that a kept total or positions still holds at the scope's current change count (the
 * list's own count did not move: a write elsewhere in the scope), so that the pool's next write
 * moves it rather than leaving it to be read again.
 *
 * @example
 * seenAt(kept, { move, scopeVersion: 42 })
 */
export function seenAt(
  kept: { move?: ListMove; scopeVersion?: number },
  movable: { scopeVersion?: number },
): void {
  if (kept.move !== undefined && movable.scopeVersion !== undefined) {
    kept.scopeVersion = movable.scopeVersion
  }
}

/**
 * The key of a list's positions: its order, filter and parameters.
 *
 * @example
 * caches.positions.get(positionsKey({ orderBy: 'id ASC', spec }))
 */
export function positionsKey(listing: {
  orderBy: string
  spec: { where: string; params: Row }
}): string {
  return `${listing.orderBy}\u0000${listing.spec.where}\u0000${JSON.stringify(listing.spec.params)}`
}

/**
 * The last mark at or before `skip`.
 *
 * @example
 * const mark = markBefore(positions.marks, 5000)
 */
export function markBefore(marks: readonly Mark[], skip: number): Mark | undefined {
  let found: Mark | undefined
  for (const mark of marks) {
    if (mark.position > skip) break
    found = mark
  }
  return found
}

/**
 * `@list_key_N` parameters of sort keys.
 *
 * @example
 * all(q, keysetSql, { ...params, ...keyParams(mark.keys) })
 */
export function keyParams(keys: readonly unknown[]): Row {
  const params: Row = {}
  keys.forEach((key, i) => {
    params[`${KEY_COLUMN}${i}`] = key
  })
  return params
}
