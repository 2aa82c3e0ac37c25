import type { Connection } from './connection.js'

/*
 * Keyset paging behind `limit`/`skip`. A client walking a list asks for skip 0, 50, 100...; an
 * OFFSET page reads and throws away every row before it, so the walk costs O(rows) per page. When
 * a page of a list ends at position N, the sort keys of its last row are kept here under (the
 * list's statement and parameters, N, the list's change count); a later `skip=N` of the same list,
 * with nothing changed since, continues after those keys instead (`WHERE (keys) > (last keys)`),
 * which reads only the page. Any change makes the ends stale, so `skip=N` always means exactly
 * what OFFSET N means; a far skip that continues no page is read from the list's positions
 * (list-positions.ts), a near one by OFFSET.
 */

/** Where a served page ended. */
interface PageEnd {
  /** The list's change count when the page was read (see 011-transaction-counts.ts). */
  version: number
  /** The sort keys of the page's last row, id last. */
  keys: readonly unknown[]
}

/**
 * Pages remembered per connection. A bound, not a tuning knob: an entry is a few hundred bytes,
 * and a walk needs only its last page's end; the oldest ends go first.
 */
const MAX_ENDS = 512
/** Lists whose statement and parameters are longer (a filter by thousands of ids) are not remembered. */
const MAX_KEY_LENGTH = 4096

const caches = new WeakMap<Connection, Map<string, PageEnd>>()

function cacheOf(conn: Connection): Map<string, PageEnd> {
  let cache = caches.get(conn)
  if (cache === undefined) {
    cache = new Map()
    caches.set(conn, cache)
  }
  return cache
}

/**
 * The end of an earlier page of `list` at position `skip`, still valid at `version`, or undefined.
 *
 * @example
 * const end = pageEndAt(conn, shape, 50, version)
 */
export function pageEndAt(
  conn: Connection,
  list: string,
  skip: number,
  version: number,
): PageEnd | undefined {
  if (skip === 0 || list.length > MAX_KEY_LENGTH) return undefined
  const end = cacheOf(conn).get(`${skip}\u0000${list}`)
  return end !== undefined && end.version === version ? end : undefined
}

/**
 * Remembers that a page of `list` ended at position `skip` with these keys. Keys holding NULL are
 * not remembered: a row-value comparison with NULL selects nothing.
 *
 * @example
 * rememberPageEnd(conn, shape, 100, { version, keys: ['orders', 812] })
 */
export function rememberPageEnd(conn: Connection, list: string, skip: number, end: PageEnd): void {
  if (list.length > MAX_KEY_LENGTH || end.keys.some((key) => key === null || key === undefined)) {
    return
  }
  const cache = cacheOf(conn)
  const key = `${skip}\u0000${list}`
  cache.delete(key)
  cache.set(key, end)
  if (cache.size > MAX_ENDS) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
}

/*
 * Totals of filtered lists (a name, search, tag or dslType filter), which the maintained counts
 * cannot give: counted once per (list, change count) and reused while nothing changes, so that the
 * pages after the first, and the same list asked again, do not count the workspace's rows again.
 */
const MAX_TOTALS = 256
const totalCaches = new WeakMap<Connection, Map<string, { version: number; total: number }>>()

/**
 * Whether the total of `list` at `version` is remembered.
 *
 * @example
 * if (!totalKnownAt(conn, list, summary.version)) await readPositions(...)
 */
export function totalKnownAt(conn: Connection, list: string, version: number): boolean {
  return totalCaches.get(conn)?.get(list)?.version === version
}

/**
 * The total of `list` (its COUNT statement and parameters) at `version`: remembered, or counted
 * now by `count` and remembered.
 *
 * @example
 * const total = totalAt(conn, `${countSql}\u0000${params}`, summary.version, count)
 */
export function totalAt(
  conn: Connection,
  list: string,
  version: number,
  count: () => number,
): number {
  if (list.length > MAX_KEY_LENGTH) return count()
  let cache = totalCaches.get(conn)
  if (cache === undefined) {
    cache = new Map()
    totalCaches.set(conn, cache)
  }
  const known = cache.get(list)
  if (known !== undefined && known.version === version) return known.total
  const total = count()
  cache.delete(list)
  cache.set(list, { version, total })
  if (cache.size > MAX_TOTALS) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
  return total
}
