import type { Row } from './sql.js'

/** How a record field is kept in its column: `value` as is, `bool` as BOOLEAN, `json` as json. */
type ColumnKind = 'value' | 'bool' | 'json'

/**
 * The mapping between a record type and its PostgreSQL table, with the SQL that follows from it
 * written once (named `@column` parameters, see sql.ts). Column names are the snake_case of the
 * field names (`serviceId` -> `service_id`), as in the SQLite store.
 */
export interface PgTableCodec<T> {
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
 * Describes a table. `kinds` must name every field of `T`, so a field added to a record type
 * without a column is a compile error here.
 *
 * @example
 * const accounts = definePgTable<Account>('accounts', 'id', { id: 'value', name: 'value', created: 'value', updated: 'value' }, true)
 */
export function definePgTable<T>(
  table: string,
  key: keyof T & string,
  kinds: { readonly [K in keyof T]-?: ColumnKind },
  generatedKey: boolean,
): PgTableCodec<T> {
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
        // node-postgres parses json columns itself: a string here is a JSON string value
        // (`"connection_reset"`), already decoded, never JSON text to parse again.
        out[field] =
          value === null || value === undefined
            ? null
            : kind === 'bool'
              ? value === true || value === 1
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
              : kind === 'json'
                ? JSON.stringify(value)
                : value
      }
      return out
    },
  }
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}
