import type { PgPool, PgQueryable } from './connection.js'
import {
  keptCachesOf,
  MAX_POSITIONS,
  MAX_TOTALS,
  remember,
  type KeptPositions,
  type KeptTotal,
  type ListCaches,
  type ListMove,
  type Mark,
} from './list-caches.js'
import {
  changeTopSql,
  comparableMarks,
  MAX_SHIFTED,
  movedMarks,
  PLACEHOLDER,
  placesOf,
  placesParams,
  placesSql,
  usedParams,
  type Tops,
} from './list-places.js'
import { all, type Row } from './sql.js'
import { WrittenRows } from '../shared/written-rows.js'

/*
 * A filtered list's total and its positions hold for one change count of its workspace; counted
 * again after every write, the first filtered list after a one-row write read every row of the
 * workspace. A small write of this pool moves them instead, before its COMMIT: one statement on
 * the pool (which still sees the state before the write) and one in the write's transaction (the
 * state after) read, for every kept list, which of the written rows the list holds and, for each,
 * how many of the list's marks sort before it; a write that only inserted rows skips the first
 * (none of them existed). The total moves by the difference of the two counts,
 * each mark by the rows that entered or left the list at or before it. Where a row stands among
 * the marks is decided by PostgreSQL, with the row-value comparison the keyset pages use, so the
 * order (collations included) is the list's own.
 *
 * Exact only when the rows noted are every row the write changed in the workspace: the writes
 * note how much each adds to the workspace's change count (the triggers of migration 1 and the
 * counted inserts), and a list is moved only when the count the write sees is the one the pool
 * saw plus those notes, and the kept entry was read at the pool's count. Anything else (a
 * service's delete cascading to its rows, a write of another instance in between, more than
 * `MAX_WRITTEN_ROWS` rows) leaves the entry at its old count: the next list moves it by the
 * rows inserted, changed or deleted since if it finds them all (list-arrivals.ts), or reads it
 * again. Another instance's caches are not moved here: its next list finds this write the same
 * way, which is why the kept entries moved here keep the log's sequence number after the write.
 */

/**
 * Kept lists one write moves, at most: the ones read or moved last (each costs the write a
 * subquery on both sides; the others are read again when asked for).
 */
const MAX_MOVED = 32

/** What the current write changed, per scope (workspace). */
export class ListWrites extends WrittenRows {
  /** Whether a row that existed before the write was changed or deleted (not only inserted). */
  changedExisting = false
}

/**
 * Notes for a new write.
 *
 * @example
 * const writes = startListWrites()
 */
export function startListWrites(): ListWrites {
  return new ListWrites()
}

/**
 * Notes that rows `ids` of scope `scope` were inserted (`inserted`), or changed or deleted,
 * adding `changes` to the scope's change count. Outside a noted write (`writes` undefined) it
 * does nothing.
 *
 * @example
 * noteRowsWritten(ctx.writes, workspaceId, [id], 2, false) // an UPDATE: counted on the old and the new service
 */
export function noteRowsWritten(
  writes: ListWrites | undefined,
  scope: number,
  ids: readonly number[],
  changes: number,
  inserted: boolean,
): void {
  if (writes === undefined || writes.tooMany || changes === 0) return
  if (!inserted) writes.changedExisting = true
  writes.note(scope, ids, changes)
}

/** The kept lists a write moved, to keep once it committed. */
export interface MovedLists {
  caches: ListCaches
  totals: Array<[string, KeptTotal]>
  positions: Array<[string, KeptPositions]>
}

interface Candidate {
  key: string
  kept: KeptTotal | KeptPositions
  move: ListMove
  marks: readonly Mark[]
  ids: readonly number[]
}

/** What one side (before or after the write) reads of a kept list. */
interface Side {
  scopeVersion: number
  listVersion: number
  /** Per written row the list holds: how many of its marks sort before it (null: not comparable). */
  places: ReadonlyArray<number | null>
  /** The log of changed rows' highest sequence number, with the write's own entries (after it). */
  changeTop?: number
}

/**
 * Moves, by the rows the write noted, the totals and positions kept on `pool`. Call it inside the
 * write, before COMMIT, with the write's transaction as `writer`; keep what it returns with
 * `keepMovedLists` once the write committed. It never fails the write: the writer's statements
 * run in a savepoint, and an error only leaves the lists to be read again.
 *
 * @example
 * const moved = await moveKeptLists(pool, q, writes) // then COMMIT, then keepMovedLists(moved)
 */
export async function moveKeptLists(
  pool: PgPool,
  writer: PgQueryable,
  writes: ListWrites,
): Promise<MovedLists | undefined> {
  if (writes.tooMany || writes.count === 0) return undefined
  const caches = keptCachesOf(pool)
  if (caches === undefined) return undefined
  const candidates = currentOf(keptOf(caches, writes))
  if (candidates.length === 0) return undefined
  // The state before the write, as one statement on the pool (outside the write) sees it; a
  // write that only inserted rows had none of them before: its lists are as they were kept.
  let before: Side[]
  try {
    before = writes.changedExisting
      ? await readSides(pool, candidates)
      : candidates.map(({ kept }) => ({
          scopeVersion: kept.scopeVersion ?? -1,
          listVersion: kept.version,
          places: [],
        }))
  } catch {
    return undefined
  }
  let after: Side[]
  await writer.query('SAVEPOINT list_moves')
  try {
    after = await readSides(writer, candidates)
    await writer.query('RELEASE SAVEPOINT list_moves')
  } catch {
    await writer.query('ROLLBACK TO SAVEPOINT list_moves')
    return undefined
  }
  const moved: MovedLists = { caches, totals: [], positions: [] }
  candidates.forEach((candidate, i) => {
    const out = before[i]
    const into = after[i]
    if (out === undefined || into === undefined) return
    const noted = writes.changes.get(candidate.move.scope) ?? 0
    if (into.scopeVersion - out.scopeVersion !== noted) return
    if (out.listVersion !== candidate.kept.version) return
    if (out.scopeVersion !== candidate.kept.scopeVersion) return
    if (out.places.includes(null) || into.places.includes(null)) return
    const total = candidate.kept.total - out.places.length + into.places.length
    const version = {
      version: into.listVersion,
      scopeVersion: into.scopeVersion,
      ...topAfter(candidate.kept, candidate.ids, into.changeTop),
    }
    if ('marks' in candidate.kept) {
      moved.positions.push([
        candidate.key,
        {
          ...candidate.kept,
          ...version,
          total,
          marks: movedMarks(candidate.marks, out.places, into.places),
          shifted: candidate.kept.shifted + candidate.ids.length,
        },
      ])
    } else {
      moved.totals.push([candidate.key, { ...candidate.kept, ...version, total }])
    }
  })
  return moved.totals.length + moved.positions.length === 0 ? undefined : moved
}

/**
 * Keeps the lists `moveKeptLists` moved, once their write committed.
 *
 * @example
 * keepMovedLists(moved)
 */
export function keepMovedLists(moved: MovedLists | undefined): void {
  if (moved === undefined) return
  for (const [key, total] of moved.totals) remember(moved.caches.totals, key, total, MAX_TOTALS)
  for (const [key, positions] of moved.positions) {
    remember(moved.caches.positions, key, positions, MAX_POSITIONS)
  }
}

/** The kept entries a write may move: movable, of a scope it wrote, not shifted too far. */
function keptOf(caches: ListCaches, writes: ListWrites): Candidate[] {
  const candidates: Candidate[] = []
  const add = (key: string, kept: KeptTotal | KeptPositions, marks: readonly Mark[]) => {
    const { move } = kept
    if (move === undefined || kept.scopeVersion === undefined) return
    const ids = writes.rows.get(move.scope)
    if (ids === undefined) return
    candidates.push({ key, kept, move, marks, ids: [...ids] })
  }
  for (const [key, kept] of caches.totals) add(key, kept, [])
  for (const [key, kept] of caches.positions) {
    const written = writes.rows.get(kept.move?.scope ?? -1)?.size ?? 0
    if (kept.shifted + written > MAX_SHIFTED) continue
    if (!comparableMarks(kept)) continue
    add(key, kept, kept.marks)
  }
  return candidates
}

/**
 * The entries read or moved at the latest change count of their scope this pool knows: an older
 * one is most likely stale (its list is read again anyway), and moving it would cost the write
 * for nothing. Whether that count is still the scope's is checked by the read before the write.
 */
function currentOf(kept: readonly Candidate[]): Candidate[] {
  const latest = new Map<number, number>()
  for (const { move, kept: entry } of kept) {
    const version = entry.scopeVersion ?? -1
    if (version > (latest.get(move.scope) ?? -1)) latest.set(move.scope, version)
  }
  return kept
    .filter(({ move, kept: entry }) => entry.scopeVersion === latest.get(move.scope))
    .slice(-MAX_MOVED)
}

/**
 * Both sides read every candidate in one statement of one row: the change count of each scope
 * and of each distinct list summary once, and each candidate's places, each subquery's
 * parameters renamed apart.
 */
async function readSides(q: PgQueryable, candidates: readonly Candidate[]): Promise<Side[]> {
  if (candidates.length === 0) return []
  const params: Row = {}
  const columns: string[] = []
  const column = (sql: string, values: Row, name: string): string => {
    const prefix = `${name}_`
    for (const [key, value] of Object.entries(values)) params[`${prefix}${key}`] = value
    columns.push(`(${sql.replace(PLACEHOLDER, (_, key: string) => `@${prefix}${key}`)}) AS ${name}`)
    return name
  }
  const versions = new Map<string, string>()
  const versionOf = (sql: string, values: Row): string => {
    const used = usedParams(sql, values)
    const key = `${sql}\u0000${JSON.stringify(used)}`
    let name = versions.get(key)
    if (name === undefined) {
      name = column(`SELECT version FROM (${sql}) v`, used, `v${versions.size}`)
      versions.set(key, name)
    }
    return name
  }
  const changeTops = new Map<string, string>()
  const changeTopOf = (table: string): string => {
    let name = changeTops.get(table)
    if (name === undefined) {
      name = column(changeTopSql(table), {}, `c${changeTops.size}`)
      changeTops.set(table, name)
    }
    return name
  }
  const named = candidates.map((candidate, i) => ({
    changeTop:
      candidate.move.departures === undefined
        ? undefined
        : changeTopOf(candidate.move.departures.table),
    scope: versionOf(candidate.move.scopeVersion, candidate.move.params),
    list: versionOf(candidate.move.listVersion, candidate.move.params),
    places: column(
      placesSql(
        candidate.move,
        candidate.kept,
        `${candidate.move.idColumn} = ANY(@list_written::bigint[])`,
      ),
      { ...placesParams(candidate.move, candidate.kept), list_written: candidate.ids },
      `p${i}`,
    ),
  }))
  const [row] = await all(q, `SELECT ${columns.join(', ')}`, params)
  return named.map((name) => ({
    scopeVersion: Number(row?.[name.scope]),
    listVersion: Number(row?.[name.list]),
    places: placesOf(row?.[name.places]),
    ...(name.changeTop === undefined ? {} : { changeTop: Number(row?.[name.changeTop]) }),
  }))
}

/**
 * The tops once the write's rows are in: the id no row of the table passed, and the log's
 * sequence number with the write's own changes (read after it, `changeTop`), above which
 * another instance's inserts and changes are found (list-arrivals.ts). Unknown if it was
 * unknown before.
 */
function topAfter(
  kept: KeptTotal | KeptPositions,
  ids: readonly number[],
  changeTop: number | undefined,
): Tops {
  if (kept.top === undefined) return {}
  let top = kept.top
  for (const id of ids) if (id > top) top = id
  if (kept.changeTop === undefined || changeTop === undefined) return { top }
  return { top, changeTop: Math.max(kept.changeTop, changeTop) }
}
