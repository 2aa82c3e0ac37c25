/** Gives back a slot; calling it twice gives back one. */
type ReleaseSlot = () => void

interface Waiter {
  grant: () => void
  /** Arrival order, for ties between accounts. */
  seq: number
}

/**
 * Execution slots shared fairly between owners (accounts): at most `total` holders at once, one
 * owner at most `perOwner` of them, so that one account's flood (long pauses, a bucket trigger over
 * hundreds of tests) always leaves slots to the others. A freed slot goes to the waiting owner with
 * the fewest slots held, the longest waiting among equals; an owner's own waiters keep their order.
 *
 * @example
 * const slots = new FairSlots(32, 16)
 * const release = await slots.acquire(accountId)
 * try { await run() } finally { release() }
 */
export class FairSlots {
  readonly #held = new Map<string, number>()
  readonly #waiting = new Map<string, Waiter[]>()
  #inUse = 0
  #seq = 0

  constructor(
    readonly total: number,
    readonly perOwner: number,
  ) {}

  /** Resolves with the release of a slot, once `owner` may hold one more. */
  async acquire(owner: string): Promise<ReleaseSlot> {
    if (
      this.#inUse < this.total &&
      this.heldBy(owner) < this.perOwner &&
      !this.#waiting.has(owner)
    ) {
      return this.#take(owner)
    }
    return await new Promise<ReleaseSlot>((resolve) => {
      const queue = this.#waiting.get(owner) ?? []
      queue.push({ grant: () => resolve(this.#take(owner)), seq: this.#seq++ })
      this.#waiting.set(owner, queue)
    })
  }

  heldBy(owner: string): number {
    return this.#held.get(owner) ?? 0
  }

  /** Slots held now, all owners together. */
  get inUse(): number {
    return this.#inUse
  }

  #take(owner: string): ReleaseSlot {
    this.#inUse++
    this.#held.set(owner, this.heldBy(owner) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      this.#inUse--
      const left = this.heldBy(owner) - 1
      if (left === 0) this.#held.delete(owner)
      else this.#held.set(owner, left)
      this.#grantWaiting()
    }
  }

  #grantWaiting(): void {
    while (this.#inUse < this.total) {
      let next: { owner: string; queue: Waiter[] } | null = null
      for (const [owner, queue] of this.#waiting) {
        const held = this.heldBy(owner)
        if (held >= this.perOwner) continue
        const best =
          next === null
            ? null
            : { held: this.heldBy(next.owner), seq: next.queue[0]?.seq ?? Infinity }
        if (
          best === null ||
          held < best.held ||
          (held === best.held && (queue[0]?.seq ?? Infinity) < best.seq)
        ) {
          next = { owner, queue }
        }
      }
      if (next === null) return
      const waiter = next.queue.shift()
      if (next.queue.length === 0) this.#waiting.delete(next.owner)
      waiter?.grant()
    }
  }
}
