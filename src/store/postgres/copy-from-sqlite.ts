import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FILE_ID } from '../asset-files.js'
import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import { openDatabase } from '../sqlite/connection.js'
import { DATABASE_FILE, openSqliteStore } from '../sqlite/sqlite-store.js'
import { openPgPool, type PgQueryable } from './connection.js'
import { applyPgMigrations } from './migrate.js'
import { pgMigrations } from './migrations/index.js'

/*
 * `understudy admin migrate --from sqlite:DIR --to postgres://...`: every record of a platform's
 * SQLite store, copied table by table into a PostgreSQL database, in ONE PostgreSQL transaction
 * (a failure leaves the target as it was). The copy is generic over the two schemas: the tables
 * and columns come from the databases themselves, a value is converted by the PostgreSQL type of
 * its column (INTEGER 0/1 to boolean, JSON text to json), parents are written before children
 * (the foreign keys say which), and ids are kept. A table or column of the SQLite store that the
 * PostgreSQL schema does not have stops the copy before anything is written: nothing is dropped
 * silently. The bytes of the asset files under `<data-dir>/assets/` are copied too, into the
 * chunk rows the platform on PostgreSQL reads them from, in the same transaction.
 */

/**
 * Tables that are bookkeeping of one store, not records: never copied. `admin_calls` holds calls
 * in flight to agents, which end within seconds with the platform that made them.
 */
const NOT_RECORDS = new Set([
  'schema_migrations',
  'sqlite_sequence',
  'understudy_scenarios',
  'admin_calls',
  // kept by the target's own triggers as the rows are copied (PostgreSQL migration 13)
  'list_counts',
])

/** Rows per INSERT: one statement takes each column as one array parameter, so any width fits. */
const BATCH_ROWS = 2000

/** Bytes per asset chunk row, as the platform on PostgreSQL writes them (StoredAssetFiles). */
const CHUNK_BYTES = 1 << 20

interface PgColumn {
  name: string
  /** The column's type as PostgreSQL writes it (`bigint`, `json`, `boolean`, `text`...). */
  type: string
  /** Its identity or serial sequence, when it has one. */
  sequence: string | null
}

/** What the copy did: rows per table, parents first, and the target with its password hidden. */
interface CopyReport {
  tables: Array<{ table: string; rows: number }>
  /** Asset files whose bytes were copied, and the ids of those missing from the data dir. */
  assetFiles: { copied: number; bytes: number; missing: string[] }
  target: string
}

interface CopyOptions {
  /** The platform's data dir, holding understudy.db. */
  dataDir: string
  /** postgres://... */
  url: string
  /** Replace what the target's tables hold instead of refusing a target with records. */
  force: boolean
  log?: Logger
}

function fail(message: string): never {
  throw createError('ERR_STORE_FAILED', [message])
}

/**
 * Copies the SQLite store of `dataDir` into the PostgreSQL database of `url`, whose schema it
 * creates or brings up to date first. Refuses a target whose tables hold records unless `force`
 * (then they are emptied in the same transaction). The source is first brought to the current
 * schema (as starting the platform would), then read in one snapshot.
 *
 * @example
 * const report = await copySqliteToPostgres({ dataDir: './data', url: 'postgres://u@db/understudy', force: false })
 */
export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyReport> {
  try {
    return await copy(options)
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ERR_STORE_FAILED') throw err
    // The driver's own errors (refused connection, unknown database, a constraint) in one line.
    fail(
      `the copy into ${redacted(options.url)} failed, nothing was copied: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
}

async function copy(options: CopyOptions): Promise<CopyReport> {
  const file = join(options.dataDir, DATABASE_FILE)
  if (!existsSync(file)) fail(`no SQLite store in ${options.dataDir} (${DATABASE_FILE} is missing)`)
  await (await openSqliteStore({ dataDir: options.dataDir, ...withLog(options.log) })).close()
  const source = openDatabase(file, { readonly: true })
  const pool = openPgPool(options.url)
  try {
    await applyPgMigrations(pool, pgMigrations, options.log)
    const sourceTables = (
      source
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as Array<{ name: string }>
    )
      .map((r) => r.name)
      .filter((name) => !NOT_RECORDS.has(name))
    const targetColumns = await columnsOf(pool)
    const missing = sourceTables.filter((t) => !targetColumns.has(t))
    if (missing.length > 0) {
      fail(`the PostgreSQL schema has no table for ${missing.join(', ')}: nothing was copied`)
    }
    const order = await parentsFirst(pool, sourceTables)
    return await pool.transaction(async (q) => {
      await refuseRecords(q, order, options.force)
      // One snapshot of the source for every table (WAL: writers may go on meanwhile).
      source.exec('BEGIN')
      try {
        const tables: CopyReport['tables'] = []
        for (const table of order) {
          const rows = await copyTable(q, source, table, targetColumns.get(table) ?? [])
          tables.push({ table, rows })
          options.log?.info({ table, rows }, 'table copied')
        }
        await moveSequences(q, source, order, targetColumns)
        const assetFiles = await copyAssetFiles(q, source, options.dataDir)
        options.log?.info(assetFiles, 'asset files copied')
        return { tables, assetFiles, target: redacted(options.url) }
      } finally {
        source.exec('COMMIT')
      }
    })
  } finally {
    source.close()
    await pool.close()
  }
}

/**
 * The bytes of every asset the source's rows name, read one file at a time from its data dir and
 * written as chunk rows. A file missing there (the source store already lacked it) is reported,
 * not a reason to refuse the rest.
 */
async function copyAssetFiles(
  q: PgQueryable,
  source: ReturnType<typeof openDatabase>,
  dataDir: string,
): Promise<CopyReport['assetFiles']> {
  const ids = (
    source.prepare('SELECT DISTINCT file_id FROM assets ORDER BY file_id').all() as Array<{
      file_id: string
    }>
  ).map((r) => r.file_id)
  const dir = join(dataDir, 'assets')
  const report: CopyReport['assetFiles'] = { copied: 0, bytes: 0, missing: [] }
  const created = Date.now()
  for (const fileId of ids) {
    if (!FILE_ID.test(fileId)) {
      report.missing.push(fileId)
      continue
    }
    let bytes: Buffer
    try {
      bytes = await readFile(join(dir, fileId))
    } catch {
      report.missing.push(fileId)
      continue
    }
    // Chunks an earlier forced copy (or a platform) left under that id give way to the source's.
    await q.query('DELETE FROM asset_chunks WHERE file_id = $1', [fileId])
    let seq = 0
    for (let at = 0; at === 0 || at < bytes.byteLength; at += CHUNK_BYTES) {
      await q.query(
        'INSERT INTO asset_chunks (file_id, seq, bytes, created) VALUES ($1, $2, $3, $4)',
        [fileId, seq++, bytes.subarray(at, at + CHUNK_BYTES), created],
      )
    }
    report.copied++
    report.bytes += bytes.byteLength
  }
  return report
}

function withLog(log: Logger | undefined): { log?: Logger } {
  return log === undefined ? {} : { log }
}

/** The target's tables and their columns, in column order. */
async function columnsOf(db: PgQueryable): Promise<Map<string, PgColumn[]>> {
  const rows = await db.query<{
    table: string
    name: string
    type: string
    sequence: string | null
  }>(
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS sequence
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relkind = 'r'
      ORDER BY c.relname, a.attnum`,
  )
  const out = new Map<string, PgColumn[]>()
  for (const r of rows) {
    if (NOT_RECORDS.has(r.table)) continue
    out.set(r.table, [
      ...(out.get(r.table) ?? []),
      { name: r.name, type: r.type, sequence: r.sequence },
    ])
  }
  return out
}

/** `tables` ordered so that every table comes after the tables its foreign keys reference. */
async function parentsFirst(db: PgQueryable, tables: readonly string[]): Promise<string[]> {
  const edges = await db.query<{ child: string; parent: string }>(
    `SELECT DISTINCT c.relname AS child, p.relname AS parent
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.oid <> p.oid`,
  )
  const wanted = new Set(tables)
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set()]))
  for (const { child, parent } of edges) {
    if (wanted.has(child) && wanted.has(parent)) parents.get(child)?.add(parent)
  }
  const order: string[] = []
  const placed = new Set<string>()
  while (order.length < tables.length) {
    const ready = [...parents]
      .filter(([t, ps]) => !placed.has(t) && [...ps].every((p) => placed.has(p)))
      .map(([t]) => t)
      .sort()
    if (ready.length === 0) fail('the PostgreSQL schema has a cycle of foreign keys')
    for (const t of ready) {
      placed.add(t)
      order.push(t)
    }
  }
  return order
}

async function refuseRecords(
  q: PgQueryable,
  tables: readonly string[],
  force: boolean,
): Promise<void> {
  const held: string[] = []
  for (const table of tables) {
    const [row] = await q.query<{ any: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${quoted(table)}) AS any`,
    )
    if (row?.any === true) held.push(table)
  }
  if (held.length === 0) return
  if (!force) {
    fail(
      `the target database already holds records (${held.join(', ')}): nothing was copied; --force replaces them`,
    )
  }
  await q.query(`TRUNCATE ${tables.map(quoted).join(', ')} RESTART IDENTITY CASCADE`)
  // The log of changed transactions names rows that are gone; its numbers keep growing, so that
  // no list read before finds the ones after as its own.
  await q.query('TRUNCATE transaction_changes')
  // TRUNCATE fires no row trigger: the lists it emptied count from none again, their versions
  // still growing so that no remembered page end of a list before it holds after it.
  await q.query('UPDATE list_counts SET total = 0, version = version + 1')
}

/** Copies one table in batches; the number of rows. */
async function copyTable(
  q: PgQueryable,
  source: ReturnType<typeof openDatabase>,
  table: string,
  target: readonly PgColumn[],
): Promise<number> {
  const sourceColumns = (
    source.prepare(`PRAGMA table_info(${quoted(table)})`).all() as Array<{ name: string }>
  ).map((c) => c.name)
  const byName = new Map(target.map((c) => [c.name, c]))
  const lost = sourceColumns.filter((c) => !byName.has(c))
  if (lost.length > 0) {
    fail(`the PostgreSQL table ${table} has no column ${lost.join(', ')}: nothing was copied`)
  }
  const columns = sourceColumns.map((c) => byName.get(c) as PgColumn)
  // Insertion order is the SQLite rowid's, so that a PostgreSQL-only ordering column (an
  // identity standing for the rowid) numbers the rows as SQLite did.
  const withoutRowid = /WITHOUT\s+ROWID/i.test(
    String(
      (source.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string })
        .sql,
    ),
  )
  const rows = source
    .prepare(
      `SELECT ${sourceColumns.map(quoted).join(', ')} FROM ${quoted(table)}${withoutRowid ? '' : ' ORDER BY rowid'}`,
    )
    .raw()
    .iterate() as IterableIterator<unknown[]>
  const insert =
    `INSERT INTO ${quoted(table)} (${columns.map((c) => quoted(c.name)).join(', ')}) ` +
    `SELECT ${columns.map((c, i) => `c${i}::${c.type}`).join(', ')} ` +
    `FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map((_, i) => `c${i}`).join(', ')})`
  let count = 0
  let batch: unknown[][] = columns.map(() => [])
  const flush = async (): Promise<void> => {
    if (batch[0]?.length === 0) return
    await q.query(insert, batch)
    batch = columns.map(() => [])
  }
  for (const row of rows) {
    columns.forEach((column, i) => batch[i]?.push(asText(row[i], column)))
    count++
    if (count % BATCH_ROWS === 0) await flush()
  }
  await flush()
  return count
}

/** A SQLite value as the text PostgreSQL casts to the column's type. */
function asText(value: unknown, column: PgColumn): string | null {
  if (value === null || value === undefined) return null
  if (column.type === 'boolean') return value === 1 || value === true ? 'true' : 'false'
  if (column.type === 'bytea' && value instanceof Uint8Array) {
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`
  }
  // A DSL kept as its UTF-8 bytes (large uploads store them as they came).
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
  return String(value)
}

/**
 * Moves every sequence past the largest id copied, and past the largest SQLite ever handed out
 * (sqlite_sequence remembers ids of deleted rows): an id a client still holds never names a new record.
 */
async function moveSequences(
  q: PgQueryable,
  source: ReturnType<typeof openDatabase>,
  tables: readonly string[],
  columns: ReadonlyMap<string, readonly PgColumn[]>,
): Promise<void> {
  const issued = new Map(
    (
      source.prepare('SELECT name, seq FROM sqlite_sequence').all() as Array<{
        name: string
        seq: number
      }>
    ).map((r) => [r.name, r.seq]),
  )
  // The AUTOINCREMENT key of each SQLite table, the one sqlite_sequence counts for.
  const keys = new Map(
    tables.map((table) => {
      const key = (
        source.prepare(`PRAGMA table_info(${quoted(table)})`).all() as Array<{
          name: string
          pk: number
        }>
      ).find((c) => c.pk === 1)
      return [table, key?.name]
    }),
  )
  for (const table of tables) {
    for (const column of columns.get(table) ?? []) {
      if (column.sequence === null) continue
      const [row] = await q.query<{ max: number | null }>(
        `SELECT max(${quoted(column.name)}) AS max FROM ${quoted(table)}`,
      )
      const last = Math.max(
        row?.max ?? 0,
        keys.get(table) === column.name ? (issued.get(table) ?? 0) : 0,
      )
      // setval(seq, n, false): the next value is n (1 for an empty table).
      await q.query('SELECT setval($1::regclass, $2, false)', [column.sequence, last + 1])
    }
  }
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'the PostgreSQL database'
  }
}
