import type { Audit, ListQuery, Page } from '../types.js'
import type { Row, TableCodec } from './codec.js'
import type { Connection } from './connection.js'

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

/**
 * The ORDER BY of `sort` (`name`, `-updated`; default `id`). Ties are broken by id in the same
 * direction, so that paging is stable and `-x` is exactly the reverse of `x`. Text sorts ignore
 * ASCII case, as a person reading a list expects.
 *
 * An unknown field throws a plain Error: the API validates `sort` against its own list first
 * (src/api/paging.ts), so reaching here with one is a programming error, not a 400.
 *
 * @example
 * orderBy(auditSortKeys, '-name') // 'name COLLATE NOCASE DESC, id DESC'
 */
export function orderBy (sortable: SortKeys, sort: string | undefined, idColumn = 'id'): string {
  const descending = sort?.startsWith('-') ?? false
  const field = sort === undefined || sort === '' ? 'id' : sort.replace(/^[-+]/, '')
  const expression = Object.hasOwn(sortable, field) ? sortable[field] : undefined
  if (expression === undefined) {
    throw new Error(`cannot sort by "${field}": expected one of ${Object.keys(sortable).join(', ')}`)
  }
  const direction = descending ? 'DESC' : 'ASC'
  const parts = expression.split(',').map((part) => `${part.trim()} ${direction}`)
  if (field !== 'id') parts.push(`${idColumn} ${direction}`)
  return parts.join(', ')
}

/** One list: a WHERE over a table, counted and paged. */
export interface ListSpec<T> {
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
}

/**
 * A page and the total before paging, read in one snapshot so that they agree. `limit` is taken
 * as given (the API caps it); a negative one means no limit, as in SQLite.
 *
 * @example
 * listPage(ctx, { select: 'id, name', from: 'services', where: 'workspace_id = @ws', params: { ws: 1 }, sortable: auditSortKeys, query, decode })
 */
export function listPage<T> (ctx: RepoContext, spec: ListSpec<T>): Page<T> {
  const order = orderBy(spec.sortable, spec.query.sort, spec.idColumn)
  const countSql = `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`
  const pageSql = `SELECT ${spec.select} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${order} LIMIT @limit OFFSET @skip`
  return ctx.conn.snapshot(() => {
    const { n } = ctx.conn.statement(countSql).get(spec.params) as { n: number }
    const rows = ctx.conn.statement(pageSql).all({ ...spec.params, limit: spec.query.limit, skip: spec.query.skip }) as Row[]
    return { items: rows.map(spec.decode), total: n }
  })
}

/**
 * A row of `statement.get`, or undefined.
 *
 * @example
 * const row = rowOf(conn.statement('SELECT id FROM accounts WHERE id = ?').get(1))
 */
export function rowOf (value: unknown): Row | undefined {
  return value as Row | undefined
}

/**
 * The row an INSERT/UPDATE ... RETURNING gave; its absence is a bug, not an outcome.
 *
 * @example
 * const row = returnedRow(conn.statement(codec.insertSql).get(params))
 */
export function returnedRow (value: unknown): Row {
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
export function insertAudited<T extends Audit & { id: number }> (
  ctx: RepoContext,
  codec: TableCodec<T>,
  input: Omit<T, 'id' | keyof Audit> & { by: string },
): T {
  const now = ctx.now()
  const { by, ...fields } = input
  // T without its id: TypeScript cannot see that through a spread of a generic type.
  const record = { ...fields, created: now, updated: now, createdBy: by, updatedBy: by } as unknown as Partial<T>
  return codec.decode(returnedRow(ctx.conn.statement(codec.insertSql).get(codec.encode(record))))
}
