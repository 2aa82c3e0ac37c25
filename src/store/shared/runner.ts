/** A row as either driver returns it: column name to value. */
export type SqlRow = Record<string, unknown>

/**
 * Runs one statement written once for both stores: `@name` placeholders, and only SQL that SQLite
 * and PostgreSQL read alike (INSERT ... ON CONFLICT ... RETURNING, DELETE ... RETURNING). Each
 * store makes one over its connection (src/store/sqlite/repositories.ts, src/store/postgres/
 * repositories.ts) and checks there that the store is open.
 */
export type SqlRunner = (sql: string, params?: SqlRow) => Promise<SqlRow[]>

/** `@p0, @p1, ...` for a list of values, and the parameters they bind. */
export function listParams(
  values: readonly unknown[],
  prefix = 'p',
): { placeholders: string; params: SqlRow } {
  const params: SqlRow = {}
  values.forEach((value, i) => (params[`${prefix}${i}`] = value))
  return { placeholders: values.map((_, i) => `@${prefix}${i}`).join(', '), params }
}

/** A number column as either driver hands it back (node-postgres's bigint parser already gives numbers). */
export function num(value: unknown): number {
  return Number(value)
}
