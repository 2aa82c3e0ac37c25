import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { writeThroughOwnConnection, type OwnWriteTarget } from '../../../src/store/index.js'
import { ALL, BY, onPostgres, openTestStore, seed } from './fixtures.js'

/*
 * store.writeElsewhere + writeThroughOwnConnection: a write made through a connection of its own
 * (a large upload's writer thread) while the store's own writes wait.
 */

const row = (name: string) => ({
  name,
  description: null,
  dslType: 'GENERIC_DSL',
  tags: [],
  dslJson: '{"requestDsl":{},"responseDsl":{"status":200}}',
})

describe('store.writeElsewhere', () => {
  it('commits what the own connection writes, and readers see it afterwards', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ids = await store.writeElsewhere(async (target) => {
      // The store's own database: its file on SQLite, its URL on PostgreSQL.
      expect(target).toMatchObject(
        onPostgres
          ? { postgresUrl: expect.stringMatching(/^postgres:/) }
          : { file: expect.stringMatching(/understudy\.db$/) },
      )
      return await writeThroughOwnConnection(
        target,
        async (tx) =>
          await tx.transactions.createEncodedMany(
            { workspaceId: world.workspace.id, serviceId: world.service.id, by: BY },
            [row('a'), row('b')],
          ),
      )
    })
    expect(ids).toHaveLength(2)
    const listed = await store.transactions.list(world.workspace.id, {}, ALL)
    expect(listed.items.map((t) => t.name).sort()).toEqual(['a', 'b'])
    expect(listed.items[0]?.createdBy).toBe(BY)
  })

  it('rolls back the own connection on a throw, rethrows, and leaves the store writable', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const boom = new Error('boom')
    await expect(
      store.writeElsewhere(
        async (target) =>
          await writeThroughOwnConnection(target, async (tx) => {
            await tx.transactions.createEncodedMany(
              { workspaceId: world.workspace.id, serviceId: world.service.id, by: BY },
              [row('a')],
            )
            throw boom
          }),
      ),
    ).rejects.toBe(boom)
    expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(0)
    await store.tags.create({ accountId: world.account.id, name: 't', description: null, by: BY })
    expect((await store.tags.list(world.account.id, ALL)).total).toBe(1)
  })

  it('holds the store own writes until it settles: a write queued meanwhile runs after, and sees its rows', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const order: string[] = []
    let release = (): void => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const elsewhere = store.writeElsewhere(
      async (target) =>
        await writeThroughOwnConnection(target, async (tx) => {
          await tx.transactions.createEncodedMany(
            { workspaceId: world.workspace.id, serviceId: world.service.id, by: BY },
            [row('first')],
          )
          order.push('elsewhere wrote')
          await held
          order.push('elsewhere done')
        }),
    )
    const queued = store.write(async (tx) => {
      order.push('write ran')
      return (await tx.transactions.list(world.workspace.id, {}, ALL)).total
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(order).toEqual(['elsewhere wrote'])
    release()
    await elsewhere
    expect(await queued).toBe(1)
    expect(order).toEqual(['elsewhere wrote', 'elsewhere done', 'write ran'])
  })

  it('is refused inside a write (it would wait for itself)', async () => {
    const { store } = await openTestStore()
    await seed(store)
    await expect(
      store.write(async () => await store.writeElsewhere(async () => 1)),
    ).rejects.toMatchObject({ code: 'ERR_STORE_FAILED' })
  })

  it.skipIf(onPostgres)(
    'gets its lock back when the thread writing elsewhere is terminated mid-transaction [SQLite only: the thread holds the file]',
    { timeout: 20_000 },
    async () => {
      const { store } = await openTestStore()
      const world = await seed(store)
      // A thread that opens the file, begins a write and inserts, then waits forever: terminated,
      // its connection is closed with it (better-sqlite3 closes on thread exit) and rolls back.
      const driver = (await import('node:module'))
        .createRequire(import.meta.url)
        .resolve('better-sqlite3')
      await store.writeElsewhere(async (target: OwnWriteTarget) => {
        const worker = new Worker(
          `
        const { workerData, parentPort } = require('node:worker_threads')
        const db = new (require(workerData.driver))(workerData.file)
        db.exec('BEGIN IMMEDIATE')
        db.prepare("UPDATE services SET description = 'half-way' WHERE id = ?").run(workerData.service)
        parentPort.postMessage('begun')
        setInterval(() => {}, 1000)
      `,
          {
            eval: true,
            workerData: {
              driver,
              file: 'file' in target ? target.file : '',
              service: world.service.id,
            },
          },
        )
        await new Promise((resolve) => worker.once('message', resolve))
        await worker.terminate()
      })
      const renamed = await store.services.update(world.workspace.id, world.service.id, {
        name: 'after',
        by: BY,
      })
      expect(renamed).toMatchObject({ name: 'after', description: world.service.description })
    },
  )
})
