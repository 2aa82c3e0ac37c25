import { createError } from '../../errors/index.js'
import type { SqlRunner } from '../shared/runner.js'
import type { PgQueryable } from './connection.js'

/** A row as node-postgres returns it: column name to value. */
export type Row = Record<string, unknown>

/** A statement with `@name` placeholders, turned into PostgreSQL's `$n` and the names in order. */
interface Compiled {
  text: string
  names: string[]
}

/**
 * Compiled statements by text. The texts are built from fixed fragments (columns, filters,
 * whitelisted sort keys), so the cache holds a bounded number of them; past the bound (a search
 * compiles its own) a statement is compiled without being kept.
 */
const compiled = new Map<string, Compiled>()
const MAX_COMPILED = 2048

/** `@name` not inside a quoted literal: the statements here never quote an `@`. */
const PLACEHOLDER = /@([A-Za-z_][A-Za-z0-9_]*)/g

function compile(sql: string): Compiled {
  const known = compiled.get(sql)
  if (known !== undefined) return known
  const names: string[] = []
  const text = sql.replace(PLACEHOLDER, (_, name: string) => {
    let i = names.indexOf(name)
    if (i === -1) i = names.push(name) - 1
    return `$${i + 1}`
  })
  const out = { text, names }
  if (compiled.size < MAX_COMPILED) compiled.set(sql, out)
  return out
}

/**
 * The rows of a statement with named parameters (`WHERE id = @id`), each name bound once however
 * often it appears; undefined binds NULL.
 *
 * @example
 * const rows = await all(db, 'SELECT id FROM services WHERE workspace_id = @ws', { ws: 1 })
 */
export async function all(db: PgQueryable, sql: string, params: Row = {}): Promise<Row[]> {
  const { text, names } = compile(sql)
  const values = names.map((name) => params[name] ?? null)
  if (values.some(holdsNul)) throw nulRefused()
  return await db.query<Row>(text, values)
}

/** PostgreSQL's text cannot hold U+0000 (SQLite's can): such a value is the request's fault, not a server error. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  return Array.isArray(value) && value.some(holdsNul)
}

function nulRefused(): Error {
  return createError('ERR_API_BAD_REQUEST', [
    'text with the NUL character (U+0000) cannot be stored: the platform keeps its records in PostgreSQL, whose text cannot hold it',
  ])
}

/**
 * The first row of a statement with named parameters, or undefined.
 *
 * @example
 * const row = await one(db, 'SELECT id FROM accounts WHERE id = @id', { id: 1 })
 */
export async function one(
  db: PgQueryable,
  sql: string,
  params: Row = {},
): Promise<Row | undefined> {
  return (await all(db, sql, params))[0]
}

/**
 * The row an INSERT/UPDATE ... RETURNING gave; its absence is a bug, not an outcome.
 *
 * @example
 * const row = returned(await one(db, codec.insertSql, codec.encode(record)))
 */
export function returned(row: Row | undefined): Row {
  if (row === undefined) throw new Error('the statement returned no row')
  return row
}

/**
 * The statements written once for both stores (src/store/shared), run on `ctx.db` after checking
 * that the store (or the write) is still open.
 *
 * @example
 * const rows = await pgSqlRunner(ctx)('SELECT id FROM ships WHERE harbor_id = @harborId', { harborId })
 */
export function pgSqlRunner(ctx: { db: PgQueryable; check: () => void }): SqlRunner {
  return async (sql, params) => {
    ctx.check()
    return await all(ctx.db, sql, params)
  }
}
