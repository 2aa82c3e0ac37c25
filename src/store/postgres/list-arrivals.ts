import type { PgQueryable } from './connection.js'
import type { KeptPositions, KeptTotal } from './list-caches.js'
import {
  comparableMarks,
  MAX_SHIFTED,
  movedMarks,
  placesParams,
  placesSql,
  topIdSql,
  usedParams,
} from './list-places.js'
import { one } from './sql.js'

/*
 * Another instance's writes are not noted by this pool, so its kept totals and positions fall
 * behind the list's change count and the next list read them again: at 50,000 rows, 60 to 90 ms
 * of window over the workspace for a filtered list, after every one-row insert made elsewhere.
 * Most writes between two lists are inserts, and inserted rows are the ones with an id above any
 * the table had: the next list finds them instead, in one statement, and moves the entry by them
 * as this pool's own writes do.
 *
 * Exact because every change to a row the list's change count covers adds at least one to it,
 * and an insert exactly one (the counted inserts and the triggers of migration 1), while a row
 * above the entry's `top` is one that arrived since. So the rows above `top` among those the
 * count covers are at most the count's growth, and equal only when nothing else happened: no
 * row the entry held changed or left, and each arrival is all its own change. Anything else (an
 * update, a delete, a row that arrived and changed, an insert whose id was drawn before the
 * entry was read but committed after) leaves the count ahead, and the entry is read again.
 */

/**
 * `kept` moved by the rows inserted since it was read or moved, if they are all that changed
 * the list's rows and it is now at change count `version`; undefined when it must be read again.
 * Reads in `q`'s snapshot, which must be the one `version` and `scopeVersion` were read in.
 *
 * @example
 * const caughtUp = await arrivedInto(q, kept, listing.version, listing.movable.scopeVersion)
 */
export async function arrivedInto<K extends KeptTotal | KeptPositions>(
  q: PgQueryable,
  kept: K,
  version: number,
  scopeVersion: number | undefined,
): Promise<K | undefined> {
  const { move, top } = kept
  if (move === undefined || top === undefined) return undefined
  const shifted = 'shifted' in kept ? kept.shifted : 0
  const growth = version - kept.version
  if (growth <= 0 || shifted + growth > MAX_SHIFTED || !comparableMarks(kept)) return undefined
  const above = `${move.idColumn} > @list_top`
  const row = await one(
    q,
    `SELECT (SELECT version FROM (${move.listVersion}) v) AS list_version, ` +
      `(SELECT count(*) FROM ${move.from} WHERE (${move.versionRows}) AND ${above}) AS arrived, ` +
      `(${topIdSql(move)}) AS top, ` +
      `(${placesSql(move, kept, above)}) AS places`,
    {
      ...usedParams(move.listVersion, move.params),
      ...usedParams(move.versionRows, move.params),
      ...placesParams(move, kept),
      list_top: top,
    },
  )
  if (row === undefined) return undefined
  // The same statement reads the count, so that it and the rows above `top` are of one state.
  if (Number(row['list_version']) !== version) return undefined
  if (Number(row['arrived']) !== growth) return undefined
  const places = ((row['places'] ?? []) as Array<number | null>).map((place) =>
    place === null ? null : Number(place),
  )
  if (places.includes(null)) return undefined
  const moved = {
    ...kept,
    version,
    total: kept.total + places.length,
    top: Math.max(top, Number(row['top'] ?? top)),
    ...(scopeVersion === undefined ? {} : { scopeVersion }),
  }
  if ('marks' in kept) {
    return { ...moved, marks: movedMarks(kept.marks, [], places), shifted: shifted + growth }
  }
  return moved
}
