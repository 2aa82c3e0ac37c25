import type { Audit, ListQuery, Page } from '../types.js'
import { newAudited, type TableCodec } from '../tables/columns.js'
import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import { pageEndAt, rememberPageEnd, totalAt } from './keyset.js'

/**
 * What a repository works with: a connection (the reader for the store's own repositories, the
 * writer inside `write`), a guard, and the clock.
 */
export interface RepoContext {
  readonly conn: Connection
  /** Throws when the store is closed, or when the `write` these repositories were given to has ended. */
  readonly check: () => void
  /** Epoch milliseconds. */
  readonly now: () => number
}

/** Sort keys a list accepts: field name to SQL expression(s), comma-separated. */
export type SortKeys = Readonly<Record<string, string>>

/** Sort keys every audited resource (services, tags, transactions...) accepts. */
export const auditSortKeys: SortKeys = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  created: 'created',
  updated: 'updated',
  createdBy: 'created_by COLLATE NOCASE',
  updatedBy: 'updated_by COLLATE NOCASE',
}

/** The expressions a list is sorted by, id last, and the direction of all of them. */
interface SortOrder {
  expressions: readonly string[]
  descending: boolean
}

/**
 * The sort of `sort` (`name`, `-updated`; default `id`). Ties are broken by id in the same
 * direction, so that paging is stable and `-x` is exactly the reverse of `x`. Text sorts ignore
 * ASCII case, as a person reading a list expects.
 *
 * An unknown field throws a plain Error: the API validates `sort` against its own list first
 * (src/api/paging.ts), so reaching here with one is a programming error, not a 400.
 *
 * @example
 * sortOrder(auditSortKeys, '-name') // { expressions: ['name COLLATE NOCASE', 'id'], descending: true }
 */
function sortOrder(sortable: SortKeys, sort: string | undefined, idColumn = 'id'): SortOrder {
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

/** The ORDER BY clause of a sort: `name COLLATE NOCASE DESC, id DESC`. */
function orderByClause(order: SortOrder): string {
  const direction = order.descending ? 'DESC' : 'ASC'
  return order.expressions.map((expression) => `${expression} ${direction}`).join(', ')
}

/** One list: a WHERE over a table, counted and paged. */
interface ListSpec<T> {
  select: string
  from: string
  /** Conditions with named parameters (`workspace_id = @workspaceId`). */
  where: string
  params: Row
  sortable: SortKeys
  query: ListQuery
  decode: (row: Row) => T
  /** The tie-breaking id column, qualified when `from` is a join (default `id`). */
  idColumn?: string
  /**
   * A statement (with `params`) that reads without scanning the list one row `{ total, version }`:
   * `version` changes whenever a row the list may hold is inserted, changed or deleted, and
   * `total` is the list's total, or NULL when it must be counted. With it the list is paged by
   * keyset where it can (src/store/sqlite/keyset.ts); without it, by COUNT(*) and OFFSET.
   */
  summary?: string
}

/** Prefix of the sort-key columns a keyset-paged list selects beside its own. */
const KEY_COLUMN = 'list_key_'

/**
 * A page and the total before paging, read in one snapshot so that they agree. `limit` is taken
 * as given (the API caps it); a negative one means no limit, as in SQLite.
 *
 * @example
 * listPage(ctx, { select: 'id, name', from: 'services', where: 'workspace_id = @ws', params: { ws: 1 }, sortable: auditSortKeys, query, decode })
 */
export function listPage<T>(ctx: RepoContext, spec: ListSpec<T>): Page<T> {
  const order = sortOrder(spec.sortable, spec.query.sort, spec.idColumn)
  const countSql = `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`
  const { limit, skip } = spec.query
  const count = (): number => (ctx.conn.statement(countSql).get(spec.params) as { n: number }).n
  if (spec.summary === undefined) {
    const pageSql = `SELECT ${spec.select} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
    return ctx.conn.snapshot(() => {
      const total = count()
      const rows = ctx.conn.statement(pageSql).all({ ...spec.params, limit, skip }) as Row[]
      return { items: rows.map(spec.decode), total }
    })
  }
  const summarySql = spec.summary
  const keys = order.expressions
    .map((expression, i) => `${expression} AS ${KEY_COLUMN}${i}`)
    .join(', ')
  const pageSql = `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
  const list = `${pageSql}\u0000${JSON.stringify(spec.params)}`
  return ctx.conn.snapshot(() => {
    const summary = ctx.conn.statement(summarySql).get(spec.params) as {
      total: number | null
      version: number
    }
    const total =
      summary.total ??
      totalAt(ctx.conn, `${countSql}\u0000${JSON.stringify(spec.params)}`, summary.version, count)
    const end = pageEndAt(ctx.conn, list, skip, summary.version)
    const rows =
      end === undefined
        ? (ctx.conn.statement(pageSql).all({ ...spec.params, limit, skip }) as Row[])
        : (ctx.conn
            .statement(keysetSql(spec, order, keys))
            .all({ ...spec.params, ...keyParams(end.keys), limit }) as Row[])
    const last = rows.at(-1)
    if (last !== undefined && limit > 0) {
      const lastKeys = order.expressions.map((_, i) => last[`${KEY_COLUMN}${i}`])
      rememberPageEnd(ctx.conn, list, skip + rows.length, {
        version: summary.version,
        keys: lastKeys,
      })
    }
    return { items: rows.map(spec.decode), total }
  })
}

/** The page after a row whose sort keys are `@list_key_0...`: a row-value comparison, as portable as it is indexable. */
function keysetSql<T>(spec: ListSpec<T>, order: SortOrder, keys: string): string {
  const after = `(${order.expressions.join(', ')}) ${order.descending ? '<' : '>'} (${order.expressions.map((_, i) => `@${KEY_COLUMN}${i}`).join(', ')})`
  return `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE (${spec.where}) AND ${after} ORDER BY ${orderByClause(order)} LIMIT @limit`
}

function keyParams(keys: readonly unknown[]): Row {
  const params: Row = {}
  keys.forEach((key, i) => {
    params[`${KEY_COLUMN}${i}`] = key
  })
  return params
}

/**
 * A row of `statement.get`, or undefined.
 *
 * @example
 * const row = rowOf(conn.statement('SELECT id FROM accounts WHERE id = ?').get(1))
 */
export function rowOf(value: unknown): Row | undefined {
  return value as Row | undefined
}

/**
 * The row an INSERT/UPDATE ... RETURNING gave; its absence is a bug, not an outcome.
 *
 * @example
 * const row = returnedRow(conn.statement(codec.insertSql).get(params))
 */
export function returnedRow(value: unknown): Row {
  if (value === undefined) throw new Error('the statement returned no row')
  return value as Row
}

/**
 * Inserts a new audited record: created/updated now, createdBy/updatedBy the acting user. Returns
 * it as stored, with its id.
 *
 * @example
 * const asset = insertAudited(ctx, assets, { ...fields, by: 'ada@example.com' })
 */
export function insertAudited<T extends Audit & { id: number }>(
  ctx: RepoContext,
  codec: TableCodec<T>,
  input: Omit<T, 'id' | keyof Audit> & { by: string },
): T {
  const record = newAudited(input, ctx.now())
  return codec.decode(returnedRow(ctx.conn.statement(codec.insertSql).get(codec.encode(record))))
}
