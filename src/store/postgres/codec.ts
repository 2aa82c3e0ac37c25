import {
  tableCodec,
  type ColumnValues,
  type TableCodec,
  type TableSpec,
} from '../tables/columns.js'

/**
 * node-postgres hands back BOOLEAN columns as booleans and json columns already parsed: a string
 * there is a JSON string value (`"connection_reset"`), never JSON text to parse again.
 */
export const pgReader: ColumnValues = {
  bool: (value) => value === true || value === 1,
  json: <T>(value: unknown): T => value as T,
  writeBool: (value) => value,
  writeJson: (value) => JSON.stringify(value),
}

/**
 * The PostgreSQL codec of a table (tables/ describes each).
 *
 * @example
 * const accounts = definePgTable(accountTable)
 */
export function definePgTable<T>(spec: TableSpec<T>): TableCodec<T> {
  return tableCodec(spec, pgReader)
}
