import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { DATABASE_FILE } from '../../src/store/sqlite/sqlite-store.js'
import { createNamedTransactions, onPostgres, openTestStore, seed } from '../unit/store/fixtures.js'

// Defect 1: a one-row write moves the positions the SQLite store keeps for far pages of each sort
// (src/store/sqlite/list-changes.ts), reading the written rows' keys with one statement per kept
// list on each side of the commit. SQLite planned that statement as a walk of the workspace's
// index, each row tested against the written ids: 2 to 4 ms per statement at 50,000 rows, so a
// one-row write with the eight sorts' positions kept held the event loop for 32 ms. The written
// ids now drive the join: one primary-key lookup per written row.
//
// Defect 2: a transaction list filtered by ids (the bulk actions read their transactions so) was
// planned the same way, a walk of the workspace's index: 2.7 ms at 50,000 rows for a few ids.

const ROWS = 3000
const SORTS = ['name', '-created', 'createdBy', 'id', 'dslType', 'serviceId']

/** Dummy values for every `@name` parameter: enough for SQLite to plan the statement. */
function dummyParams(sql: string): Record<string, unknown> {
  const params: Record<string, unknown> = {}
  for (const [, name] of sql.matchAll(/@([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (name !== undefined) params[name] = name === 'list_written' || name === 'ids' ? '[1]' : 1
  }
  return params
}

/** Each statement reaches `t` (transactions) only by looking its rows up by id. */
function expectLookupsById(dataDir: string, statements: readonly string[]): void {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true })
  try {
    for (const sql of statements) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(dummyParams(sql))
        .map((step) => String((step as { detail: unknown }).detail))
      // Every step over `t` is a search with its rowid bound.
      const ofTransactions = plan.filter((detail) => /\bt\b/.test(detail))
      const shown = `${sql}\n${plan.join('\n')}`
      expect(ofTransactions.length, shown).toBeGreaterThan(0)
      for (const step of ofTransactions) expect(step, shown).toMatch(/^SEARCH t .*\browid=\?\)$/)
    }
  } finally {
    db.close()
  }
}

describe.skipIf(onPostgres)('a one-row write with far pages of every sort kept', () => {
  it('reads the written rows by id, not by walking the workspace, and the lists stay exact', async () => {
    const { store, dataDir } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const write = async (names: readonly string[]) =>
      await createNamedTransactions(store, ws, world.service.id, names)
    await write(Array.from({ length: ROWS }, (_, i) => `GET /orders/${i}`))
    const farPages = async () =>
      await Promise.all(
        SORTS.map(
          async (sort) =>
            await store.transactions.list(ws, {}, { limit: 50, skip: ROWS / 2, sort }),
        ),
      )
    await farPages()

    const prepare = vi.spyOn(Database.prototype, 'prepare')
    onTestFinished(() => prepare.mockRestore())
    await write(['GET /orders/a new one'])
    const moves = prepare.mock.calls
      .map(([sql]) => String(sql))
      .filter((sql) => sql.includes('@list_written'))
    prepare.mockRestore()
    expect(moves.length).toBeGreaterThanOrEqual(SORTS.length)

    expectLookupsById(dataDir, moves)

    const after = await farPages()
    for (const [i, sort] of SORTS.entries()) {
      const fresh = await store.transactions.list(ws, {}, { limit: -1, skip: 0, sort })
      expect(after[i]?.total, sort).toBe(ROWS + 1)
      expect(
        after[i]?.items.map((t) => t.id),
        sort,
      ).toEqual(fresh.items.slice(ROWS / 2, ROWS / 2 + 50).map((t) => t.id))
    }
  })
})

describe.skipIf(onPostgres)('a transaction list filtered by ids', () => {
  it('looks its rows up by id, in or out of a service, and finds exactly them', async () => {
    const { store, dataDir } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const created = await createNamedTransactions(
      store,
      ws,
      world.service.id,
      Array.from({ length: ROWS }, (_, i) => `GET /orders/${i}`),
    )
    const ids = [created[7], created[1200], created[2999]].map(Number)
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    onTestFinished(() => prepare.mockRestore())
    const all = await store.transactions.list(ws, { ids }, { limit: 10, skip: 0, sort: 'name' })
    const inService = await store.transactions.list(
      ws,
      { ids, serviceId: world.service.id },
      { limit: 10, skip: 0 },
    )
    const statements = prepare.mock.calls
      .map(([sql]) => String(sql))
      .filter((sql) => sql.includes('@ids'))
    prepare.mockRestore()
    expect(statements.length).toBeGreaterThanOrEqual(2)
    expectLookupsById(dataDir, statements)
    expect(all.items.map((t) => t.id).sort((a, b) => a - b)).toEqual(ids)
    expect(all.total).toBe(3)
    expect(inService.items.map((t) => t.id).sort((a, b) => a - b)).toEqual(ids)
  })
})
