import pg from 'pg'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { openPostgresStore } from '../../src/store/index.js'
import { hasPostgres, requirePgDatabase } from '../helpers/postgres.js'
import { BY, seed } from '../unit/store/fixtures.js'

/*
 * On PostgreSQL every write moved the workspace's change count, and the first filtered
 * transaction list after it counted its total again (a COUNT(*) over every row of the workspace:
 * 32 ms at 50,000 rows against 3 ms at 500), its far page read its positions again (a window over
 * the whole filtered list), and a filter matching one row walked the whole workspace for its
 * first page. A one-row write of the store now moves the kept totals and positions at its commit,
 * and the rare filter's page starts from the last mark of its positions before its row.
 */
describe.skipIf(!hasPostgres)(
  'a PostgreSQL filtered transaction list after a one-row write',
  () => {
    it('is not counted nor its positions read again, and stays exact', async () => {
      const url = await requirePgDatabase()
      const store = await openPostgresStore({ url })
      onTestFinished(async () => await store.close())
      const world = await seed(store)
      const workspaceId = world.workspace.id
      const service = await store.services.create({
        workspaceId,
        name: 'orders',
        description: null,
        by: BY,
      })
      const write = async (names: readonly string[]) =>
        await store.write(
          async (tx) =>
            await tx.transactions.createEncodedMany(
              { workspaceId, serviceId: service.id, by: BY },
              names.map((name) => ({
                name,
                description: null,
                dslType: 'GENERIC_DSL',
                tags: [],
                dslJson: '{"requestDsl":{"method":"GET","path":"/x"},"responseDsl":{"status":200}}',
              })),
            ),
        )
      await write(Array.from({ length: 2400 }, (_, i) => `GET /orders/${i}`))
      const lists = async () => ({
        first: await store.transactions.list(
          workspaceId,
          { contains: 'orders/1' },
          { limit: 50, skip: 0 },
        ),
        far: await store.transactions.list(
          workspaceId,
          { contains: 'orders/1' },
          { limit: 50, skip: 1100 },
        ),
        rare: await store.transactions.list(
          workspaceId,
          { contains: 'orders/2399' },
          { limit: 50, skip: 0 },
        ),
      })
      await lists()

      await write(['GET /orders/1-written'])
      const spy = vi.spyOn(pg.Client.prototype, 'query')
      onTestFinished(() => spy.mockRestore())
      const { first, far, rare } = await lists()
      const sent = spy.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : ''))

      expect(sent.filter((sql) => /COUNT\(\*\)|row_number\(\)|OVER/.test(sql))).toEqual([])
      // 1, 10-19, 100-199, 1000-1999 and the written row
      expect(first.total).toBe(1112)
      expect(far.total).toBe(1112)
      expect(far.items.map((t) => t.name)[0]).toBe('GET /orders/1989')
      expect(rare.total).toBe(1)
      expect(rare.items.map((t) => t.name)).toEqual(['GET /orders/2399'])
      // The rare filter's page: after the keys of the last mark before its row, not from the start.
      const rarePage = sent.filter((sql) => sql.includes('list_key_0') && sql.includes('LIMIT'))
      expect(rarePage.at(-1)).toMatch(/\(id\) > \(\$\d+\)/)
    })
  },
)
