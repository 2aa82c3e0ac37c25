import type { Audit, ListQuery, Page } from '../types.js'
import type { PgQueryable } from './connection.js'
import type { PgRepoContext } from './context.js'

/** A row as node-postgres returns it: column name to value (bigint as number, json parsed, boolean). */
export type PgRow = Record<string, unknown>

/**
 * How a record field is kept in its column: `value` as is, `json` as a `json` column (sent as its
 * text, so that an array is not taken for a PostgreSQL array). Booleans are `boolean` columns and
 * need nothing.
 */
type ColumnKind = 'value' | 'json'

/**
 * The mapping between a record type and its table, with the SQL that follows from it written once.
 * Column names are the snake_case of the field names; parameters are positional, in field order.
 */
export interface PgTable<T> {
  readonly table: string
  /** The column list of a SELECT, in field order. */
  readonly columns: string
  /** `INSERT ... RETURNING`, leaving out the generated key when there is one: its values are `insertValues`. */
  readonly insertSql: string
  /** `UPDATE ... SET <every column but the key> WHERE <key> = $n RETURNING ...`: its values are `updateValues`. */
  readonly updateSql: string
  decode: (row: PgRow) => T
  insertValues: (record: Partial<T>) => unknown[]
  updateValues: (record: T) => unknown[]
}

/**
 * Describes a table. `kinds` must name every field of `T`, so a field added to a record type
 * without a column is a compile error here.
 *
 * @example
 * const sandboxes = definePgTable<Sandbox>('sandboxes', 'workspaceId', { workspaceId: 'value', userId: 'value', transactionId: 'value', opened: 'value' }, false)
 */
export function definePgTable<T>(
  table: string,
  key: keyof T & string,
  kinds: { readonly [K in keyof T]-?: ColumnKind },
  generatedKey: boolean,
): PgTable<T> {
  const fields = (Object.keys(kinds) as Array<keyof T & string>).map((field) => ({
    field,
    column: snakeCase(field),
    kind: kinds[field],
  }))
  const columns = fields.map((f) => f.column).join(', ')
  const inserted = fields.filter((f) => !(generatedKey && f.field === key))
  const updated = fields.filter((f) => f.field !== key)
  const valueOf = (record: Partial<T>, f: (typeof fields)[number]): unknown => {
    const value: unknown = record[f.field]
    if (value === undefined || value === null) return null
    return f.kind === 'json' ? JSON.stringify(value) : value
  }
  return {
    table,
    columns,
    insertSql:
      `INSERT INTO ${table} (${inserted.map((f) => f.column).join(', ')}) ` +
      `VALUES (${inserted.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${columns}`,
    updateSql:
      `UPDATE ${table} SET ${updated.map((f, i) => `${f.column} = $${i + 1}`).join(', ')} ` +
      `WHERE ${snakeCase(key)} = $${updated.length + 1} RETURNING ${columns}`,
    decode(row) {
      const out: Record<string, unknown> = {}
      for (const { field, column } of fields) out[field] = row[column] ?? null
      // Every field of T was filled from its column above.
      return out as T
    },
    insertValues: (record) => inserted.map((f) => valueOf(record, f)),
    updateValues: (record) => [
      ...updated.map((f) => valueOf(record, f)),
      (record as Record<string, unknown>)[key],
    ],
  }
}

/**
 * The one row a statement returned, or undefined.
 *
 * @example
 * const row = await firstRow(ctx.db, 'SELECT * FROM ships WHERE id = $1', [id])
 */
export async function firstRow(
  db: PgQueryable,
  sql: string,
  params: readonly unknown[] = [],
): Promise<PgRow | undefined> {
  return (await db.query<PgRow>(sql, params))[0]
}

/**
 * The row an INSERT/UPDATE ... RETURNING gave; its absence is a bug, not an outcome.
 *
 * @example
 * const row = await returnedRow(ctx.db, table.insertSql, table.insertValues(record))
 */
export async function returnedRow(
  db: PgQueryable,
  sql: string,
  params: readonly unknown[],
): Promise<PgRow> {
  const row = await firstRow(db, sql, params)
  if (row === undefined) throw new Error('the statement returned no row')
  return row
}

/**
 * Inserts a new audited record: created/updated now, createdBy/updatedBy the acting user. Returns
 * it as stored, with its id.
 *
 * @example
 * const asset = await insertAuditedRow(ctx, assets, { ...fields, by: 'ada@example.com' })
 */
export async function insertAuditedRow<T extends Audit & { id: number }>(
  ctx: PgRepoContext,
  table: PgTable<T>,
  input: Omit<T, 'id' | keyof Audit> & { by: string },
): Promise<T> {
  const now = ctx.now()
  const { by, ...fields } = input
  // T without its id: TypeScript cannot see that through a spread of a generic type.
  const record = {
    ...fields,
    created: now,
    updated: now,
    createdBy: by,
    updatedBy: by,
  } as unknown as Partial<T>
  return table.decode(await returnedRow(ctx.db, table.insertSql, table.insertValues(record)))
}

/** Sort keys a list accepts: field name to SQL expression(s), comma-separated. */
export type PgSortKeys = Readonly<Record<string, string>>

/**
 * Sort keys of every audited resource. Text sorts ignore ASCII case, as SQLite's NOCASE does:
 * lower() on a COLLATE "C" column folds ASCII only.
 */
export const pgAuditSortKeys: PgSortKeys = {
  id: 'id',
  name: 'lower(name)',
  created: 'created',
  updated: 'updated',
  createdBy: 'lower(created_by)',
  updatedBy: 'lower(updated_by)',
}

/** One list: a WHERE over a table, counted and paged. */
interface PgListSpec<T> {
  select: string
  from: string
  /** Conditions on positional parameters `$1`... (`workspace_id = $1`). */
  where: string
  params: readonly unknown[]
  sortable: PgSortKeys
  query: ListQuery
  decode: (row: PgRow) => T
}

/** The column the total of a list travels in, beside the page's own. */
const TOTAL = 'list_total_'

/**
 * A page and the total before paging, read by ONE statement, so that they agree whatever writes
 * other instances make meanwhile (each statement reads one snapshot). The page joins a one-row
 * table, so an empty page still carries the total. Ties are broken by id in the same direction,
 * so that paging is stable and `-x` is exactly the reverse of `x`; an unknown sort field is a
 * programming error (the API validates `sort` first). A negative `limit` means no limit.
 *
 * @example
 * await pgListPage(ctx, { select: 'id, name', from: 'assets', where: 'workspace_id = $1', params: [1], sortable: pgAuditSortKeys, query, decode })
 */
export async function pgListPage<T>(ctx: PgRepoContext, spec: PgListSpec<T>): Promise<Page<T>> {
  const descending = spec.query.sort?.startsWith('-') ?? false
  const field =
    spec.query.sort === undefined || spec.query.sort === ''
      ? 'id'
      : spec.query.sort.replace(/^[-+]/, '')
  const expression = Object.hasOwn(spec.sortable, field) ? spec.sortable[field] : undefined
  if (expression === undefined) {
    throw new Error(
      `cannot sort by "${field}": expected one of ${Object.keys(spec.sortable).join(', ')}`,
    )
  }
  const expressions = expression.split(',').map((part) => part.trim())
  if (field !== 'id') expressions.push('id')
  const direction = descending ? 'DESC' : 'ASC'
  const orderBy = expressions.map((e) => `${e} ${direction}`).join(', ')
  const n = spec.params.length
  const sql =
    `SELECT (SELECT count(*) FROM ${spec.from} WHERE ${spec.where}) AS ${TOTAL}, page.* ` +
    `FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT ${spec.select}, true AS list_row_ FROM ${spec.from} ` +
    `WHERE ${spec.where} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}) AS page ON true`
  const limit = spec.query.limit < 0 ? null : spec.query.limit
  const rows = await ctx.db.query<PgRow>(sql, [...spec.params, limit, spec.query.skip])
  const total = Number(rows[0]?.[TOTAL] ?? 0)
  return { items: rows.filter((r) => r['list_row_'] === true).map(spec.decode), total }
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}
