import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ListQuery, Store, TransactionFilter } from '../../../src/store/index.js'
import { DATABASE_FILE } from '../../../src/store/sqlite/sqlite-store.js'
import {
  BY,
  createNamedTransactions as bulk,
  plainDsl as dsl,
  onPostgres,
  openTestStore,
  realisticDsl,
  seed,
} from './fixtures.js'
import { seededRandom } from '../../helpers/seeded-random.js'

/*
 * Transaction lists read their total from counts kept by triggers and continue a walk by keyset
 * (src/store/sqlite/keyset.ts): both must give exactly what COUNT(*) and OFFSET give.
 */

/** Every id of a list, read as one page. */
async function allIds(
  store: Store,
  workspaceId: number,
  filter: TransactionFilter,
  sort?: string,
): Promise<number[]> {
  const page = await store.transactions.list(workspaceId, filter, {
    limit: -1,
    skip: 0,
    ...(sort === undefined ? {} : { sort }),
  })
  return page.items.map((t) => t.id)
}

/** The ids of a walk through a list, page after page, as a client pages with skip. */
async function walk(
  store: Store,
  workspaceId: number,
  filter: TransactionFilter,
  query: Omit<ListQuery, 'skip'>,
): Promise<number[]> {
  const ids: number[] = []
  for (let skip = 0; ; skip += query.limit) {
    const page = await store.transactions.list(workspaceId, filter, { ...query, skip })
    ids.push(...page.items.map((t) => t.id))
    if (page.items.length < query.limit) return ids
    if (ids.length > page.total) {
      throw new Error(`the walk gave ${ids.length} rows of ${page.total}`)
    }
  }
}

async function totalOf(
  store: Store,
  workspaceId: number,
  filter: TransactionFilter = {},
): Promise<number> {
  return (await store.transactions.list(workspaceId, filter, { limit: 1, skip: 0 })).total
}

/** Every sort a transaction list accepts (each has an index in the list's order). */
const SORTS = ['id', 'name', 'created', 'updated', 'createdBy', 'updatedBy', 'serviceId', 'dslType']

describe('transaction list totals', () => {
  it('stay exact through create, bulk insert, update, move, delete, bulk delete and a service delete', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const pets = world.service.id
    const orders = (
      await store.write(
        async (tx) =>
          await tx.services.create({ workspaceId: ws, name: 'orders', description: null, by: BY }),
      )
    ).id
    expect(await totalOf(store, ws)).toBe(0)

    const one = await store.write(
      async (tx) =>
        await tx.transactions.create({
          workspaceId: ws,
          serviceId: pets,
          name: 'one',
          description: null,
          dslType: 'GENERIC_DSL',
          dsl: realisticDsl(),
          tags: ['a'],
          by: BY,
        }),
    )
    const many = await bulk(
      store,
      ws,
      orders,
      Array.from({ length: 120 }, (_, i) => `order ${i}`),
    )
    await bulk(store, world.otherWorkspace.id, world.otherService.id, ['elsewhere'])
    expect(await totalOf(store, ws)).toBe(121)
    expect(await totalOf(store, ws, { serviceId: pets })).toBe(1)
    expect(await totalOf(store, ws, { serviceId: orders })).toBe(120)
    expect(await totalOf(store, world.otherWorkspace.id)).toBe(1)

    await store.write(
      async (tx) => await tx.transactions.update(ws, one.id, { name: 'renamed', by: BY }),
    )
    await store.write(
      async (tx) =>
        await tx.transactions.update(ws, many[0] as number, { serviceId: pets, by: BY }),
    )
    expect(await totalOf(store, ws)).toBe(121)
    expect(await totalOf(store, ws, { serviceId: pets })).toBe(2)
    expect(await totalOf(store, ws, { serviceId: orders })).toBe(119)

    await store.write(async (tx) => await tx.transactions.delete(ws, one.id))
    await store.write(async (tx) => await tx.transactions.deleteMany(ws, many.slice(1, 11)))
    expect(await totalOf(store, ws)).toBe(110)
    expect(await totalOf(store, ws, { serviceId: orders })).toBe(109)

    await store.write(async (tx) => await tx.services.delete(ws, orders))
    expect(await totalOf(store, ws)).toBe(1)
    expect(await totalOf(store, ws, { serviceId: orders })).toBe(0)
    expect(await totalOf(store, ws, { serviceId: pets })).toBe(1)

    // A filter the counts do not know is counted, and agrees.
    expect(await totalOf(store, ws, { serviceId: pets, name: 'order 0' })).toBe(1)
    expect(await totalOf(store, world.otherWorkspace.id)).toBe(1)
  })

  it('stay exact when a workspace goes with everything in it', async () => {
    const { store, sql } = await openTestStore()
    const world = await seed(store)
    await bulk(store, world.workspace.id, world.service.id, ['a', 'b', 'c'])
    await bulk(store, world.otherWorkspace.id, world.otherService.id, ['d', 'e'])
    expect(await totalOf(store, world.workspace.id)).toBe(3)
    // No API deletes a workspace yet; the cascade of the schema does it in SQL.
    await sql(`DELETE FROM workspaces WHERE id = ${world.workspace.id}`)
    expect(await totalOf(store, world.workspace.id)).toBe(0)
    expect(await totalOf(store, world.workspace.id, { serviceId: world.service.id })).toBe(0)
    expect(await totalOf(store, world.otherWorkspace.id)).toBe(2)
  })
})

describe('transaction counts of a database from before them', () => {
  // The PostgreSQL schema starts with the counts: it never had a database from before them.
  it.skipIf(onPostgres)(
    'are counted once when the SQLite migration runs, and kept from then on [SQLite only: rewinds the file to migration 10]',
    async () => {
      const { store, dataDir, reopen } = await openTestStore()
      const world = await seed(store)
      await bulk(store, world.workspace.id, world.service.id, ['a', 'b', 'c'])
      await bulk(store, world.otherWorkspace.id, world.otherService.id, ['d'])
      await store.close()
      // Back to the schema before migration 11, with the transactions still there (the tables of
      // later migrations go too: they are applied again after it).
      const db = new Database(join(dataDir, DATABASE_FILE))
      try {
        const listCountTriggers = db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'list_counts_%'",
          )
          .all() as Array<{ name: string }>
        for (const { name } of listCountTriggers) db.exec(`DROP TRIGGER ${name}`)
        db.exec('DROP TABLE list_counts')
        db.exec(`DROP TABLE transaction_counts; DROP TRIGGER transaction_counts_delete;
        DROP TRIGGER transaction_counts_update; DROP INDEX transactions_workspace; DROP INDEX IF EXISTS transactions_workspace_name_nocase;
        DROP TABLE monitor_agent_regions; DROP INDEX monitor_runs_slot; DROP INDEX monitor_runs_claim;
        DROP INDEX monitor_runs_pinned; ALTER TABLE monitor_runs DROP COLUMN region;
        ALTER TABLE monitor_runs DROP COLUMN pinned_agent; ALTER TABLE monitor_runs DROP COLUMN agent;
        ALTER TABLE monitor_runs DROP COLUMN lease_id; ALTER TABLE monitor_runs DROP COLUMN lease_expires;
        ALTER TABLE monitor_runs DROP COLUMN slot_key;
        DROP TABLE ship_assignments; DROP TABLE ships; DROP TABLE harbor_workspaces; DROP TABLE harbors;
        DROP TABLE runtime_leases; DROP TABLE platform_secrets;
        DROP TABLE ui_sessions; DROP TABLE auth_failures; DROP TABLE agent_logs; DROP TABLE admin_calls;
        DROP TABLE asset_chunks; DROP TABLE kept_inspections;
        ALTER TABLE monitor_runs DROP COLUMN attempts;
        DELETE FROM schema_migrations WHERE version >= 11;
        PRAGMA user_version = 10;`)
      } finally {
        db.close()
      }
      const reopened = await reopen()
      expect(await totalOf(reopened, world.workspace.id)).toBe(3)
      expect(await totalOf(reopened, world.workspace.id, { serviceId: world.service.id })).toBe(3)
      expect(await totalOf(reopened, world.otherWorkspace.id)).toBe(1)
      await bulk(reopened, world.workspace.id, world.service.id, ['e'])
      expect(await totalOf(reopened, world.workspace.id)).toBe(4)
    },
  )
})

describe('transaction list pages', () => {
  const sorts = SORTS

  it('walked page by page are the whole list in order, for every sort in both directions, ties included', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const orders = (
      await store.write(
        async (tx) =>
          await tx.services.create({ workspaceId: ws, name: 'orders', description: null, by: BY }),
      )
    ).id
    // Names equal but for ASCII case tie under the case-insensitive sort; each bulk insert shares
    // one created/updated, and two users share the *By columns.
    const names = ['b', 'B', 'a', 'A', 'c', 'b', 'a']
    await bulk(store, ws, world.service.id, names)
    await bulk(store, ws, orders, names, 'zed@example.com')
    await bulk(
      store,
      ws,
      world.service.id,
      names.map((n) => `${n}2`),
      'Ada@example.com',
    )
    await bulk(store, ws, orders, names)
    for (const field of sorts) {
      for (const sort of [field, `-${field}`]) {
        const expected = await allIds(store, ws, {}, sort)
        expect(expected).toHaveLength(28)
        for (const limit of [1, 3, 5]) {
          expect(await walk(store, ws, {}, { limit, sort }), `${sort} by ${limit}`).toEqual(
            expected,
          )
        }
        const inOrders = await allIds(store, ws, { serviceId: orders }, sort)
        expect(
          await walk(store, ws, { serviceId: orders }, { limit: 4, sort }),
          `${sort} in a service`,
        ).toEqual(inOrders)
        const named = await allIds(store, ws, { contains: 'b' }, sort)
        expect(
          await walk(store, ws, { contains: 'b' }, { limit: 2, sort }),
          `${sort} with a search`,
        ).toEqual(named)
      }
    }
  })

  it('after a write, skip means OFFSET of the list as it is now, not the continuation of the page before', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    await bulk(store, ws, world.service.id, ['b', 'd', 'f', 'h', 'j', 'l'])
    const first = await store.transactions.list(ws, {}, { limit: 2, skip: 0, sort: 'name' })
    expect(first.items.map((t) => t.name)).toEqual(['b', 'd'])
    // 'a' sorts before the whole first page: OFFSET 2 now starts at 'd'.
    await bulk(store, ws, world.service.id, ['a'])
    const second = await store.transactions.list(ws, {}, { limit: 2, skip: 2, sort: 'name' })
    expect(second.items.map((t) => t.name)).toEqual(['d', 'f'])
    expect(second.total).toBe(7)
    // A rename moves a row within the order without changing any count.
    const f = second.items[1]
    if (f === undefined) throw new Error('expected a second row')
    await store.write(async (tx) => await tx.transactions.update(ws, f.id, { name: 'c', by: BY }))
    const third = await store.transactions.list(ws, {}, { limit: 2, skip: 4, sort: 'name' })
    expect(third.items.map((t) => t.name)).toEqual(['h', 'j'])
    const again = await store.transactions.list(ws, {}, { limit: 2, skip: 2, sort: 'name' })
    expect(again.items.map((t) => t.name)).toEqual(['c', 'd'])
  })
})

describe('far pages and filtered totals of large transaction lists', () => {
  // Enough rows for several slices of the list's positions (src/store/sqlite/list-positions.ts).
  const ROWS = 3000
  const sorts = SORTS
  const skips = [ROWS - 1, 1500, 1001, 2503, 0, 1234, 2000, ROWS + 10, 999, 1700]

  async function seeded() {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const orders = await store.write(
      async (tx) =>
        await tx.services.create({ workspaceId: ws, name: 'orders', description: null, by: BY }),
    )
    // Rows of another workspace, between the list's own, belong to no page of it.
    await bulk(store, world.otherWorkspace.id, world.otherService.id, ['GET /1/x', 'GET /2/x'])
    // Each bulk insert shares one created/updated and one user: long runs of equal sort keys,
    // ordered among themselves by id only; users differ in case alone, which the sort ignores.
    const users = ['ada@example.com', 'ADA@example.com', 'bob@example.com']
    for (let batch = 0; batch < 6; batch++) {
      const names = Array.from({ length: ROWS / 6 }, (_, i) => `GET /${(i * 7919) % 97}/${batch}`)
      await bulk(store, ws, batch % 2 === 0 ? world.service.id : orders.id, names, users[batch % 3])
    }
    return { store, ws, serviceId: world.service.id }
  }

  it('are exactly OFFSET of the whole list, for every indexed sort, direction and filter', async () => {
    const { store, ws, serviceId } = await seeded()
    const filters: TransactionFilter[] = [{}, { serviceId }, { contains: '/1' }]
    for (const filter of filters) {
      for (const field of sorts) {
        for (const sort of [field, `-${field}`]) {
          const expected = await allIds(store, ws, filter, sort)
          for (const skip of skips) {
            const page = await store.transactions.list(ws, filter, { limit: 7, skip, sort })
            expect(page.total, `${sort} ${JSON.stringify(filter)} total`).toBe(expected.length)
            expect(
              page.items.map((t) => t.id),
              `${sort} ${JSON.stringify(filter)} skip ${skip}`,
            ).toEqual(expected.slice(skip, skip + 7))
          }
        }
      }
    }
  })

  it('follow a write: a far page and a filtered total after it are those of the list as it is now', async () => {
    const { store, ws, serviceId } = await seeded()
    const before = await store.transactions.list(
      ws,
      { contains: '/1' },
      { limit: 5, skip: 1900, sort: 'name' },
    )
    // A row that sorts before every other one moves every far page by one.
    await bulk(store, ws, serviceId, ['/1 first'])
    const expected = await allIds(store, ws, { contains: '/1' }, 'name')
    expect(expected).toHaveLength(before.total + 1)
    const after = await store.transactions.list(
      ws,
      { contains: '/1' },
      { limit: 5, skip: 1900, sort: 'name' },
    )
    expect(after.total).toBe(before.total + 1)
    expect(after.items.map((t) => t.id)).toEqual(expected.slice(1900, 1905))
    expect(after.items[1]?.id).toBe(before.items[0]?.id)
  })

  it('are right when a write lands while the list is being read', async () => {
    const { store, ws, serviceId } = await seeded()
    const listing = store.transactions.list(
      ws,
      { contains: '/2' },
      { limit: 4, skip: 1500, sort: '-created' },
    )
    const writing = bulk(
      store,
      ws,
      serviceId,
      Array.from({ length: 50 }, (_, i) => `/2 new ${i}`),
    )
    const [page, added] = await Promise.all([listing, writing])
    const now = await allIds(store, ws, { contains: '/2' }, '-created')
    const again = await store.transactions.list(
      ws,
      { contains: '/2' },
      { limit: 4, skip: 1500, sort: '-created' },
    )
    expect(again.total).toBe(now.length)
    expect(again.items.map((t) => t.id)).toEqual(now.slice(1500, 1504))
    // The page read during the write is one of the two states, whole: its total and rows agree.
    const before = now.filter((id) => !added.includes(id))
    const state = page.total === now.length ? now : before
    expect(page.total === now.length || page.total === before.length).toBe(true)
    expect(page.items.map((t) => t.id)).toEqual(state.slice(1500, 1504))
  })
})

describe('positions of transaction lists moved by writes (src/store/sqlite/list-changes.ts)', () => {
  const ROWS = 3000
  const users = [
    'ada@example.com',
    'ADA@example.com',
    'bob@example.com',
    'Zoë@x.test',
    'émile@x.test',
    '😀@x.test',
    'ｚ@x.test',
  ]
  const names = [
    'GET /1/a',
    'get /1/B',
    'GET /2/_',
    'Ärger /1',
    'zeta',
    'Zeta',
    '😀 /1',
    'ｚ wide',
    'a_b',
    'a-b',
    'A^b',
  ]

  async function seeded() {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const orders = await store.write(
      async (tx) =>
        await tx.services.create({ workspaceId: ws, name: 'orders', description: null, by: BY }),
    )
    for (let batch = 0; batch < 6; batch++) {
      const rows = Array.from(
        { length: ROWS / 6 },
        (_, i) => `${names[i % names.length]} ${(i * 7919) % 97}/${batch}`,
      )
      await bulk(
        store,
        ws,
        batch % 2 === 0 ? world.service.id : orders.id,
        rows,
        users[batch % users.length],
      )
    }
    return {
      store,
      ws,
      services: [world.service.id, orders.id],
      other: world.otherWorkspace.id,
      otherService: world.otherService.id,
    }
  }

  it.skipIf(onPostgres)(
    'stay exact across writes: every list page and total equal a fresh read after any write sequence',
    async () => {
      const { store, ws, services, other, otherService } = await seeded()
      const next = seededRandom(28)
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T
      const filters: TransactionFilter[] = [
        {},
        { serviceId: services[1] as number },
        { contains: '/1' },
        { tags: ['a'] },
        { contains: '/1', serviceId: services[0] as number },
        { dslType: 'HAR_DSL' },
      ]
      const sorts = [
        'id',
        '-name',
        'created',
        'createdBy',
        '-updatedBy',
        'updated',
        'dslType',
        'serviceId',
        '-serviceId',
      ]
      const lists = filters.flatMap((filter) => sorts.map((sort) => ({ filter, sort })))
      // Every list's positions are read once (a far page), then only moved by the writes.
      for (const { filter, sort } of lists) {
        await store.transactions.list(ws, filter, { limit: 5, skip: 1500, sort })
      }
      const idsOf = async () => await allIds(store, ws, {}, 'id')
      const write = async (step: number): Promise<void> => {
        const existing = await idsOf()
        const kind = pick([
          'create',
          'create',
          'bulk',
          'update',
          'update',
          'tags',
          'delete',
          'deleteMany',
          'rewrite',
          'other',
          'mixed',
        ] as const)
        const by = pick(users)
        const fresh = () => ({
          workspaceId: ws,
          serviceId: pick(services),
          name: `${pick(names)} ${step}`,
          description: next() < 0.3 ? `about /1 ${step}` : null,
          dslType: next() < 0.2 ? 'HAR_DSL' : 'GENERIC_DSL',
          dsl: realisticDsl(),
          tags: next() < 0.5 ? ['a'] : ['b'],
          by,
        })
        await store.write(async (tx) => {
          const target = pick(existing)
          switch (kind) {
            case 'create':
              await tx.transactions.create(fresh())
              break
            case 'bulk':
              await tx.transactions.createEncodedMany(
                { workspaceId: ws, serviceId: pick(services), by },
                Array.from(
                  { length: step % 7 === 0 ? 300 : 1 + Math.floor(next() * 5) },
                  (_, i) => ({
                    name: `${pick(names)} bulk ${step}.${i}`,
                    description: null,
                    dslType: 'HAR_DSL',
                    tags: next() < 0.5 ? ['a'] : [],
                    dslJson: dsl,
                  }),
                ),
              )
              break
            case 'update': {
              const patch = fresh()
              await tx.transactions.update(ws, target, {
                by,
                ...(next() < 0.5 ? { name: patch.name } : {}),
                ...(next() < 0.4 ? { serviceId: patch.serviceId } : {}),
                ...(next() < 0.4 ? { tags: patch.tags } : {}),
                ...(next() < 0.3 ? { description: patch.description } : {}),
              })
              break
            }
            case 'tags':
              await tx.transactions.changeTags(
                ws,
                [target, pick(existing)],
                next() < 0.5 ? { add: ['a'] } : { remove: ['a'] },
                by,
              )
              break
            case 'delete':
              await tx.transactions.delete(ws, target)
              break
            case 'deleteMany':
              await tx.transactions.deleteMany(ws, [target, pick(existing), pick(existing)])
              break
            case 'rewrite':
              await tx.transactions.rewriteEncoded(ws, target, {
                name: `${pick(names)} rewritten ${step}`,
                description: null,
                dslType: 'GENERIC_DSL',
                tags: ['a'],
                dslJson: dsl,
              })
              break
            case 'other':
              await tx.transactions.create({
                ...fresh(),
                workspaceId: other,
                serviceId: otherService,
              })
              break
            case 'mixed':
              await tx.transactions.create(fresh())
              await tx.transactions.update(ws, target, { name: `${pick(names)} again ${step}`, by })
              await tx.transactions.delete(ws, pick(existing))
              await tx.transactions.create({
                ...fresh(),
                workspaceId: other,
                serviceId: otherService,
              })
              break
          }
        })
      }
      const check = async (step: number, filter: TransactionFilter, sort: string) => {
        const expected = await allIds(store, ws, filter, sort)
        const skips = [
          0,
          1001 + Math.floor(next() * 1500),
          Math.max(0, expected.length - 3),
          Math.floor(next() * expected.length),
        ]
        for (const skip of skips) {
          const page = await store.transactions.list(ws, filter, { limit: 7, skip, sort })
          const what = `step ${step}: ${sort} ${JSON.stringify(filter)} skip ${skip}`
          expect(page.total, what).toBe(expected.length)
          expect(
            page.items.map((t) => t.id),
            what,
          ).toEqual(expected.slice(skip, skip + 7))
        }
      }
      // The rows of marks themselves (the first slice of positions is 128 rows of the workspace).
      const around = (await idsOf()).slice(100, 160)
      await store.write(async (tx) => await tx.transactions.deleteMany(ws, around))
      for (const filter of filters) await check(-1, filter, 'id')
      for (let step = 0; step < 40; step++) {
        await write(step)
        for (let k = 0; k < 6; k++) {
          const { filter, sort } = pick(lists)
          await check(step, filter, sort)
        }
      }
    },
    120_000,
  )
})
