import { describe, expect, it, onTestFinished } from 'vitest'
import { openPgPool, type PgPool } from '../../../../src/store/postgres/connection.js'
import { applyPgMigrations } from '../../../../src/store/postgres/migrate.js'
import { pgMigrations } from '../../../../src/store/postgres/migrations/index.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../../helpers/postgres.js'

async function databaseUrl(): Promise<string> {
  const url = await freshPgDatabase()
  if (url === undefined) throw new Error(PG_SKIP_REASON)
  return url
}

function pool(url: string): PgPool {
  const p = openPgPool(url)
  onTestFinished(p.close)
  return p
}

describe.skipIf(!hasPostgres)('PostgreSQL connection and migrations', () => {
  it('applies every migration once, also when two instances start at the same moment', async () => {
    const url = await databaseUrl()
    const [a, b] = [pool(url), pool(url)]
    const versions = pgMigrations.map((m) => m.version)
    const ran = await Promise.all([
      applyPgMigrations(a, pgMigrations),
      applyPgMigrations(b, pgMigrations),
    ])
    expect(ran.flat().sort((x, y) => x - y)).toEqual(versions)
    expect(await applyPgMigrations(a, pgMigrations)).toEqual([])
    const rows = await a.query<{ version: number }>('SELECT version FROM schema_migrations')
    expect(rows.map((r) => r.version)).toEqual(versions)
  })

  it('refuses a database newer than the code, and rolls a failing migration back whole', async () => {
    const p = pool(await databaseUrl())
    await applyPgMigrations(p, pgMigrations)
    await expect(applyPgMigrations(p, pgMigrations.slice(0, -1))).rejects.toThrow(/newer than/)
    const newest = pgMigrations.at(-1)?.version ?? 0
    const broken = [
      ...pgMigrations,
      { version: newest + 1, name: 'fine', sql: 'CREATE TABLE probe_ok (id INTEGER)' },
      { version: newest + 2, name: 'broken', sql: 'CREATE TABLE probe_bad (id NO_SUCH_TYPE)' },
    ]
    await expect(applyPgMigrations(p, broken)).rejects.toThrow(/migration .* \(broken\) failed/)
    const tables = await p.query("SELECT 1 FROM pg_tables WHERE tablename = 'probe_ok'")
    expect(tables).toEqual([])
  })

  it('reads bigint and numeric as numbers, and rolls a failed transaction back', async () => {
    const p = pool(await databaseUrl())
    const [row] = await p.query<{ n: unknown; m: unknown }>(
      'SELECT COUNT(*) AS n, 1.5::numeric AS m FROM generate_series(1, 3)',
    )
    expect(row).toEqual({ n: 3, m: 1.5 })
    await p.query('CREATE TABLE probe (id BIGINT)')
    await expect(
      p.transaction(async (q) => {
        await q.query('INSERT INTO probe VALUES ($1)', [1])
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    expect(await p.query('SELECT * FROM probe')).toEqual([])
    await p.transaction(async (q) => await q.query('INSERT INTO probe VALUES ($1)', [2]))
    expect(await p.query('SELECT id FROM probe')).toEqual([{ id: 2 }])
  })
})
