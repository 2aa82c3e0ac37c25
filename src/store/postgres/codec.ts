import {
  tableSql,
  type ColumnKinds,
  type ColumnReader,
  type TableCodec,
} from '../tables/columns.js'
import type { Row } from './sql.js'

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

/** node-postgres hands back BOOLEAN columns as booleans and json columns already parsed. */
export const pgReader: ColumnReader = {
  bool: (value) => value === true,
  json: <T>(value: unknown): T => value as T,
}
