import { describe, expect, it, onTestFinished } from 'vitest'
import {
  openPostgresStore,
  openSqliteStore,
  type StoredAdminCall,
  type Store,
} from '../../../src/store/index.js'
import { freshPgDatabase, hasPostgres } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * The mailbox of admin calls relayed to agents (one SQL for both dialects), as two platform
 * instances on one store use it: a call is handed out once however many polls take at the same
 * time, only inside its take window, answered only by the ship that took it, and swept once its
 * life is over.
 */

/**
 * Two stores on the same data, as two platform instances open it; on SQLite (one instance per
 * file) the one store twice, its takers running at the same time all the same.
 */
async function openTwice(kind: 'sqlite' | 'postgres'): Promise<[Store, Store] | undefined> {
  if (kind === 'sqlite') {
    const store = await openSqliteStore({ dataDir: tempDir() })
    onTestFinished(async () => await store.close())
    return [store, store]
  }
  const url = await freshPgDatabase()
  if (url === undefined) return undefined
  const first = await openPostgresStore({ url })
  const second = await openPostgresStore({ url })
  onTestFinished(async () => {
    await second.close()
    await first.close()
  })
  return [first, second]
}

const NOW = 1_800_000_000_000

function callFor(shipId: string, n: number): StoredAdminCall {
  return {
    callId: `call-${shipId}-${n}`,
    harborId: 'harbor-1',
    shipId,
    mockServiceId: 7,
    method: 'GET',
    path: `/inspection?skip=${n}`,
    json: n % 2 === 0 ? null : JSON.stringify({ n }),
    timeoutMs: 1000,
  }
}

async function queue(store: Store, call: StoredAdminCall, created = NOW): Promise<void> {
  await store.adminCalls.queue({
    ...call,
    created,
    takeBy: created + 10_000,
    answerWithinMs: 11_000,
  })
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !hasPostgres },
])('admin-call mailbox on $kind', ({ kind, skip }) => {
  it.skipIf(skip)(
    'hands each call out once to concurrent takers on two instances, oldest first',
    async () => {
      const stores = await openTwice(kind)
      if (stores === undefined) return
      const [a, b] = stores
      const calls = Array.from({ length: 24 }, (_, n) => callFor('ship-a', n))
      for (const [n, call] of calls.entries()) await queue(n % 2 === 0 ? a : b, call, NOW + n)
      await queue(a, callFor('ship-b', 0))
      const taken: StoredAdminCall[] = []
      // Four polls at a time, two per instance, until nothing is left.
      for (let round = 0; round < 24; round++) {
        const batch = await Promise.all(
          [a, a, b, b].map(async (store) => await store.adminCalls.take('ship-a', 3, NOW + 100)),
        )
        for (const got of batch) taken.push(...got)
        if (batch.every((got) => got.length === 0)) break
      }
      expect(taken).toHaveLength(24)
      expect(new Set(taken.map((c) => c.callId)).size).toBe(24)
      expect(taken.find((c) => c.callId === 'call-ship-a-1')).toEqual(calls[1])
      // Another ship's call is not among them, and is still there for its own poll.
      expect(await b.adminCalls.take('ship-b', 5, NOW + 100)).toEqual([callFor('ship-b', 0)])
      // One poll gets the oldest first.
      for (let n = 0; n < 3; n++) await queue(a, callFor('ship-c', n), NOW + 10 - n)
      expect((await b.adminCalls.take('ship-c', 2, NOW + 100)).map((c) => c.callId)).toEqual([
        'call-ship-c-2',
        'call-ship-c-1',
      ])
    },
  )

  it.skipIf(skip)(
    'takes a call only inside its take window, takes its answer only until its answer time, and sweeps ended ones',
    async () => {
      const stores = await openTwice(kind)
      if (stores === undefined) return
      const [a, b] = stores
      await queue(a, callFor('ship-a', 1))
      // The take window ended (NOW + 10 s): nobody takes it, and its caller withdraws it.
      expect(await b.adminCalls.take('ship-a', 4, NOW + 10_000)).toEqual([])
      expect(await a.adminCalls.withdrawQueued('call-ship-a-1')).toBe(true)
      expect(await b.adminCalls.take('ship-a', 4, NOW)).toEqual([])

      await queue(a, callFor('ship-a', 2))
      expect(await b.adminCalls.take('ship-a', 4, NOW + 1000)).toHaveLength(1)
      // Taken: no longer withdrawn as queued; answerable until take + 11 s.
      expect(await a.adminCalls.withdrawQueued('call-ship-a-2')).toBe(false)
      expect(await a.adminCalls.answerBy('call-ship-a-2')).toBe(NOW + 12_000)
      const late = { status: 200, body: '{"result":1}' }
      expect(await b.adminCalls.answer('ship-a', 'call-ship-a-2', late, NOW + 12_001)).toBe(false)
      expect(await a.adminCalls.withdraw('call-ship-a-2')).toBeUndefined()

      // Rows whose life ended (take window + answer time) go at a sweep; the others stay.
      await queue(a, callFor('ship-a', 3), NOW)
      await queue(a, callFor('ship-a', 4), NOW + 60_000)
      expect(await b.adminCalls.sweep(NOW + 21_001)).toBe(1)
      expect(await b.adminCalls.take('ship-a', 4, NOW + 60_001)).toEqual([callFor('ship-a', 4)])
    },
  )

  it.skipIf(skip)(
    'takes an answer only from the ship that took the call, once, and hands it to the caller once',
    async () => {
      const stores = await openTwice(kind)
      if (stores === undefined) return
      const [a, b] = stores
      await queue(a, callFor('ship-a', 1))
      const answer = { status: 200, body: JSON.stringify({ result: { count: 3 } }) }
      // Not taken yet: nobody may answer it.
      expect(await b.adminCalls.answer('ship-a', 'call-ship-a-1', answer, NOW + 1)).toBe(false)
      await b.adminCalls.take('ship-a', 1, NOW + 1)
      expect(await b.adminCalls.answer('ship-b', 'call-ship-a-1', answer, NOW + 2)).toBe(false)
      expect(await b.adminCalls.answer('ship-a', 'no-such-call', answer, NOW + 2)).toBe(false)
      expect(await a.adminCalls.collect('call-ship-a-1')).toBeUndefined()
      expect(await b.adminCalls.answer('ship-a', 'call-ship-a-1', answer, NOW + 2)).toBe(true)
      const again = { status: 500, body: '{}' }
      expect(await b.adminCalls.answer('ship-a', 'call-ship-a-1', again, NOW + 3)).toBe(false)
      expect(await a.adminCalls.collect('call-ship-a-1')).toEqual(answer)
      expect(await a.adminCalls.collect('call-ship-a-1')).toBeUndefined()
      // An answer that came in just as the caller gave up is still handed back.
      await queue(a, callFor('ship-a', 2))
      await b.adminCalls.take('ship-a', 1, NOW + 1)
      await b.adminCalls.answer('ship-a', 'call-ship-a-2', answer, NOW + 2)
      expect(await a.adminCalls.withdraw('call-ship-a-2')).toEqual(answer)
    },
  )
})
