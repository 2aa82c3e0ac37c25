import { describe, expect, it } from 'vitest'
import { FairSlots } from '../../../../src/api/monitor/fair-slots.js'

const flush = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

describe('FairSlots', () => {
  it('caps each owner, and gives a freed slot to the waiting owner holding the fewest', async () => {
    const slots = new FairSlots(4, 3)
    const a = await Promise.all([slots.acquire('a'), slots.acquire('a'), slots.acquire('a')])
    const granted: string[] = []
    // A fourth run of `a` waits at its cap although a slot is free; `b` takes that slot at once.
    slots.acquire('a').then(
      () => granted.push('a4'),
      () => {},
    )
    const b1 = await slots.acquire('b')
    expect(slots.inUse).toBe(4)
    slots.acquire('b').then(
      () => granted.push('b2'),
      () => {},
    )
    slots.acquire('c').then(
      () => granted.push('c1'),
      () => {},
    )
    // A freed slot goes to c (holds none), then to b (holds none) before a (holds two).
    a[0]()
    await flush()
    expect(granted).toEqual(['c1'])
    b1()
    b1() // a second call gives nothing back twice
    await flush()
    expect(granted).toEqual(['c1', 'b2'])
    // Below its cap again, a's waiting run takes the next freed slot.
    a[1]()
    await flush()
    expect(granted).toEqual(['c1', 'b2', 'a4'])
    expect(slots.heldBy('a')).toBe(2)
    expect(slots.inUse).toBe(4)
  })
})
