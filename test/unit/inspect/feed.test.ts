import { describe, expect, it } from 'vitest'
import { InspectionCursor, type FeedPage } from '../../../src/inspect/index.js'

interface E {
  id: number
  statusCode?: number
}

/** A ring of `capacity` entries, newest first, read by pages. */
function ring(capacity: number) {
  let entries: E[] = []
  let next = 1
  return {
    add: (count: number, statusCode = 200) => {
      for (let i = 0; i < count; i++) entries.unshift({ id: next++, statusCode })
      entries = entries.slice(0, capacity)
    },
    complete: (id: number) => {
      const e = entries.find((x) => x.id === id)
      if (e !== undefined) e.statusCode = 200
    },
    restart: () => {
      entries = []
      next = 1
    },
    read: async (skip: number, limit: number): Promise<FeedPage<E>> => ({
      entries: entries.slice(skip, skip + limit),
      total: entries.length,
    }),
  }
}

describe('InspectionCursor', () => {
  it('delivers every entry of a burst larger than a page, once, and counts what the ring evicted unread', async () => {
    const r = ring(5000)
    const cursor = new InspectionCursor<E>()
    r.add(150)
    const first = await cursor.next(r.read)
    expect(first !== null && first !== 'stop' ? first.entries.length : -1).toBe(100)
    r.add(2500)
    const burst = await cursor.next(r.read)
    expect(
      burst !== null && burst !== 'stop'
        ? [burst.entries.length, burst.dropped, burst.entries[0]?.id]
        : null,
    ).toEqual([2500, 0, 2650])
    expect(await cursor.next(r.read)).toBeNull()
    r.add(7000)
    const overflow = await cursor.next(r.read)
    expect(
      overflow !== null && overflow !== 'stop' ? [overflow.entries.length, overflow.dropped] : null,
    ).toEqual([5000, 2000])
  })

  it('delivers an entry in flight once it completes, and resets on a restarted runtime', async () => {
    const r = ring(100)
    const cursor = new InspectionCursor<E>()
    r.add(2)
    await cursor.next(r.read)
    r.add(1, 0)
    r.add(1)
    const step = await cursor.next(r.read)
    expect(step !== null && step !== 'stop' ? step.entries.map((e) => e.id) : null).toEqual([4])
    r.complete(3)
    const later = await cursor.next(r.read)
    expect(later !== null && later !== 'stop' ? later.entries.map((e) => e.id) : null).toEqual([3])
    r.restart()
    r.add(1)
    const reset = await cursor.next(r.read)
    expect(
      reset !== null && reset !== 'stop' ? [reset.kind, reset.entries.map((e) => e.id)] : null,
    ).toEqual(['reset', [1]])
  })
})
