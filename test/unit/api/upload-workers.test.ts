import { describe, expect, it, onTestFinished } from 'vitest'
import {
  SpareImportWorker,
  UploadWorkers,
  uploadInWorkers,
} from '../../../src/api/v1/upload/off-thread.js'
import type { ImportResult } from '../../../importers/index.js'
import { ALL, BY, openTestStore, seed } from '../store/fixtures.js'
import { waitFor } from '../../helpers/wait.js'

/* uploadInWorkers: the importer and writer threads of a large upload, against a real store. */

/** A store with the seed's accounts, the two threads of an upload (closed after the test), and a target in the seed's service. */
async function setUp() {
  const { store } = await openTestStore()
  const world = await seed(store)
  const workers = new UploadWorkers()
  onTestFinished(() => workers.close())
  const target = {
    accountId: world.account.id,
    workspaceId: world.workspace.id,
    serviceId: world.service.id,
    serviceName: world.service.name,
    by: BY,
  }
  return { store, world, workers, target }
}

const file = (names: string[]) =>
  Buffer.from(
    JSON.stringify({
      transactions: names.map((name) => ({
        name,
        tags: ['bulk'],
        dsl: { requestDsl: { method: 'GET', path: `/${name}` }, responseDsl: { status: 200 } },
      })),
    }),
  )

describe('uploadInWorkers', () => {
  it(
    'stores the files in order through the writer thread and answers the created Transactions as JSON',
    { timeout: 30_000 },
    async () => {
      const { store, world, workers, target } = await setUp()
      const out = await uploadInWorkers(
        workers,
        store,
        [
          { bytes: file(['a', 'b']), fileName: 'one.json' },
          { bytes: file(['c']), fileName: 'two.json' },
        ],
        {},
        target,
      )
      const answer = JSON.parse(Buffer.concat(out.resultJson).toString('utf8')) as Array<{
        id: number
        name: string
        tags: string[]
        serviceName: string
      }>
      expect(answer.map((t) => t.name)).toEqual(['a', 'b', 'c'])
      expect(answer[0]).toMatchObject({ tags: ['bulk'], serviceName: world.service.name })
      expect(out.files.map((f) => [f.file, f.count])).toEqual([
        ['one.json', 2],
        ['two.json', 1],
      ])
      const stored = await store.transactions.list(world.workspace.id, {}, ALL)
      expect(stored.items.map((t) => t.id).sort()).toEqual(answer.map((t) => t.id).sort())
      expect((await store.tags.list(world.account.id, ALL)).items.map((t) => t.name)).toEqual([
        'bulk',
      ])
    },
  )

  it(
    'answers ERR_API_NOT_FOUND and stores nothing when the service is gone by the time of the write',
    { timeout: 30_000 },
    async () => {
      const { store, world, workers, target } = await setUp()
      const gone = { ...target, serviceId: 987654, serviceName: 'gone' }
      await expect(
        uploadInWorkers(workers, store, [{ bytes: file(['a']), fileName: 'one.json' }], {}, gone),
      ).rejects.toMatchObject({ code: 'ERR_API_NOT_FOUND' })
      expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(0)
      expect((await store.tags.list(world.account.id, ALL)).total).toBe(0)
      // the store writes again
      await store.tags.create({
        accountId: world.account.id,
        name: 'after',
        description: null,
        by: BY,
      })
      expect((await store.tags.list(world.account.id, ALL)).total).toBe(1)
    },
  )

  it(
    'answers the importer error naming the file, and a closed worker refuses further requests',
    { timeout: 30_000 },
    async () => {
      const { store, world, workers, target } = await setUp()
      await expect(
        uploadInWorkers(
          workers,
          store,
          [
            {
              bytes: Buffer.from('{"log": {"entries": [{"request": {}}]}}'),
              fileName: 'broken.har',
            },
          ],
          {},
          target,
        ),
      ).rejects.toMatchObject({
        code: 'ERR_IMPORT_INVALID',
        message: expect.stringContaining('broken.har') as unknown,
      })
      workers.close()
      await expect(
        uploadInWorkers(workers, store, [{ bytes: file(['a']), fileName: 'one.json' }], {}, target),
      ).rejects.toMatchObject({ code: 'ERR_INTERNAL' })
      expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(0)
    },
  )
})

describe('SpareImportWorker', () => {
  const waitUntil = async (check: () => boolean): Promise<void> => {
    await waitFor(check, 'the spare worker', { timeoutMs: 2000, intervalMs: 10 })
  }

  it(
    'keeps one worker started, gives it out, and starts the next only once that one is closed',
    { timeout: 30_000 },
    async () => {
      const spare = new SpareImportWorker(0, 20)
      onTestFinished(() => spare.close())
      await waitUntil(() => spare.waiting)
      expect(spare.waiting).toBe(true)
      const worker = spare.take()
      expect(spare.waiting).toBe(false)
      const result = await worker.request<ImportResult>({
        type: 'job',
        job: 'document',
        input: { bytes: file(['a']), fileName: 'one.json' },
        ctx: {},
      })
      expect(result.document.transactions.map((t) => t.name)).toEqual(['a'])
      await new Promise((resolve) => setTimeout(resolve, 100))
      // no new spare loads while the one given out works
      expect(spare.waiting).toBe(false)
      worker.close()
      await waitUntil(() => spare.waiting)
      expect(spare.waiting).toBe(true)
      spare.close()
      expect(spare.waiting).toBe(false)
      // once closed, it starts no more: a worker taken now is started for the caller alone
      const late = spare.take()
      late.close()
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(spare.waiting).toBe(false)
    },
  )
})
