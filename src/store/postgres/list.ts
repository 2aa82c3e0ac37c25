import type { ListQuery, Page } from '../types.js'
import type { PgQueryable } from './connection.js'
import type { PgRepoContext } from './context.js'
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

interface SortOrder {
  expressions: readonly string[]
  descending: boolean
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
interface PgListSpec<T> {
  select: string
  from: string
  /** Conditions with named parameters (`workspace_id = @workspaceId`). */
  where: string
  params: Row
  sortable: PgSortKeys
  query: ListQuery
  decode: (row: Row) => T
  idColumn?: string
  /** A statement giving `{ total, version }` without scanning the list: enables keyset paging. */
  summary?: string
}

const KEY_COLUMN = 'list_key_'

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
 * A page and the total before paging, read in one snapshot. `limit` is taken as given (the API
 * caps it); a negative one means no limit. With a `summary`, a walk through the list continues
 * after the last page's keys instead of skipping rows (keyset.ts).
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
  const count = async (q: PgQueryable): Promise<number> =>
    (await one(q, countSql, spec.params))?.['n'] as number
  if (spec.summary === undefined) {
    const pageSql = `SELECT ${spec.select} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
    return await snapshot(ctx.db, async (q) => {
      const total = await count(q)
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
  const caches = cachesOf(ctx.db)
  return await snapshot(ctx.db, async (q) => {
    const summary = (await one(q, summarySql, spec.params)) as {
      total: number | null
      version: number
    }
    let total = summary.total
    if (total === null) {
      const countKey = `${countSql}\u0000${JSON.stringify(spec.params)}`
      const known = caches.totals.get(countKey)
      total =
        known !== undefined && known.version === summary.version ? known.total : await count(q)
      remember(caches.totals, countKey, { version: summary.version, total }, MAX_TOTALS)
    }
    const known = skip === 0 ? undefined : caches.ends.get(`${skip}\u0000${list}`)
    const end = known?.version === summary.version ? known : undefined
    let rows: Row[]
    if (skip >= total) {
      rows = []
    } else if (end !== undefined) {
      rows = await all(q, keysetSql(spec, order, keys, ''), {
        ...spec.params,
        ...keyParams(end.keys),
        limit,
      })
    } else if (skip > NEAR_SKIP) {
      const mark = markBefore(await positionsOf(q, caches, spec, order, summary.version), skip)
      rows =
        mark === undefined
          ? await all(q, pageSql, { ...spec.params, limit, skip })
          : await all(q, keysetSql(spec, order, keys, ' OFFSET @skip'), {
              ...spec.params,
              ...keyParams(mark.keys),
              limit,
              skip: skip - mark.position,
            })
    } else {
      rows = await all(q, pageSql, { ...spec.params, limit, skip })
    }
    const last = rows.at(-1)
    if (last !== undefined && limit !== null && limit > 0) {
      const lastKeys = order.expressions.map((_, i) => last[`${KEY_COLUMN}${i}`])
      if (!lastKeys.some((key) => key === null || key === undefined)) {
        remember(
          caches.ends,
          `${skip + rows.length}\u0000${list}`,
          { version: summary.version, keys: lastKeys },
          MAX_ENDS,
        )
      }
    }
    return { items: rows.map(spec.decode), total }
  })
}

/** The page after a row whose sort keys are `@list_key_N`: a row-value comparison, which PostgreSQL seeks an index with (migration 8's end with id). */
function keysetSql<T>(spec: PgListSpec<T>, order: SortOrder, keys: string, tail: string): string {
  const after = `(${order.expressions.join(', ')}) ${order.descending ? '<' : '>'} (${order.expressions.map((_, i) => `@${KEY_COLUMN}${i}`).join(', ')})`
  return `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE (${spec.where}) AND ${after} ORDER BY ${orderByClause(order)} LIMIT @limit${tail}`
}

/**
 * A far `skip` (one that does not continue the page before) past this is read from the list's
 * positions: its sort keys every `POSITION_EVERY` rows, read once per change count in one
 * statement, so that the database steps over at most that many rows per page instead of `skip`.
 */
const NEAR_SKIP = 1000
const POSITION_EVERY = 1000

interface Mark {
  position: number
  keys: readonly unknown[]
}

async function positionsOf<T>(
  q: PgQueryable,
  caches: ListCaches,
  spec: PgListSpec<T>,
  order: SortOrder,
  version: number,
): Promise<readonly Mark[]> {
  const key = `${orderByClause(order)}\u0000${spec.where}\u0000${JSON.stringify(spec.params)}`
  const known = caches.positions.get(key)
  if (known !== undefined && known.version === version) return known.marks
  const keys = order.expressions.map((e, i) => `${e} AS ${KEY_COLUMN}${i}`).join(', ')
  const rows = await all(
    q,
    `SELECT * FROM (SELECT ${keys}, row_number() OVER (ORDER BY ${orderByClause(order)}) AS list_position ` +
      `FROM ${spec.from} WHERE ${spec.where}) s WHERE list_position % ${POSITION_EVERY} = 0 ORDER BY list_position`,
    spec.params,
  )
  const marks = rows.map((row) => ({
    position: Number(row['list_position']),
    keys: order.expressions.map((_, i) => row[`${KEY_COLUMN}${i}`]),
  }))
  remember(caches.positions, key, { version, marks }, MAX_POSITIONS)
  return marks
}

/** The last mark at or before `skip`. */
function markBefore(marks: readonly Mark[], skip: number): Mark | undefined {
  let found: Mark | undefined
  for (const mark of marks) {
    if (mark.position > skip) break
    found = mark
  }
  return found
}

function keyParams(keys: readonly unknown[]): Row {
  const params: Row = {}
  keys.forEach((key, i) => {
    params[`${KEY_COLUMN}${i}`] = key
  })
  return params
}

/*
 * Page ends and filtered totals remembered per pool (the SQLite store keeps them per connection;
 * see its keyset.ts). Each entry carries the change count it was read at, kept in the database,
 * so an entry is right whichever instance made the change since.
 */
const MAX_ENDS = 512
const MAX_TOTALS = 256
/** Lists whose positions are kept (one mark per 1,000 rows each). */
const MAX_POSITIONS = 64
const MAX_KEY_LENGTH = 4096

interface ListCaches {
  ends: Map<string, { version: number; keys: readonly unknown[] }>
  totals: Map<string, { version: number; total: number }>
  positions: Map<string, { version: number; marks: readonly Mark[] }>
}
const listCaches = new WeakMap<object, ListCaches>()

function cachesOf(db: PgQueryable): ListCaches {
  let caches = listCaches.get(db)
  if (caches === undefined) {
    caches = { ends: new Map(), totals: new Map(), positions: new Map() }
    listCaches.set(db, caches)
  }
  return caches
}

function remember<V>(cache: Map<string, V>, key: string, value: V, max: number): void {
  if (key.length > MAX_KEY_LENGTH) return
  cache.delete(key)
  cache.set(key, value)
  if (cache.size > max) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
}
