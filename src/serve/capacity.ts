/**
 * Counts requests in flight against a mock service's `capacity` (the most a replica serves at
 * once). Past it the runtime answers 503 with `Retry-After: 1` (docs/decisions.md#capacity).
 */
export class CapacityGate {
  private inFlight = 0

  /** null = unlimited. Changes when a new configuration is swapped in. */
  limit: number | null

  constructor(limit: number | null) {
    this.limit = limit
  }

  /** Takes a place; false when the limit is reached. */
  // HOT PATH
  tryAcquire(): boolean {
    if (this.limit !== null && this.inFlight >= this.limit) return false
    this.inFlight++
    return true
  }

  release(): void {
    if (this.inFlight > 0) this.inFlight--
  }

  /** Requests being served now. */
  get current(): number {
    return this.inFlight
  }
}
