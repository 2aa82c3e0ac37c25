import pg from 'pg'
import { describe, it, onTestFinished } from 'vitest'
import { openPostgresStore } from '../../../../src/store/index.js'
import { hasPostgres, requirePgDatabase } from '../../../helpers/postgres.js'
import { BY, seed } from '../fixtures.js'
import { filtersOf, insertRows, listChecks } from './list-truth.js'

/*
 * Rows another instance inserted move the totals and positions this pool keeps at its next list
 * (src/store/postgres/list-arrivals.ts) instead of having them read again; any other change made
 * elsewhere has them read again. Every list, at every page, must stay what the table's rows give.
 */

describe.skipIf(!hasPostgres)(
  "PostgreSQL transaction lists after another instance's writes",
  () => {
    it('are moved by the rows other pools inserted without a recount, and read again after an update, a delete, an insert that changed, or an earlier id committed late', async () => {
      const url = await requirePgDatabase()
      const store = await openPostgresStore({ url })
      onTestFinished(async () => await store.close())
      const other = await openPostgresStore({ url })
      onTestFinished(async () => await other.close())
      const third = await openPostgresStore({ url })
      onTestFinished(async () => await third.close())
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      onTestFinished(async () => await client.end())
      const world = await seed(store)
      const workspaceId = world.workspace.id
      const [a, b] = await Promise.all(
        ['a', 'b'].map(
          async (name) =>
            await store.services.create({ workspaceId, name, description: null, by: BY }),
        ),
      )
      if (a === undefined || b === undefined) throw new Error('no services')
      // 2,600 rows: more than one slice of positions, names out of id order.
      const names = Array.from({ length: 2600 }, (_, i) => `GET /orders/${(i * 7919) % 2600}`)
      const ids = [
        ...(await insertRows(store, workspaceId, a.id, names.slice(0, 1300))),
        ...(await insertRows(store, workspaceId, b.id, names.slice(1300), ['smoke'])),
      ]
      await insertRows(store, workspaceId, b.id, ['GET /rare/one'])
      const { check, checkMoved } = listChecks(store, client, workspaceId, filtersOf(a.id, b.id))
      await check('seeded')

      await insertRows(other, workspaceId, a.id, ['GET /orders/1elsewhere'])
      await checkMoved('one row inserted by another pool')
      await insertRows(
        other,
        workspaceId,
        b.id,
        ['GET /rare/x', 'GET /orders/1x', 'get /ORDERS/1z'],
        ['smoke'],
      )
      await insertRows(third, workspaceId, a.id, ['GET /rare/third'])
      await checkMoved('rows inserted by two other pools')

      // Not only inserts: the rows above the kept top fall short of the change count.
      await other.transactions.update(workspaceId, ids[10] ?? 0, {
        name: 'GET /rare/renamed',
        by: BY,
      })
      await check('a row renamed by another pool')
      await insertRows(other, workspaceId, a.id, ['GET /rare/new'])
      await other.transactions.delete(workspaceId, ids[11] ?? 0)
      await check('a row inserted and another deleted by another pool')
      const [fresh] = await insertRows(other, workspaceId, a.id, ['GET /orders/1fresh'])
      await other.transactions.update(workspaceId, fresh ?? 0, { name: 'GET /rare/fresh', by: BY })
      await check('a row inserted then renamed by another pool')
      await insertRows(other, workspaceId, b.id, ['GET /orders/1b'])
      await checkMoved('one more row inserted by another pool')

      // An id drawn before a list read and committed after it: a later id committed first moves
      // the lists past it, and the earlier one, found below their top, has them read again.
      // (The two go to different services: an insert locks its service's count until it commits.)
      let inserted!: () => void
      const insertedNow = new Promise<void>((resolve) => (inserted = resolve))
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const held = other.write(async (tx) => {
        await tx.transactions.createEncodedMany({ workspaceId, serviceId: a.id, by: BY }, [
          {
            name: 'GET /rare/held',
            description: null,
            dslType: 'GENERIC_DSL',
            tags: [],
            dslJson: '{"requestDsl":{"method":"GET","path":"/x"},"responseDsl":{"status":200}}',
          },
        ])
        inserted()
        await released
      })
      await insertedNow
      await insertRows(third, workspaceId, b.id, [
        'GET /rare/overtaking',
        'GET /orders/1overtaking',
      ])
      await checkMoved('a later id committed first')
      release()
      await held
      await check('the earlier id committed after')
      await insertRows(third, workspaceId, b.id, ['GET /rare/last'])
      await checkMoved('a row inserted by another pool after the lists were read again')
    }, 120_000)
  },
)
