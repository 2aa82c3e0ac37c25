import type { Audit } from '../types.js'

/**
 * How a record field is kept in its column, whatever the dialect: `value` as is, `bool` as the
 * dialect's boolean (INTEGER 0/1 in SQLite, BOOLEAN in PostgreSQL), `json` as JSON text or json.
 */
export type ColumnKind = 'value' | 'bool' | 'json'

/**
 * Every field of `T` with its column kind. The mapped type makes a field added to a record type
 * without a column a compile error where the table's map is written.
 */
export type ColumnKinds<T> = { readonly [K in keyof T]-?: ColumnKind }

/**
 * A table as both stores know it: its name, its key field, every field's column kind, and
 * whether the database generates the key (left out of INSERT).
 */
export interface TableSpec<T> {
  readonly table: string
  readonly key: keyof T & string
  readonly kinds: ColumnKinds<T>
  readonly generatedKey: boolean
}

/** One field of a table: its record field, its snake_case column and how it is kept. */
interface ColumnField<T> {
  readonly field: keyof T & string
  readonly column: string
  readonly kind: ColumnKind
}

/** The SQL both dialects derive from a table's column map (named `@column` parameters). */
interface TableSql<T> {
  readonly fields: ReadonlyArray<ColumnField<T>>
  /** The column list of a SELECT, in field order. */
  readonly columns: string
  /** `INSERT ... RETURNING`, leaving out the generated key when there is one. */
  readonly insertSql: string
  /** `UPDATE ... SET <every column but the key> WHERE <key> = @<key> RETURNING ...`. */
  readonly updateSql: string
}

/**
 * The column list, INSERT and UPDATE of a table, written once from its column map. Column names
 * are the snake_case of the field names (`serviceId` -> `service_id`).
 *
 * @example
 * tableSql<Account>('accounts', 'id', { id: 'value', name: 'value' }, true).insertSql
 * // INSERT INTO accounts (name) VALUES (@name) RETURNING id, name
 */
export function tableSql<T>(
  table: string,
  key: keyof T & string,
  kinds: ColumnKinds<T>,
  generatedKey: boolean,
): TableSql<T> {
  const fields = (Object.keys(kinds) as Array<keyof T & string>).map((field) => ({
    field,
    column: snakeCase(field),
    kind: kinds[field],
  }))
  const keyColumn = snakeCase(key)
  const columns = fields.map((f) => f.column).join(', ')
  const inserted = fields.filter((f) => !(generatedKey && f.field === key))
  const updated = fields.filter((f) => f.field !== key)
  return {
    fields,
    columns,
    insertSql:
      `INSERT INTO ${table} (${inserted.map((f) => f.column).join(', ')}) ` +
      `VALUES (${inserted.map((f) => `@${f.column}`).join(', ')}) RETURNING ${columns}`,
    updateSql:
      `UPDATE ${table} SET ${updated.map((f) => `${f.column} = @${f.column}`).join(', ')} ` +
      `WHERE ${keyColumn} = @${keyColumn} RETURNING ${columns}`,
  }
}

/**
 * `patch`'s own keys among `allowed` whose value is not undefined, over `current`. Callers list
 * what may change explicitly: a request body handed over as a patch must not be able to move a
 * record to another workspace or rewrite its id.
 *
 * @example
 * mergePatch(service, { name: 'b', id: 9 }, ['name', 'description']) // id stays
 */
export function mergePatch<T extends object>(
  current: T,
  patch: object,
  allowed: ReadonlyArray<keyof T & string>,
): T {
  const next = { ...current }
  const source = patch as Partial<T>
  for (const field of allowed) {
    if (Object.hasOwn(patch, field) && source[field] !== undefined) {
      next[field] = source[field] as T[typeof field]
    }
  }
  return next
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** A row as the driver returns it: column name to value. */
export type Row = Record<string, unknown>

/** How a dialect's driver hands back a bool or json column, for row mappers shared by both. */
export interface ColumnReader {
  bool: (value: unknown) => boolean
  json: <T>(value: unknown) => T
}

/** How a dialect's driver takes a bool or json column's value, and hands it back. */
export interface ColumnValues extends ColumnReader {
  writeBool: (value: boolean) => unknown
  writeJson: (value: unknown) => unknown
}

/**
 * The mapping between a record type and its table in one dialect, with the SQL that follows from
 * it written once (see tableSql). Each dialect's codec decides how bool and json columns travel.
 */
export interface TableCodec<T> {
  readonly table: string
  /** The column list of a SELECT, in field order. */
  readonly columns: string
  /** `INSERT ... RETURNING`, leaving out the generated key when there is one. */
  readonly insertSql: string
  /** `UPDATE ... SET <every column but the key> WHERE <key> = @<key> RETURNING ...`. */
  readonly updateSql: string
  decode: (row: Row) => T
  /** Named parameters for insertSql/updateSql: one per column; undefined becomes NULL. */
  encode: (record: Partial<T>) => Row
}

/**
 * The codec of `spec` in one dialect: its SQL (tableSql) and the mapping of its rows, with the
 * dialect's forms of bool and json columns. A field whose value is null or undefined is NULL.
 *
 * @example
 * const accounts = tableCodec(accountTable, sqliteValues)
 */
export function tableCodec<T>(spec: TableSpec<T>, values: ColumnValues): TableCodec<T> {
  const { table } = spec
  const { fields, columns, insertSql, updateSql } = tableSql(
    table,
    spec.key,
    spec.kinds,
    spec.generatedKey,
  )
  return {
    table,
    columns,
    insertSql,
    updateSql,
    decode(row) {
      const out: Record<string, unknown> = {}
      for (const { field, column, kind } of fields) {
        const value = row[column]
        out[field] =
          value === null || value === undefined
            ? null
            : kind === 'bool'
              ? values.bool(value)
              : kind === 'json'
                ? values.json(value)
                : value
      }
      // Every field of T was filled from its column above.
      return out as T
    },
    encode(record) {
      const out: Row = {}
      for (const { field, column, kind } of fields) {
        const value: unknown = record[field]
        out[column] =
          value === null || value === undefined
            ? null
            : kind === 'bool'
              ? values.writeBool(value === true)
              : kind === 'json'
                ? values.writeJson(value)
                : value
      }
      return out
    },
  }
}

/**
 * The row of a new audited record: created and updated now, createdBy and updatedBy the acting
 * user (`by`). Without its id, which the database gives.
 *
 * @example
 * codec.encode(newAudited({ ...fields, by: 'ada@example.com' }, now))
 */
export function newAudited<T extends Audit & { id: number }>(
  input: Omit<T, 'id' | keyof Audit> & { by: string },
  now: number,
): Partial<T> {
  const { by, ...fields } = input
  // T without its id: TypeScript cannot see that through a spread of a generic type.
  return {
    ...fields,
    created: now,
    updated: now,
    createdBy: by,
    updatedBy: by,
  } as unknown as Partial<T>
}

/**
 * The WHERE of a list of a workspace's records, of one service when the filter names it, with
 * its named parameters (the same SQL in both dialects).
 *
 * @example
 * workspaceServiceWhere(1, { serviceId: 3 })
 * // { where: 'workspace_id = @workspaceId AND service_id = @serviceId', params: { workspaceId: 1, serviceId: 3 } }
 */
export function workspaceServiceWhere(
  workspaceId: number,
  filter: { serviceId?: number },
): { where: string; params: Row } {
  if (filter.serviceId === undefined) {
    return { where: 'workspace_id = @workspaceId', params: { workspaceId } }
  }
  return {
    where: 'workspace_id = @workspaceId AND service_id = @serviceId',
    params: { workspaceId, serviceId: filter.serviceId },
  }
}
