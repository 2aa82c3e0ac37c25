import {
  tableCodec,
  type ColumnValues,
  type TableCodec,
  type TableSpec,
} from '../tables/columns.js'

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, unknown>

/** SQLite's bool columns are INTEGER 0/1 and its json columns TEXT, parsed here. */
export const sqliteReader: ColumnValues = {
  bool: (value) => value === 1,
  json: <T>(value: unknown): T => JSON.parse(String(value)) as T,
  writeBool: (value) => (value ? 1 : 0),
  writeJson: (value) => JSON.stringify(value),
}

/**
 * The SQLite codec of a table (tables/ describes each).
 *
 * @example
 * const accounts = defineTable(accountTable)
 */
export function defineTable<T>(spec: TableSpec<T>): TableCodec<T> {
  return tableCodec(spec, sqliteReader)
}
