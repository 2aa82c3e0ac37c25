/** A request whose body is still arriving (an exchange), as the body sweep sees it. */
export interface PendingBody {
  readonly arrivedAt: number
  /** Where this entry sits in its PendingBodies, -1 when in none; only PendingBodies writes it. */
  pendingSlot: number
  /** The request was destroyed before its body ended (the client went away). */
  readonly abandoned: boolean
  bodyTimedOut: () => void
  /** Closes the request of an abandoned body. */
  abortBody: () => void
  fail: (err: unknown) => void
}

/**
 * The requests whose body is still arriving, for the body-timeout sweep. A Set would do, but a Set
 * that goes from one entry to none rebuilds its table on every delete: one allocation per request
 * with a body. Here each entry knows its slot, removal moves the last entry into it, and the
 * array never shrinks, so adding and removing allocate nothing once it has grown.
 */
export class PendingBodies {
  private readonly entries: Array<PendingBody | null> = []
  private count = 0

  get size(): number {
    return this.count
  }

  // HOT PATH: once per request with a body.
  add(entry: PendingBody): void {
    if (entry.pendingSlot !== -1) return
    entry.pendingSlot = this.count
    this.entries[this.count++] = entry
  }

  // HOT PATH: once per request with a body.
  delete(entry: PendingBody): void {
    const slot = entry.pendingSlot
    if (slot === -1 || this.entries[slot] !== entry) return
    const last = this.entries[--this.count] as PendingBody
    this.entries[slot] = last
    last.pendingSlot = slot
    this.entries[this.count] = null
    entry.pendingSlot = -1
  }

  /**
   * Calls `visit` for every entry; `visit` may delete the entry it is given (the walk goes from
   * the last slot down, so the entry moved into a freed slot has been visited already).
   */
  forEach(visit: (entry: PendingBody) => void): void {
    for (let i = this.count - 1; i >= 0; i--) {
      if (i >= this.count) continue
      visit(this.entries[i] as PendingBody)
    }
  }
}
