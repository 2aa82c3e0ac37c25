import { describe, expect, it } from 'vitest'
import type { Store } from '../../../../src/store/index.js'
import { hasPostgres } from '../../../helpers/postgres.js'
import { BY } from '../fixtures.js'
import {
  dsl,
  filtersOf,
  insertRows,
  listChecks,
  poolsOnOneDatabase,
  scrambledNames,
} from './list-truth.js'

/*
 * On PostgreSQL a small write moves the totals and positions the pool keeps for filtered lists
 * at its commit (src/store/postgres/list-changes.ts) instead of having them read again. Every
 * list, at every page, must stay exactly what COUNT(*) and OFFSET over the table give: checked
 * here against the rows read straight from the table, after each kind of write.
 */

describe.skipIf(!hasPostgres)('PostgreSQL transaction lists after writes', () => {
  it('stay exact at every page through inserts, updates, deletes, tag changes, a service delete and a write of another pool, moved without recounting', async () => {
    const { store, other, client, workspaceId, services } = await poolsOnOneDatabase([
      'a',
      'b',
      'c',
    ])
    const [a, b, c] = services
    const insert = async (
      s: Store,
      serviceId: number,
      names: readonly string[],
      tags: string[] = [],
    ) => await insertRows(s, workspaceId, serviceId, names, tags)
    // 2,600 rows: lists of more than one slice of 1,000, names out of id order (name sorts).
    const names = scrambledNames(2600)
    const ids = [
      ...(await insert(store, a.id, names.slice(0, 1300))),
      ...(await insert(store, b.id, names.slice(1300, 2500), ['smoke'])),
      ...(await insert(store, c.id, names.slice(2500))),
    ]
    await insert(store, b.id, ['GET /rare/one'])

    const { check, checkMoved } = listChecks(store, client, workspaceId, filtersOf(a.id, b.id))
    await check('seeded')

    await insert(store, a.id, ['GET /orders/1new'])
    await checkMoved('one row inserted')
    await insert(store, c.id, ['GET /orders/10x', 'GET /rare/two', 'get /ORDERS/1y'], ['smoke'])
    await checkMoved('three rows inserted')
    // A row leaves a filter, another enters it; a name moves in the name order; a row moves service.
    await store.transactions.update(workspaceId, ids[10] ?? 0, { name: 'GET /other', by: BY })
    await store.transactions.update(workspaceId, ids[20] ?? 0, { name: 'GET /rare/three', by: BY })
    await store.transactions.update(workspaceId, ids[30] ?? 0, { name: 'A /orders/1', by: BY })
    await store.transactions.update(workspaceId, ids[40] ?? 0, { serviceId: b.id, by: BY })
    await store.transactions.update(workspaceId, ids[2000] ?? 0, {
      description: 'now with orders/1',
      by: BY,
    })
    await checkMoved('updates')
    await store.transactions.changeTags(
      workspaceId,
      [ids[1] ?? 0, ids[1400] ?? 0],
      {
        add: ['smoke'],
        remove: [],
      },
      BY,
    )
    await store.transactions.changeTags(workspaceId, [ids[1401] ?? 0], { remove: ['smoke'] }, BY)
    await checkMoved('tags changed')
    await store.transactions.delete(workspaceId, ids[5] ?? 0)
    await store.transactions.deleteMany(workspaceId, [ids[6] ?? 0, ids[1500] ?? 0, ids[2550] ?? 0])
    await checkMoved('deletes')

    // Inside a write, its own rows are listed; a write that throws leaves the lists as they were.
    await store.write(async (tx) => {
      const before = await tx.transactions.list(
        workspaceId,
        { contains: 'rare' },
        { limit: 50, skip: 0 },
      )
      await tx.transactions.createEncodedMany({ workspaceId, serviceId: a.id, by: BY }, [
        {
          name: 'GET /rare/inside',
          description: null,
          dslType: 'GENERIC_DSL',
          tags: [],
          dslJson: dsl,
        },
      ])
      const after = await tx.transactions.list(
        workspaceId,
        { contains: 'rare' },
        { limit: 50, skip: 0 },
      )
      expect(after.total).toBe(before.total + 1)
      expect(after.items.map((t) => t.name)).toContain('GET /rare/inside')
    })
    await checkMoved('written with a list inside the write')
    await expect(
      store.write(async (tx) => {
        await tx.transactions.createEncodedMany({ workspaceId, serviceId: a.id, by: BY }, [
          {
            name: 'GET /rare/rolled-back',
            description: null,
            dslType: 'GENERIC_DSL',
            tags: [],
            dslJson: dsl,
          },
        ])
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    await check('a rolled back write')

    // Writes the pool cannot move by: a service delete cascading to its rows, another pool's write.
    await store.services.delete(workspaceId, c.id)
    await check('a service deleted')
    await insert(other, a.id, ['GET /rare/elsewhere', 'GET /orders/1elsewhere'])
    await other.transactions.delete(workspaceId, ids[7] ?? 0)
    await check('written by another pool')
    await insert(store, b.id, ['GET /orders/1again'])
    await checkMoved('one row inserted after the other pool')
    // Another pool's write between the lists' read and this pool's write: this pool's counts do
    // not add up, and its lists are read again.
    await insert(other, a.id, ['GET /rare/between'])
    await insert(store, a.id, ['GET /rare/after-between', 'GET /orders/1after'])
    await check('inserted right after a write of another pool')
    await other.transactions.update(workspaceId, ids[50] ?? 0, { name: 'GET /rare/moved', by: BY })
    await store.transactions.update(workspaceId, ids[60] ?? 0, { name: 'GET /orders/1b', by: BY })
    await check('updated right after an update of another pool')
  }, 120_000)
})
