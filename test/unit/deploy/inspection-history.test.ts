import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { copyHistoriesToStore } from '../../../src/deploy/history-storage.js'
import { InspectionHistory } from '../../../src/deploy/inspection-history.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { mockServiceInput, openTestStore, seed } from '../store/fixtures.js'

/** A runtime's admin API holding `count` records (ids 1..count, newest first), each detail `bodyBytes` long. */
async function fakeRuntime(
  count: number,
  bodyBytes = 10,
): Promise<{ url: string; token: null; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    res.setHeader('content-type', 'application/json')
    const one = /^\/inspection\/(\d+)$/.exec(url.pathname)
    if (one !== null) {
      const id = Number(one[1])
      res.end(
        JSON.stringify({ result: { id, url: `/r/${id}`, requestBody: 'x'.repeat(bodyBytes) } }),
      )
      return
    }
    const skip = Number(url.searchParams.get('skip') ?? 0)
    const limit = Number(url.searchParams.get('limit') ?? 50)
    const ids = Array.from({ length: count }, (_, i) => count - i).slice(skip, skip + limit)
    res.end(JSON.stringify({ result: ids.map((id) => ({ id, url: `/r/${id}` })), total: count }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => {
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: null, server }
}

describe('the inspection history of stopped runtimes', () => {
  it('keeps each run before the earlier ones, offsets ids past them, and is bounded in records', async () => {
    const dataDir = tempDir('understudy-history-unit-')
    const history = new InspectionHistory({ dataDir, log: createSilentLogger(), maxRecords: 8 })
    await history.keep(3, await fakeRuntime(5))
    let kept = await history.of(3)
    expect(kept.base).toBe(5)
    expect(kept.entries.map((e) => [e.id, e['url'], e.previousRun])).toEqual(
      [5, 4, 3, 2, 1].map((id) => [id, `/r/${id}`, true]),
    )

    // A second run numbered from 1 again: its records come first, with ids past the first run's.
    await history.keep(3, await fakeRuntime(4))
    kept = await history.of(3)
    expect(kept.base).toBe(9)
    expect(kept.entries.map((e) => e.id)).toEqual([9, 8, 7, 6, 5, 4, 3, 2])
    expect(kept.entries.map((e) => e['url'])).toEqual([
      '/r/4',
      '/r/3',
      '/r/2',
      '/r/1',
      '/r/5',
      '/r/4',
      '/r/3',
      '/r/2',
    ])
    // Details of both runs survive the rewrite, read back by the platform's id.
    expect(await history.detail(3, 9)).toMatchObject({ url: '/r/4', previousRun: true })
    expect(await history.detail(3, 2)).toMatchObject({ url: '/r/2' })
    expect(await history.detail(3, 1)).toBeUndefined()

    // Read again from disk by a new instance (the platform restarted).
    const reopened = new InspectionHistory({ dataDir, log: createSilentLogger() })
    expect((await reopened.of(3)).entries.map((e) => e.id)).toEqual([9, 8, 7, 6, 5, 4, 3, 2])
    expect(await reopened.detail(3, 6)).toMatchObject({ url: '/r/1' })

    await reopened.forget(3)
    expect((await reopened.of(3)).entries).toEqual([])
    const dir = join(dataDir, 'inspection-history')
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
  })

  it('stops at the bytes bound, newest first', async () => {
    const history = new InspectionHistory({
      dataDir: tempDir('understudy-history-bytes-'),
      log: createSilentLogger(),
      maxBytes: 1000,
    })
    await history.keep(1, await fakeRuntime(20, 300))
    const { entries } = await history.of(1)
    expect(entries.length).toBeGreaterThan(0)
    expect(entries.length).toBeLessThan(4)
    expect(entries[0]?.id).toBe(20)
  })

  it('leaves the history as it was when the runtime does not answer', async () => {
    const history = new InspectionHistory({
      dataDir: tempDir('understudy-history-gone-'),
      log: createSilentLogger(),
    })
    await history.keep(1, await fakeRuntime(2))
    const gone = await fakeRuntime(0)
    await new Promise((resolve) => gone.server.close(resolve))
    await history.keep(1, gone)
    expect((await history.of(1)).entries.map((e) => e.id)).toEqual([2, 1])
  })

  it('kept in the store, is read by every instance on it, bounded and ids continuing', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const on = (maxBytes?: number): InspectionHistory =>
      new InspectionHistory({
        dataDir: tempDir('understudy-history-store-'),
        log: createSilentLogger(),
        store: store.keptInspections,
        maxRecords: 8,
        ...(maxBytes === undefined ? {} : { maxBytes }),
      })
    const a = on()
    const b = on()
    // B reads (and caches) the empty history before A keeps anything.
    expect(await b.of(mock.id)).toEqual({ base: 0, entries: [] })

    await a.keep(mock.id, await fakeRuntime(5))
    expect((await b.of(mock.id)).entries.map((e) => e.id)).toEqual([5, 4, 3, 2, 1])
    expect(await b.detail(mock.id, 4)).toMatchObject({ url: '/r/4', previousRun: true })

    // B keeps the next run: A, which cached the first, sees both, ids past the first run's.
    await b.keep(mock.id, await fakeRuntime(4))
    const kept = await a.of(mock.id)
    expect(kept.base).toBe(9)
    expect(kept.entries.map((e) => e.id)).toEqual([9, 8, 7, 6, 5, 4, 3, 2])
    expect(await a.detail(mock.id, 6)).toMatchObject({ url: '/r/1' })
    expect(await a.detail(mock.id, 1)).toBeUndefined()

    // Bounded in bytes as in files
    const small = on(1000)
    await small.keep(mock.id, await fakeRuntime(20, 300))
    const bounded = (await a.of(mock.id)).entries
    expect(bounded.length).toBeGreaterThan(0)
    expect(bounded.length).toBeLessThan(4)
    expect(bounded[0]?.id).toBe(29)

    await b.forget(mock.id)
    expect((await a.of(mock.id)).entries).toEqual([])
    expect(await store.keptInspections.version(mock.id)).toBeUndefined()
  })

  it('kept in files, is copied into the store as it was (admin migrate)', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const dataDir = tempDir('understudy-history-copy-')
    const files = new InspectionHistory({ dataDir, log: createSilentLogger() })
    await files.keep(mock.id, await fakeRuntime(3))
    await files.keep(mock.id, await fakeRuntime(2))
    // A history of a mock service the store does not have is skipped.
    await files.keep(mock.id + 1000, await fakeRuntime(1))

    expect(await copyHistoriesToStore(dataDir, store.keptInspections, createSilentLogger())).toBe(1)
    const copied = new InspectionHistory({
      dataDir: tempDir('understudy-history-copied-'),
      log: createSilentLogger(),
      store: store.keptInspections,
    })
    expect(await copied.of(mock.id)).toEqual(await files.of(mock.id))
    expect(await copied.detail(mock.id, 5)).toEqual(await files.detail(mock.id, 5))
    expect(await copied.detail(mock.id, 1)).toMatchObject({ url: '/r/1', previousRun: true })
  })
})
