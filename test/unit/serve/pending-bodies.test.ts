import { describe, expect, it } from 'vitest'
import { PendingBodies, type PendingBody } from '../../../src/serve/pending-bodies.js'

function entry(name: string): PendingBody & { name: string } {
  return {
    name,
    arrivedAt: 0,
    pendingSlot: -1,
    abandoned: false,
    bodyTimedOut: () => {},
    abortBody: () => {},
    fail: () => {},
  }
}

function names(list: PendingBodies): string[] {
  const seen: string[] = []
  list.forEach((e) => seen.push((e as PendingBody & { name: string }).name))
  return seen.sort()
}

describe('PendingBodies', () => {
  it('holds what was added until it is deleted, from any place', () => {
    const list = new PendingBodies()
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(entry) as [
      ReturnType<typeof entry>,
      ReturnType<typeof entry>,
      ReturnType<typeof entry>,
      ReturnType<typeof entry>,
    ]
    for (const e of [a, b, c, d]) list.add(e)
    expect(list.size).toBe(4)
    list.delete(b)
    expect(names(list)).toEqual(['a', 'c', 'd'])
    list.delete(a)
    list.delete(a)
    expect(list.size).toBe(2)
    expect(names(list)).toEqual(['c', 'd'])
    list.add(b)
    list.add(b)
    expect(names(list)).toEqual(['b', 'c', 'd'])
    for (const e of [b, c, d]) list.delete(e)
    expect(list.size).toBe(0)
    expect(names(list)).toEqual([])
    expect(b.pendingSlot).toBe(-1)
  })

  it('visits every entry once while the visitor deletes entries', () => {
    const list = new PendingBodies()
    const all = Array.from({ length: 7 }, (_, i) => entry(String(i)))
    for (const e of all) list.add(e)
    const visited: string[] = []
    list.forEach((e) => {
      const named = e as PendingBody & { name: string }
      visited.push(named.name)
      // Every other entry leaves during the walk, as a body timing out does.
      if (Number(named.name) % 2 === 0) list.delete(e)
    })
    expect(visited.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6'])
    expect(names(list)).toEqual(['1', '3', '5'])
  })

  it('ignores an entry deleted from a list it is not in', () => {
    const list = new PendingBodies()
    const other = new PendingBodies()
    const a = entry('a')
    const b = entry('b')
    list.add(a)
    other.add(b)
    // b's slot is 0 in `other`; deleting it from `list` must not remove a.
    list.delete(b)
    expect(names(list)).toEqual(['a'])
  })
})
