import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished } from 'vitest'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { openSqliteStore } from '../../../src/store/index.js'
import { migrations, type Migration } from '../../../src/store/migrations/index.js'
import { applyMigrations, appliedMigrations } from '../../../src/store/sqlite/migrate.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { BY, mockServiceInput, onPostgres, openTestStore, realisticDsl, seed } from './fixtures.js'

const dbFile = (dataDir: string) => join(dataDir, 'understudy.db')

/** A raw connection to the store's file. */
function raw(dataDir: string): Database.Database {
  const db = new Database(dbFile(dataDir))
  db.pragma('foreign_keys = ON')
  return db
}

/** One past the newest real migration, so that these tests hold whatever migrations are added. */
const NEXT = Math.max(...migrations.map((m) => m.version)) + 1
const addColor: Migration = {
  version: NEXT,
  name: 'tag color',
  sql: "ALTER TABLE tags ADD COLUMN color TEXT NOT NULL DEFAULT 'grey'",
}

/** The SQLite store's own: its file, its pragmas, its migration runner. */
const sqliteOnly = onPostgres ? describe.skip : describe

describe('on either store', () => {
  it('keeps the data across close and reopen, at the same schema version', async () => {
    const { store, reopen } = await openTestStore()
    const world = await seed(store)
    const txn = await store.transactions.create({
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 't',
      description: 'd',
      tags: ['a, "b"'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, { status: 'RUNNING', port: 4321 }),
    )
    const version = await store.schemaVersion()
    await store.close()

    const reopened = await reopen()
    expect(await reopened.transactions.get(world.workspace.id, txn.id)).toEqual(txn)
    expect(await reopened.mockServices.listByStatus(['RUNNING'])).toEqual([mock])
    expect(await reopened.users.getByEmail(BY)).toEqual(world.user)
    expect(await reopened.schemaVersion()).toBe(version)
  })

  it('deletes a whole workspace, mock services and all, in one statement', async () => {
    const { store, sql } = await openTestStore()
    const world = await seed(store)
    await store.transactions.create({
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 't',
      description: null,
      tags: ['a'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    await store.trackings.create({
      trackingId: 't1',
      workspaceId: world.workspace.id,
      mockServiceId: mock.id,
      action: 'deploy',
      status: 'PENDING',
      errors: [],
      warnings: [],
      createdBy: BY,
    })
    await store.close()
    // Mock services block the deletion of their service (NO ACTION): checked at the end of the
    // statement, by when the workspace's cascade has removed them too.
    await sql(`DELETE FROM workspaces WHERE id = ${world.workspace.id}`)
    const count = async (table: string) =>
      await sql(`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${table}`)
    expect([
      await count('transactions'),
      await count('transaction_tags'),
      await count('mock_services'),
      await count('trackings'),
    ]).toEqual([[{ n: 0 }], [{ n: 0 }], [{ n: 0 }], [{ n: 0 }]])
    // The other workspace's service is untouched.
    expect(await count('services')).toEqual([{ n: 1 }])
  })
})

sqliteOnly('opening a SQLite store', () => {
  it('creates the data dir, a WAL database at the newest schema version, with foreign keys on', async () => {
    const dataDir = join(tempDir(), 'nested', 'data')
    const store = await openSqliteStore({ dataDir })
    try {
      expect(await store.schemaVersion()).toBe(migrations.at(-1)?.version)
    } finally {
      await store.close()
    }
    const db = raw(dataDir)
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)?.version)
      expect(appliedMigrations(db).map((m) => [m.version, m.name])).toEqual(
        migrations.map((m) => [m.version, m.name]),
      )
    } finally {
      db.close()
    }
  })

  it('re-applies no migration when reopened', async () => {
    const dataDir = tempDir()
    await (await openSqliteStore({ dataDir })).close()
    const before = appliedMigrations(withRaw(dataDir))
    await (await openSqliteStore({ dataDir })).close()
    expect(appliedMigrations(withRaw(dataDir))).toEqual(before)
  })

  it('refuses a database from a newer Understudy', async () => {
    const dataDir = tempDir()
    await (await openSqliteStore({ dataDir })).close()
    const db = raw(dataDir)
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, ?, 0)').run(
      'from the future',
    )
    db.close()
    await expect(openSqliteStore({ dataDir })).rejects.toSatisfy(
      (err) => isUnderstudyError(err, 'ERR_STORE_FAILED') && /schema version 99/.test(err.message),
    )
  })

  it('reports a data dir it cannot use as ERR_STORE_FAILED', async () => {
    const file = join(tempDir(), 'a-file')
    await (await import('node:fs/promises')).writeFile(file, 'not a directory')
    await expect(openSqliteStore({ dataDir: file })).rejects.toSatisfy((err) =>
      isUnderstudyError(err, 'ERR_STORE_FAILED'),
    )
  })
})

sqliteOnly('applyMigrations (SQLite)', () => {
  it('applies nothing to an up-to-date database', async () => {
    const dataDir = tempDir()
    await (await openSqliteStore({ dataDir })).close()
    const db = withRaw(dataDir)
    expect(applyMigrations(db, migrations)).toEqual([])
  })

  it('brings an old database up to a newer migration, keeping its data', async () => {
    const { store, dataDir } = await openTestStore()
    const world = await seed(store)
    const tag = await store.tags.create({
      accountId: world.account.id,
      name: 'smoke',
      description: null,
      by: BY,
    })
    await store.close()

    const db = withRaw(dataDir)
    expect(applyMigrations(db, [...migrations, addColor])).toEqual([NEXT])
    expect(applyMigrations(db, [...migrations, addColor])).toEqual([])
    expect(db.prepare('SELECT name, color FROM tags WHERE id = ?').get(tag.id)).toEqual({
      name: 'smoke',
      color: 'grey',
    })
    expect(db.pragma('user_version', { simple: true })).toBe(NEXT)
    expect(appliedMigrations(db).map((m) => m.version)).toEqual([
      ...migrations.map((m) => m.version),
      NEXT,
    ])
  })

  it('leaves the database at the previous version when a migration fails half-way', () => {
    const db = new Database(':memory:')
    applyMigrations(db, migrations)
    const broken: Migration = {
      version: NEXT,
      name: 'broken',
      sql: 'CREATE TABLE half (x INTEGER); SELECT * FROM no_such_table;',
    }
    expect(() => applyMigrations(db, [...migrations, broken])).toThrow(
      new RegExp(`migration ${NEXT} \\(broken\\) failed`),
    )
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined()
    expect(appliedMigrations(db).map((m) => m.version)).toEqual(migrations.map((m) => m.version))
    expect(db.pragma('user_version', { simple: true })).toBe(NEXT - 1)
    db.close()
  })

  it('runs a table rebuild with foreign keys off, and refuses one that breaks them', () => {
    const db = new Database(':memory:')
    db.pragma('foreign_keys = ON')
    applyMigrations(db, [
      {
        version: 1,
        name: 'init',
        sql: 'CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id) ON DELETE CASCADE); INSERT INTO p VALUES (1); INSERT INTO c VALUES (1);',
      },
    ])
    const rebuild: Migration = {
      version: 2,
      name: 'rebuild p',
      rebuildsTables: true,
      sql: 'CREATE TABLE p_new (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO p_new (id) SELECT id FROM p; DROP TABLE p; ALTER TABLE p_new RENAME TO p;',
    }
    const init = { version: 1, name: 'init', sql: '' }
    expect(applyMigrations(db, [init, rebuild])).toEqual([2])
    // With foreign keys on, DROP TABLE p would have cascaded to c.
    expect(db.prepare('SELECT COUNT(*) AS n FROM c').get()).toEqual({ n: 1 })
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    const breaking: Migration = {
      version: 3,
      name: 'orphan',
      rebuildsTables: true,
      sql: 'DELETE FROM p',
    }
    expect(() => applyMigrations(db, [init, rebuild, breaking])).toThrow(/break foreign keys/)
    expect(db.prepare('SELECT COUNT(*) AS n FROM p').get()).toEqual({ n: 1 })
    db.close()
  })

  it('refuses out-of-order lists and a migration missing below the applied version', () => {
    const db = new Database(':memory:')
    expect(() =>
      applyMigrations(db, [
        { ...addColor, version: 2 },
        { ...addColor, version: 1 },
      ]),
    ).toThrow(/strictly increasing/)
    applyMigrations(db, [{ version: 2, name: 'two', sql: 'CREATE TABLE t (x INTEGER)' }])
    expect(() =>
      applyMigrations(db, [
        { version: 1, name: 'one', sql: '' },
        { version: 2, name: 'two', sql: '' },
      ]),
    ).toThrow(/missing/)
    db.close()
  })
})

/** A raw connection to the store's file, closed when the test finishes. */
function withRaw(dataDir: string): Database.Database {
  const db = raw(dataDir)
  onTestFinished(() => {
    db.close()
  })
  return db
}
