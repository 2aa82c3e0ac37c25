/**
 * How a record field is kept in its column: `value` as is (INTEGER, TEXT, or NULL), `bool` as
 * INTEGER 0/1, `json` as TEXT.
 */
type ColumnKind = 'value' | 'bool' | 'json'

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, unknown>

/**
 * The mapping between a record type and its table, with the SQL that follows from it written once.
 * Column names are the snake_case of the field names (`serviceId` -> `service_id`).
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
 * Describes a table. `kinds` must name every field of `T` (the mapped type says so), so a field
 * added to a record type without a column is a compile error here.
 *
 * @example
 * const accounts = defineTable<Account>('accounts', 'id', { id: 'value', name: 'value', created: 'value', updated: 'value' }, true)
 */
export function defineTable<T>(
  table: string,
  key: keyof T & string,
  kinds: { readonly [K in keyof T]-?: ColumnKind },
  generatedKey: boolean,
): TableCodec<T> {
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
    table,
    columns,
    insertSql:
      `INSERT INTO ${table} (${inserted.map((f) => f.column).join(', ')}) ` +
      `VALUES (${inserted.map((f) => `@${f.column}`).join(', ')}) RETURNING ${columns}`,
    updateSql:
      `UPDATE ${table} SET ${updated.map((f) => `${f.column} = @${f.column}`).join(', ')} ` +
      `WHERE ${keyColumn} = @${keyColumn} RETURNING ${columns}`,
    decode(row) {
      const out: Record<string, unknown> = {}
      for (const { field, column, kind } of fields) {
        const value = row[column]
        out[field] =
          value === null || value === undefined
            ? null
            : kind === 'bool'
              ? value === 1
              : kind === 'json'
                ? JSON.parse(String(value))
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
              ? value === true
                ? 1
                : 0
              : kind === 'json'
                ? JSON.stringify(value)
                : value
      }
      return out
    },
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
