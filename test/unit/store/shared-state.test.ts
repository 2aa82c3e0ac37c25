import { describe, expect, it, onTestFinished } from 'vitest'
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js'
import { freshPgDatabase, hasPostgres } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { mockServiceInput, seed } from './fixtures.js'

/*
 * What several platform instances share through the store (sessions, throttle counters, agents'
 * log lines, abandoned local runs): one SQL for both dialects, so each case runs on both stores.
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

function session(idHash: string, created: number, lastSeen = created) {
  return {
    idHash,
    apiKeyId: 'key-1',
    userId: null,
    monitorTokenId: null,
    sealed: 'sealed',
    created,
    lastSeen,
  }
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !hasPostgres },
])('shared instance state on $kind', ({ kind, skip }) => {
  it.skipIf(skip)(
    'keeps sessions bounded, touches them forward only, sweeps expired ones',
    async () => {
      const store = await open(kind)
      if (store === undefined) return
      expect(await store.uiSessions.create(session('a', 1000), 2)).toEqual([])
      expect(await store.uiSessions.create(session('b', 2000), 2)).toEqual([])
      const evicted = await store.uiSessions.create(session('c', 3000), 2)
      expect(evicted.map((s) => s.idHash)).toEqual(['a'])
      await store.uiSessions.touch('b', 5000)
      await store.uiSessions.touch('b', 4000)
      expect((await store.uiSessions.get('b'))?.lastSeen).toBe(5000)
      // idle since before 4000, or created before 0: c goes, b stays
      expect((await store.uiSessions.sweep(4000, 0)).map((s) => s.idHash)).toEqual(['c'])
      expect((await store.uiSessions.delete('b'))?.idHash).toBe('b')
      expect(await store.uiSessions.delete('b')).toBeUndefined()
    },
  )

  it.skipIf(skip)(
    'counts failures in fixed windows, restarts an ended one, and sweeps',
    async () => {
      const store = await open(kind)
      if (store === undefined) return
      const f = store.authFailures
      await f.bump(['a:1', 'k:x'], 1000, 500)
      const second = await f.bump(['a:1'], 1200, 500)
      expect(second.get('a:1')).toEqual({ count: 2, expires: 1500 })
      expect((await f.counts(['a:1', 'k:x', 'a:2'], 1400)).get('a:1')?.count).toBe(2)
      expect((await f.counts(['a:1'], 1500)).size).toBe(0)
      const restarted = await f.bump(['a:1'], 1600, 500)
      expect(restarted.get('a:1')).toEqual({ count: 1, expires: 2100 })
      // k:x ended at 1500; of the rest, past one counter the soonest-ending goes
      await f.bump(['a:3'], 1700, 500)
      expect(await f.sweep(1600, 1)).toBe(2)
      expect([...(await f.counts(['a:1', 'a:3', 'k:x'], 1700)).keys()]).toEqual(['a:3'])
    },
  )

  it.skipIf(skip)(
    'keeps an agent’s lines per mock service, and none for one that is gone',
    async () => {
      const store = await open(kind)
      if (store === undefined) return
      const world = await seed(store)
      const mock = await store.write(
        async (tx) =>
          await tx.mockServices.create(mockServiceInput(world.workspace.id, world.service.id)),
      )
      expect(await store.agentLogs.get(mock.id)).toBeUndefined()
      await store.agentLogs.put(mock.id, ['one', 'two \u0000 "quoted"'])
      await store.agentLogs.put(mock.id, ['three'])
      expect(await store.agentLogs.get(mock.id)).toEqual(['three'])
      await store.agentLogs.put(mock.id + 1000, ['nobody'])
      expect(await store.agentLogs.get(mock.id + 1000)).toBeUndefined()
      await store.agentLogs.delete(mock.id)
      expect(await store.agentLogs.get(mock.id)).toBeUndefined()
    },
  )
})
