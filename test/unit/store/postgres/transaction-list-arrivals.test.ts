import { describe, expect, it, vi } from 'vitest'
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
 * Rows another instance inserted, changed or deleted move the totals and positions this pool
 * keeps at its next list (src/store/postgres/list-arrivals.ts) instead of having them read
 * again; a change it cannot find (a cascade, a change committed behind a later one) has them
 * read again. Every list, at every page, must stay what the table's rows give.
 */

describe.skipIf(!hasPostgres)(
  "PostgreSQL transaction lists after another instance's writes",
  () => {
    it('are moved by the rows other pools inserted, changed and deleted without a recount, and read again after a cascade or an earlier change committed late', async () => {
      const { store, other, third, client, workspaceId, services } = await poolsOnOneDatabase([
        'a',
        'b',
        'c',
      ])
      const [a, b, c] = services
      // 2,600 rows: more than one slice of positions, names out of id order.
      const names = scrambledNames(2600)
      const ids = [
        ...(await insertRows(store, workspaceId, a.id, names.slice(0, 1300))),
        ...(await insertRows(store, workspaceId, b.id, names.slice(1300), ['smoke'])),
      ]
      await insertRows(store, workspaceId, b.id, ['GET /rare/one'])
      await insertRows(store, workspaceId, c.id, ['GET /rare/in-c', 'GET /orders/1c'], ['smoke'])
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

      // Updates and deletes are found in the log of the rows as they were before each change.
      const id = (i: number): number => ids[i] ?? 0
      await other.transactions.update(workspaceId, id(10), { name: 'GET /rare/renamed', by: BY })
      await checkMoved('a row renamed by another pool')
      await other.transactions.update(workspaceId, id(1400), { serviceId: a.id, tags: [], by: BY })
      await other.transactions.update(workspaceId, id(1400), { name: 'GET /rare/twice', by: BY })
      await checkMoved('a row moved to another service and untagged, then renamed')
      await insertRows(other, workspaceId, a.id, ['GET /rare/new'])
      await other.transactions.delete(workspaceId, id(11))
      await checkMoved('a row inserted and another deleted by another pool')
      await other.transactions.changeTags(
        workspaceId,
        [id(12), id(1401)],
        { add: ['smoke'], remove: [] },
        BY,
      )
      await third.transactions.deleteMany(workspaceId, [id(13), id(1402)])
      await other.transactions.update(workspaceId, id(14), { name: 'GET /orders/14', by: BY })
      await other.transactions.delete(workspaceId, id(14))
      await checkMoved('tags added, rows deleted, a row renamed then deleted, by two other pools')

      // This pool's own change moves its lists at its commit past its own log entry.
      await store.transactions.update(workspaceId, id(15), { name: 'GET /rare/own', by: BY })
      await other.transactions.update(workspaceId, id(16), { name: 'GET /rare/theirs', by: BY })
      await checkMoved("this pool's change, then another pool's")
      const [fresh] = await insertRows(other, workspaceId, a.id, ['GET /orders/1fresh'])
      await other.transactions.update(workspaceId, fresh ?? 0, { name: 'GET /rare/fresh', by: BY })
      const [moved] = await insertRows(third, workspaceId, a.id, ['GET /rare/moved'])
      await third.transactions.update(workspaceId, moved ?? 0, { serviceId: b.id, by: BY })
      const [gone] = await insertRows(third, workspaceId, b.id, ['GET /rare/gone'], ['smoke'])
      await other.transactions.delete(workspaceId, gone ?? 0)
      await checkMoved('rows inserted then renamed, moved to another service, or deleted')

      // What the log does not hold has the lists read again.
      await other.services.delete(workspaceId, c.id)
      await check("a service's delete cascading to its rows")
      await insertRows(other, workspaceId, b.id, ['GET /orders/1b'])
      await checkMoved('one more row inserted by another pool')
      let changed!: () => void
      const changedNow = new Promise<void>((resolve) => (changed = resolve))
      let commit!: () => void
      const committed = new Promise<void>((resolve) => (commit = resolve))
      const heldChange = other.write(async (tx) => {
        await tx.transactions.update(workspaceId, id(20), { name: 'GET /rare/held-rename', by: BY })
        changed()
        await committed
      })
      await changedNow
      await third.transactions.update(workspaceId, id(1420), { name: 'GET /rare/overtook', by: BY })
      await checkMoved('a later change committed first')
      commit()
      await heldChange
      await check('the earlier change committed after')
      await other.transactions.update(workspaceId, id(21), { name: 'GET /rare/after', by: BY })
      await checkMoved('a row renamed by another pool after the lists were read again')

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

    it('keeps the latest 10,000 changes, and reads the lists again once a change they missed was pruned', async () => {
      const { store, other, client, workspaceId, services } = await poolsOnOneDatabase(['a'])
      const [service] = services
      const names = scrambledNames(600)
      const ids = await insertRows(store, workspaceId, service.id, names, ['smoke'])
      const { check, checkMoved } = listChecks(
        store,
        client,
        workspaceId,
        filtersOf(service.id, service.id),
      )
      await check('seeded')
      await other.transactions.update(workspaceId, ids[5] ?? 0, {
        name: 'GET /rare/pruned',
        by: BY,
      })
      // Another workspace's changes fill the log past its limit; the next logged change prunes it.
      await client.query(
        `INSERT INTO transaction_changes (id, workspace_id, service_id, name, dsl_type, created, updated, created_by, updated_by, tags)
         SELECT -g, -1, -1, 'x', 'GENERIC_DSL', 0, 0, 'x', 'x', '{}' FROM generate_series(1, 10050) g`,
      )
      await other.transactions.update(workspaceId, ids[6] ?? 0, { name: 'GET /rare/kept', by: BY })
      const { rows } = await client.query<{ n: string; renamed: string }>(
        `SELECT count(*) AS n, count(*) FILTER (WHERE id = $1) AS renamed FROM transaction_changes`,
        [ids[5]],
      )
      expect(Number(rows[0]?.n)).toBe(10000)
      expect(Number(rows[0]?.renamed)).toBe(0)
      await check('a change pruned from the log before the lists found it')
      await other.transactions.update(workspaceId, ids[7] ?? 0, { name: 'GET /rare/later', by: BY })
      await checkMoved('a change after the lists were read again')
      // A write of more rows than lists are moved by is not logged: they read their rows again.
      await other.write(async (tx) => {
        await tx.transactions.createEncodedMany(
          { workspaceId, serviceId: service.id, by: BY },
          names.slice(0, 256).map((name) => ({
            name,
            description: null,
            dslType: 'GENERIC_DSL',
            tags: [],
            dslJson: dsl,
          })),
        )
        await tx.transactions.update(workspaceId, ids[8] ?? 0, {
          name: 'GET /rare/unlogged',
          by: BY,
        })
      })
      await other.transactions.deleteMany(workspaceId, ids.slice(300, 557))
      const logged = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM transaction_changes WHERE id = ANY($1::bigint[])',
        [[ids[8], ...ids.slice(300, 557)]],
      )
      expect(Number(logged.rows[0]?.n)).toBe(0)
      await check('a large write and a large delete')
    }, 120_000)

    it("stay exact while two pools change the same rows at once, a change waiting on the other's lock logging the row as the other left it", async () => {
      const { store, other, third, client, workspaceId, services } = await poolsOnOneDatabase([
        'a',
        'b',
      ])
      const [a, b] = services
      const names = scrambledNames(700)
      const ids = await insertRows(store, workspaceId, a.id, names, ['smoke'])
      const { check, checkMoved } = listChecks(store, client, workspaceId, filtersOf(a.id, b.id))
      await check('seeded')
      // Both pools rename, move, retag and delete rows among the same eight, in opposite orders.
      const shared = ids.slice(100, 108)
      const race = async (writer: typeof other, order: readonly number[], n: number) => {
        for (let round = 0; round < 6; round++) {
          for (const [i, id] of order.entries()) {
            if (i % 4 === 0) {
              await writer.transactions.update(workspaceId, id, {
                name: `GET /rare/${n}/${round}/${i}`,
                serviceId: round % 2 === 0 ? b.id : a.id,
                by: BY,
              })
            } else if (i % 4 === 1) {
              await writer.transactions.changeTags(
                workspaceId,
                [id, order[0] ?? id],
                { remove: ['smoke'] },
                BY,
              )
            } else {
              await writer.transactions.update(workspaceId, id, {
                name: `GET /orders/${n}${round}${i}`,
                by: BY,
              })
            }
          }
          await store.transactions.list(workspaceId, { contains: 'rare' }, { limit: 50, skip: 0 })
        }
        await writer.transactions.deleteMany(workspaceId, order.slice(0, 2))
      }
      await Promise.all([race(other, shared, 1), race(third, [...shared].reverse(), 2)])
      await check('after the race')

      // A change waiting on another's lock logs the row as that one left it, not as it read it
      // before: the lists read between the two commits hold the first change.
      const row = ids[300] ?? 0
      let firstDone!: () => void
      const firstWritten = new Promise<void>((resolve) => (firstDone = resolve))
      let commitFirst!: () => void
      const firstCommits = new Promise<void>((resolve) => (commitFirst = resolve))
      const first = other.write(async (tx) => {
        await tx.transactions.update(workspaceId, row, { name: 'GET /rare/first', by: BY })
        firstDone()
        await firstCommits
      })
      await firstWritten
      let secondDone!: () => void
      const secondWritten = new Promise<void>((resolve) => (secondDone = resolve))
      let commitSecond!: () => void
      const secondCommits = new Promise<void>((resolve) => (commitSecond = resolve))
      const second = third.write(async (tx) => {
        await tx.transactions.update(workspaceId, row, { name: 'GET /orders/second', by: BY })
        secondDone()
        await secondCommits
      })
      await vi.waitFor(async () => {
        const waiting = await client.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        )
        expect(Number(waiting.rows[0]?.n)).toBe(1)
      })
      commitFirst()
      await first
      await secondWritten
      await check('the first change committed, the second waiting to')
      commitSecond()
      await second
      await checkMoved('the second change committed')
    }, 120_000)
  },
)
