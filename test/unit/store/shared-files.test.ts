import { randomBytes } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  openPostgresStore,
  openSqliteStore,
  StoredAssetFiles,
  type Store,
} from '../../../src/store/index.js'
import { freshPgDatabase, hasPostgres } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { mockServiceInput, seed } from './fixtures.js'

/*
 * What used to be files of one platform instance, as rows every instance reads: asset bytes in
 * chunks, and the inspection records kept from stopped runtimes. One SQL for both dialects, so
 * each case runs on both stores.
 */

async function open(kind: 'sqlite' | 'postgres'): Promise<Store | undefined> {
  let store: Store
  if (kind === 'sqlite') store = await openSqliteStore({ dataDir: tempDir() })
  else {
    const url = await freshPgDatabase()
    if (url === undefined) return undefined
    store = await openPostgresStore({ url })
  }
  onTestFinished(async () => await store.close())
  return store
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !hasPostgres },
])('shared files on $kind', ({ kind, skip }) => {
  it.skipIf(skip)('stores asset bytes in chunks and reads them back whole', async () => {
    const store = (await open(kind)) as Store
    let now = 1_000
    const files = new StoredAssetFiles(store.assetChunks, () => now)
    // Larger than two chunks, not a multiple of the chunk size, with every byte value.
    const big = randomBytes(2 * (1 << 20) + 12_345)
    const stored = await files.put(big)
    expect(stored.size).toBe(big.byteLength)
    expect((await files.get(stored.fileId))?.equals(big)).toBe(true)
    const empty = await files.put(Buffer.alloc(0))
    expect((await files.get(empty.fileId))?.byteLength).toBe(0)
    expect(await files.get('0b7c4c4e-5b9b-4a55-9d5e-2f3f1a4a9f00')).toBeUndefined()
    expect(await files.get('../understudy.db')).toBeUndefined()

    // Unreferenced chunks go only once no upload can still be writing them.
    expect(await files.removeOrphans(new Set([stored.fileId]))).toEqual([])
    now += 2 * 60 * 60 * 1000
    expect(await files.removeOrphans(new Set([stored.fileId]))).toEqual([empty.fileId])
    expect(await files.get(empty.fileId)).toBeUndefined()
    expect((await files.get(stored.fileId))?.equals(big)).toBe(true)

    await files.delete(stored.fileId)
    expect(await files.get(stored.fileId)).toBeUndefined()
    expect(await store.assetChunks.filesBefore(Number.MAX_SAFE_INTEGER)).toEqual([])
  })

  it.skipIf(skip)('keeps inspection records per mock service, versioned, whole', async () => {
    const store = (await open(kind)) as Store
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const kept = store.keptInspections
    expect(await kept.version(mock.id)).toBeUndefined()
    expect(await kept.entries(mock.id)).toBeUndefined()

    const details = Buffer.from('{"a":1}{"b":"\u0000ü"}')
    await kept.put(mock.id, '{"base":2,"records":[]}', details)
    expect(await kept.entries(mock.id)).toEqual({ entries: '{"base":2,"records":[]}', version: 1 })
    expect((await kept.details(mock.id))?.equals(details)).toBe(true)
    expect((await kept.details(mock.id, { offset: 7, length: 13 }))?.toString()).toBe(
      '{"b":"\u0000ü"}',
    )

    await kept.put(mock.id, '{"base":5,"records":[]}', null)
    expect(await kept.version(mock.id)).toBe(2)
    expect(await kept.details(mock.id)).toBeUndefined()

    // A deleted mock service keeps none.
    await store.mockServices.delete(world.workspace.id, mock.id)
    expect(await kept.version(mock.id)).toBeUndefined()
    await kept.delete(mock.id)
  })
})
