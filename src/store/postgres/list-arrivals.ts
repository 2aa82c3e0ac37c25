import type { PgQueryable } from './connection.js'
import type { KeptPositions, KeptTotal, ListMove } from './list-caches.js'
import {
  comparableMarks,
  MAX_SHIFTED,
  movedMarks,
  placesOf,
  placesParams,
  placesSql,
  topColumns,
  topOf,
  usedParams,
} from './list-places.js'
import { one } from './sql.js'

/*
 * Another instance's writes are not noted by this pool, so its kept totals and positions fall
 * behind the list's change count and the next list read them again: at 50,000 rows, 60 to 90 ms
 * of window over the workspace for a filtered list, after every one-row write made elsewhere.
 * The next list finds those writes instead, in one statement, and moves the entry by them as
 * this pool's own writes do: the rows inserted since are the ones with an id above any the
 * table had (`top`), and the rows changed or deleted since are in the log of rows as they were
 * before each change (`move.departures`, above `changeTop`). A row leaves the list at the place
 * of its first logged state since (the one the entry holds) and enters it at its current one.
 *
 * Exact because every change to a row the list's change count covers adds to it one for each
 * side it is on (the row before the change, the row after: an insert one, a delete one, an
 * update two, the counted inserts and the triggers of migration 1), and the sides are known:
 * each logged row, the logged row after it or the current one (none after a delete), and an
 * arrival's current row and, if it changed since, its first logged row (its inserted state).
 * So the sides found in the count's rows are at most the count's growth, and equal only when
 * every change since was found. Anything else (a change the log missed, such as a service's
 * delete cascading to its rows, or one logged or inserted with a number drawn before the entry
 * was read but committed after) leaves the count ahead, and the entry is read again. The entry
 * held none of the arrivals: they only enter it.
 */

/**
 * `kept` moved by the rows inserted, changed or deleted since it was read or moved, if they are
 * all that changed the list's rows and it is now at change count `version`; undefined when it
 * must be read again. Reads in `q`'s snapshot, which must be the one `version` and
 * `scopeVersion` were read in.
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
  const { move, top, changeTop } = kept
  if (move === undefined || top === undefined) return undefined
  if (move.departures !== undefined && changeTop === undefined) return undefined
  const shifted = 'shifted' in kept ? kept.shifted : 0
  const growth = version - kept.version
  if (growth <= 0 || shifted + growth > MAX_SHIFTED || !comparableMarks(kept)) return undefined
  const above = `${move.idColumn} > @list_top`
  const changed = changedSql(move, kept)
  const row = await one(
    q,
    `SELECT (SELECT version FROM (${move.listVersion}) v) AS list_version, ` +
      `(SELECT count(*) FROM ${move.from} WHERE (${move.versionRows}) AND ${above}) AS arrived, ` +
      `${topColumns(move)}, (${placesSql(move, kept, above)}) AS places${changed}`,
    {
      ...usedParams(move.listVersion, move.params),
      ...usedParams(move.versionRows, move.params),
      ...placesParams(move, kept),
      list_top: top,
      ...(changeTop === undefined ? {} : { list_change_top: changeTop }),
    },
  )
  if (row === undefined) return undefined
  // The same statement reads the count, so that it and the rows found are of one state.
  if (Number(row['list_version']) !== version) return undefined
  const sides = ['arrived', 'departed', 'redeparted', 'inserted_changed', 'changed'].reduce(
    (sum, name) => sum + Number(row[name] ?? 0),
    0,
  )
  if (sides !== growth) return undefined
  const out = placesOf(row['out_places'])
  const into = [...placesOf(row['places']), ...placesOf(row['in_places'])]
  if (out.includes(null) || into.includes(null)) return undefined
  const tops = topOf(row)
  const moved = {
    ...kept,
    version,
    total: kept.total - out.length + into.length,
    top: Math.max(top, tops.top ?? top),
    ...(changeTop === undefined ? {} : { changeTop: Math.max(changeTop, tops.changeTop ?? 0) }),
    ...(scopeVersion === undefined ? {} : { scopeVersion }),
  }
  if ('marks' in kept) {
    return { ...moved, marks: movedMarks(kept.marks, out, into), shifted: shifted + growth }
  }
  return moved
}

/**
 * The columns of the rows changed or deleted since `kept` was read (none without a log): how
 * many sides of the count's rows they make, and where each the entry held left and entered the
 * list (an arrival enters it with the others, at its current state). A logged row is the state
 * before a change; the state after it is the next logged row of the same id, or the current row
 * (none for a delete).
 */
function changedSql(move: ListMove, kept: KeptTotal | KeptPositions): string {
  const { departures } = move
  if (departures === undefined) return ''
  const log = departures.table
  const since = 'seq > @list_change_top'
  const id = `t.${move.idColumn}`
  // The first logged state of its row since: the one the entry holds, or an arrival's inserted one.
  const first = `NOT EXISTS (SELECT 1 FROM ${log} e WHERE e.id = t.id AND e.${since} AND e.seq < t.seq)`
  const held = `${id} <= @list_top`
  const changedIds = `SELECT e.id FROM ${log} e WHERE e.${since}`
  const logged = { from: `${log} t`, where: departures.where }
  const counted = (from: string, rows: string): string =>
    `(SELECT count(*) FROM ${from} WHERE (${move.versionRows}) AND ${rows})`
  return (
    `, ${counted(`${log} t`, `t.${since}`)} AS departed` +
    `, ${counted(`${log} t`, `t.${since} AND NOT ${first}`)} AS redeparted` +
    `, ${counted(`${log} t`, `t.${since} AND ${first} AND t.id > @list_top`)} AS inserted_changed` +
    `, ${counted(move.from, `${held} AND ${id} IN (${changedIds})`)} AS changed` +
    `, (${placesSql(move, kept, `t.${since} AND ${first} AND t.id <= @list_top`, logged)}) AS out_places` +
    `, (${placesSql(move, kept, `${held} AND ${id} IN (${changedIds})`)}) AS in_places`
  )
}
