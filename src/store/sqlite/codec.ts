import {
  tableSql,
  type ColumnKinds,
  type ColumnReader,
  type TableCodec,
} from '../tables/columns.js'

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, unknown>

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
  kinds: ColumnKinds<T>,
  generatedKey: boolean,
): TableCodec<T> {
  const { fields, columns, insertSql, updateSql } = tableSql(table, key, kinds, generatedKey)
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

/** SQLite's bool columns are INTEGER 0/1 and its json columns TEXT, parsed here. */
export const sqliteReader: ColumnReader = {
  bool: (value) => value === 1,
  json: <T>(value: unknown): T => JSON.parse(value as string) as T,
}
