import type { ListQuery, Page } from '../types.js'
import type { PgQueryable } from './connection.js'
import type { PgRepoContext } from './context.js'
import {
  cachesOf,
  MAX_ENDS,
  MAX_TOTALS,
  remember,
  type KeptPositions,
  type KeptTotal,
  type ListMove,
  type SortOrder,
} from './list-caches.js'
import {
  KEY_COLUMN,
  keptPositionsOf,
  keyParams,
  markBefore,
  positionsOf,
  seenAt,
  type Listing,
} from './list-positions.js'
import { arrivedInto } from './list-arrivals.js'
import { keptTops, topColumns, topOf } from './list-places.js'
import { all, one, type Row } from './sql.js'

/** Sort keys a list accepts: field name to SQL expression(s), comma-separated. */
export type PgSortKeys = Readonly<Record<string, string>>

/**
 * Sort keys every audited resource (services, tags, transactions...) accepts. Text sorts ignore
 * ASCII case as SQLite's NOCASE does: lower() of a COLLATE "C" column folds ASCII letters only.
 */
export const pgAuditSortKeys: PgSortKeys = {
  id: 'id',
  name: 'lower(name)',
  created: 'created',
  updated: 'updated',
  createdBy: 'lower(created_by)',
  updatedBy: 'lower(updated_by)',
}

/** The sort of `sort` (`name`, `-updated`; default `id`), ties broken by id in the same direction. */
function sortOrder(sortable: PgSortKeys, sort: string | undefined, idColumn = 'id'): SortOrder {
  const descending = sort?.startsWith('-') ?? false
  const field = sort === undefined || sort === '' ? 'id' : sort.replace(/^[-+]/, '')
  const expression = Object.hasOwn(sortable, field) ? sortable[field] : undefined
  if (expression === undefined) {
    throw new Error(
      `cannot sort by "${field}": expected one of ${Object.keys(sortable).join(', ')}`,
    )
  }
  const expressions = expression.split(',').map((part) => part.trim())
  if (field !== 'id') expressions.push(idColumn)
  return { expressions, descending }
}

function orderByClause(order: SortOrder): string {
  const direction = order.descending ? 'DESC' : 'ASC'
  return order.expressions.map((expression) => `${expression} ${direction}`).join(', ')
}

/** One list: a WHERE over a table, counted and paged (see the SQLite store's ListSpec). */
export interface PgListSpec<T> {
  select: string
  from: string
  /** Conditions with named parameters (`workspace_id = @workspaceId`). */
  where: string
  params: Row
  sortable: PgSortKeys
  query: ListQuery
  decode: (row: Row) => T
  idColumn?: string
  /**
   * A statement giving `{ total, version }` without scanning the list: enables keyset paging.
   * With `changes`, it gives the scope's change count too, as `scope_version`.
   */
  summary?: string
  /**
   * For a filter no index serves (a substring): the part of `where` every row the list may hold
   * meets (`t.workspace_id = @workspaceId`). The list's positions then mark every 250th row of
   * it and give the list's total (instead of a COUNT), so that a filter few rows match has its
   * page read from the last mark before its rows instead of walking the scope (list-positions.ts).
   * Without it, the total is counted (an index serves the filter) and the marks are every
   * 250th row of the list.
   */
  scope?: string
  /**
   * The scope's key as writes note it and its change count (`{ version }`, with `params`): with
   * them this pool's small writes move the list's kept total and positions at their commit
   * (list-changes.ts) instead of leaving them to be read again; with `versionRows`, the rows
   * whose changes `summary`'s version counts (`t.workspace_id = @workspaceId`), the next list
   * moves them by the rows other instances inserted since, and with `departures` (the log of
   * the rows as they were before each update or delete) by the rows they changed or deleted
   * (list-arrivals.ts).
   */
  changes?: {
    scope: number
    scopeVersion: string
    versionRows: string
    departures?: { table: string; where: string }
  }
}

/**
 * Runs `fn` with reads that see one snapshot: inside a write, its transaction; otherwise a
 * REPEATABLE READ, READ ONLY transaction of its own, so that a page and its total agree.
 *
 * @example
 * await snapshot(ctx.db, async (q) => [await all(q, countSql), await all(q, pageSql)])
 */
export async function snapshot<T>(db: PgQueryable, fn: (q: PgQueryable) => Promise<T>): Promise<T> {
  if (!('transaction' in db)) return await fn(db)
  const pool = db as PgQueryable & {
    transaction: <U>(fn: (q: PgQueryable) => Promise<U>) => Promise<U>
  }
  return await pool.transaction(async (q) => {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY')
    return await fn(q)
  })
}

/**
 * A far `skip` (one that does not continue the page before) past this is read from the list's
 * positions, so that the database steps over at most a slice of rows per page instead of `skip`.
 */
const NEAR_SKIP = 1000

/**
 * A page and the total before paging, read in one snapshot. `limit` is taken as given (the API
 * caps it); a negative one means no limit. With a `summary`, a walk through the list continues
 * after the last page's keys instead of skipping rows, a far page starts from the list's
 * positions, and a filtered list's total comes from its positions, read once per change count
 * or moved by this pool's writes (list-changes.ts).
 *
 * @example
 * await pgListPage(ctx, { select: 'id, name', from: 'services', where: 'workspace_id = @ws', params: { ws: 1 }, sortable: pgAuditSortKeys, query, decode })
 */
export async function pgListPage<T>(ctx: PgRepoContext, spec: PgListSpec<T>): Promise<Page<T>> {
  const order = sortOrder(spec.sortable, spec.query.sort, spec.idColumn)
  const countSql = `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`
  const { skip } = spec.query
  // PostgreSQL has no negative LIMIT: NULL is "no limit".
  const limit = spec.query.limit < 0 ? null : spec.query.limit
  if (spec.summary === undefined) {
    const pageSql = `SELECT ${spec.select} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
    return await snapshot(ctx.db, async (q) => {
      const total = (await one(q, countSql, spec.params))?.['n'] as number
      const rows = await all(q, pageSql, { ...spec.params, limit, skip })
      return { items: rows.map(spec.decode), total }
    })
  }
  const summarySql = spec.summary
  const keys = order.expressions
    .map((expression, i) => `${expression} AS ${KEY_COLUMN}${i}`)
    .join(', ')
  const pageSql = `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
  const list = `${pageSql}\u0000${JSON.stringify(spec.params)}`
  const countKey = `${countSql}\u0000${JSON.stringify(spec.params)}`
  const caches = cachesOf(ctx.db)
  const move = moveOf(spec, order)
  return await snapshot(ctx.db, async (q) => {
    const summary = (await one(q, summarySql, spec.params)) as {
      total: number | null
      version: number
      scope_version?: number
    }
    const { version } = summary
    const movable = movableAt(move, summary.scope_version)
    const listing = { spec, order, orderBy: orderByClause(order), version, movable }
    let positions: KeptPositions | undefined
    let total = summary.total
    if (total === null) {
      const known = caches.totals.get(countKey)
      if (known !== undefined && known.version === version) {
        seenAt(known, movable)
        total = known.total
      } else if (spec.scope === undefined) {
        const counted = await totalOf(q, spec, known, listing)
        total = counted.total
        remember(caches.totals, countKey, counted, MAX_TOTALS)
      } else {
        // The positions count the list on the way: one read gives its total and its marks.
        positions = await positionsOf(q, caches, listing)
        total = positions.total
        const counted = { version, total, ...movable, ...keptTops(positions) }
        remember(caches.totals, countKey, counted, MAX_TOTALS)
      }
    }
    const known = skip === 0 ? undefined : caches.ends.get(`${skip}\u0000${list}`)
    const end = known?.version === version ? known : undefined
    // The rows the page can hold: a filter's scan stops at the list's last row instead of the scope's.
    const wanted = Math.max(0, limit === null ? total - skip : Math.min(limit, total - skip))
    let rows: Row[]
    if (skip >= total) {
      rows = []
    } else if (end !== undefined) {
      rows = await all(q, keysetSql(spec, order, keys, ''), {
        ...spec.params,
        ...keyParams(end.keys),
        limit: wanted,
      })
    } else {
      if (positions === undefined && (skip > NEAR_SKIP || spec.scope !== undefined)) {
        positions =
          skip > NEAR_SKIP
            ? await positionsOf(q, caches, listing)
            : keptPositionsOf(caches, listing)
      }
      const mark = positions === undefined ? undefined : markBefore(positions.marks, skip)
      rows =
        mark === undefined
          ? await all(q, pageSql, { ...spec.params, limit: wanted, skip })
          : await all(q, keysetSql(spec, order, keys, ' OFFSET @skip'), {
              ...spec.params,
              ...keyParams(mark.keys),
              limit: wanted,
              skip: skip - mark.position,
            })
    }
    const last = rows.at(-1)
    if (last !== undefined && limit !== null && limit > 0) {
      const lastKeys = order.expressions.map((_, i) => last[`${KEY_COLUMN}${i}`])
      if (!lastKeys.some((key) => key === null || key === undefined)) {
        remember(
          caches.ends,
          `${skip + rows.length}\u0000${list}`,
          { version, keys: lastKeys },
          MAX_ENDS,
        )
      }
    }
    return { items: rows.map(spec.decode), total }
  })
}

/**
 * A filtered list's total at the listing's change count: `known` moved by the rows inserted
 * or changed since (list-arrivals.ts), or counted, with the tops it is moved from when it can be.
 */
async function totalOf<T>(
  q: PgQueryable,
  spec: PgListSpec<T>,
  known: KeptTotal | undefined,
  listing: Listing,
): Promise<KeptTotal> {
  const { version, movable } = listing
  const arrived =
    known === undefined ? undefined : await arrivedInto(q, known, version, movable.scopeVersion)
  if (arrived !== undefined) return arrived
  const tops = movable.move === undefined ? '' : `, ${topColumns(movable.move)}`
  const row = await one(
    q,
    `SELECT COUNT(*) AS n${tops} FROM ${spec.from} WHERE ${spec.where}`,
    spec.params,
  )
  return { version, total: row?.['n'] as number, ...movable, ...topOf(row) }
}

/** How this pool's writes move the list's kept total and positions, when the spec says so. */
function moveOf<T>(spec: PgListSpec<T>, order: SortOrder): ListMove | undefined {
  if (spec.changes === undefined || spec.summary === undefined) return undefined
  return {
    scope: spec.changes.scope,
    scopeVersion: spec.changes.scopeVersion,
    listVersion: spec.summary,
    versionRows: spec.changes.versionRows,
    ...(spec.changes.departures === undefined ? {} : { departures: spec.changes.departures }),
    from: spec.from,
    where: spec.where,
    idColumn: spec.idColumn ?? 'id',
    params: spec.params,
    order,
  }
}

/** What a kept entry needs to be moved: how, and the scope's change count it was read at. */
function movableAt(
  move: ListMove | undefined,
  scopeVersion: number | undefined,
): { move?: ListMove; scopeVersion?: number } {
  return move === undefined || scopeVersion === undefined ? {} : { move, scopeVersion }
}

/** The page after a row whose sort keys are `@list_key_N`: a row-value comparison, which PostgreSQL seeks an index with (migration 8's end with id). */
function keysetSql<T>(spec: PgListSpec<T>, order: SortOrder, keys: string, tail: string): string {
  const after = `(${order.expressions.join(', ')}) ${order.descending ? '<' : '>'} (${order.expressions.map((_, i) => `@${KEY_COLUMN}${i}`).join(', ')})`
  return `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE (${spec.where}) AND ${after} ORDER BY ${orderByClause(order)} LIMIT @limit${tail}`
}
