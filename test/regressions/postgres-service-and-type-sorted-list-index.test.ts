import pg from 'pg'
import { describe, expect, it, onTestFinished } from 'vitest'
import { openPostgresStore } from '../../src/store/index.js'
import { hasPostgres, requirePgDatabase } from '../helpers/postgres.js'
import { BY, seed } from '../unit/store/fixtures.js'

/*
 * On PostgreSQL a transaction list sorted by `serviceId` or `dslType` had no index in its order:
 * every page, a keyset page after a row included, sorted the whole workspace (20 to 30 ms at
 * 50,000 rows, growing with the table). Its page and the page after a row now come from an
 * index, with no sort. The
 * plan is asked with sorts and sequential scans priced out, so that the planner's choice on a
 * small table does not hide whether an index in that order exists.
 */
describe.skipIf(!hasPostgres)('a PostgreSQL transaction list sorted by service or DSL type', () => {
  it('reads its page, and the page after a row, from an index in that order', async () => {
    const url = await requirePgDatabase()
    const store = await openPostgresStore({ url })
    onTestFinished(async () => await store.close())
    const world = await seed(store)
    const workspaceId = world.workspace.id
    const services = [
      await store.services.create({ workspaceId, name: 'b', description: null, by: BY }),
      await store.services.create({ workspaceId, name: 'a', description: null, by: BY }),
    ]
    for (const service of services.toReversed()) {
      await store.write(async (tx) => {
        await tx.transactions.createEncodedMany(
          { workspaceId, serviceId: service.id, by: BY },
          [0, 1, 2].map((i) => ({
            name: `GET /${service.name}/${i}`,
            description: null,
            dslType: 'GENERIC_DSL',
            tags: [],
            dslJson: '{"requestDsl":{"method":"GET","path":"/x"},"responseDsl":{"status":200}}',
          })),
        )
      })
    }
    const page = await store.transactions.list(
      workspaceId,
      {},
      { limit: 4, skip: 0, sort: 'serviceId' },
    )
    const order = page.items.map((t) => [t.serviceId, t.id])
    expect(order).toEqual(
      order.toSorted(([s1 = 0, i1 = 0], [s2 = 0, i2 = 0]) => s1 - s2 || i1 - i2),
    )
    expect(page.total).toBe(6)

    const client = new pg.Client({ connectionString: url })
    await client.connect()
    onTestFinished(async () => await client.end())
    await client.query('SET enable_sort = off')
    await client.query('SET enable_seqscan = off')
    const plan = async (sql: string, params: unknown[]): Promise<string> =>
      (await client.query(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n')
    // The statements of list.ts: the first page, and the keyset page after a row.
    const plans = [
      await plan(
        'SELECT t.id FROM transactions t WHERE t.workspace_id = $1 ORDER BY service_id ASC, id ASC LIMIT 50',
        [workspaceId],
      ),
      await plan(
        'SELECT t.id FROM transactions t WHERE t.workspace_id = $1 AND (service_id, id) > ($2, $3) ORDER BY service_id ASC, id ASC LIMIT 50',
        [workspaceId, services[0]?.id, 0],
      ),
      await plan(
        'SELECT t.id FROM transactions t WHERE t.workspace_id = $1 ORDER BY dsl_type DESC, id DESC LIMIT 50',
        [workspaceId],
      ),
      await plan(
        'SELECT t.id FROM transactions t WHERE t.workspace_id = $1 AND (dsl_type, id) > ($2, $3) ORDER BY dsl_type ASC, id ASC LIMIT 50',
        [workspaceId, 'GENERIC_DSL', 0],
      ),
    ]
    for (const text of plans) {
      expect(text).toMatch(/Index (Only )?Scan/)
      expect(text).not.toMatch(/Sort/)
    }
  })
})
