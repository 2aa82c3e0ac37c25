import { recordBytes, type InspectionRecord, type NewInspectionRecord } from './record.js'

/** Bounds of a ring; see config's InspectionOptions for the defaults. */
export interface RingLimits {
  maxRecords: number
  maxBytes: number
  maxBodyBytes: number
}

/**
 * The inspection journal: a fixed-size ring buffer bounded by count and by bytes, O(1) append,
 * oldest evicted first (undici's fixed-queue idea). Ids are consecutive, so a lookup by id is
 * O(1) too.
 *
 * @example
 * const ring = new InspectionRing({ maxRecords: 2, maxBytes: 1 << 20, maxBodyBytes: 1024 })
 * ring.append(record); ring.newest(0, 10)
 */
export class InspectionRing {
  private readonly slots: Array<InspectionRecord | undefined>
  private readonly sizes: Float64Array
  private head = 0 // index of the next slot to write
  private count = 0
  private bytes = 0
  private nextId = 1
  readonly limits: Readonly<RingLimits>

  constructor (limits: RingLimits) {
    this.limits = { ...limits }
    this.slots = new Array<InspectionRecord | undefined>(limits.maxRecords)
    this.sizes = new Float64Array(limits.maxRecords)
  }

  /** Records held now. */
  get size (): number {
    return this.count
  }

  /** Bytes held now (estimate). */
  get heldBytes (): number {
    return this.bytes
  }

  /** Bodies longer than this are cut to it and flagged. */
  get maxBodyBytes (): number {
    return this.limits.maxBodyBytes
  }

  /**
   * Appends a record, evicting the oldest until both bounds hold; returns its id. Bodies must
   * already be cut to `maxBodyBytes` (see `truncateBody`).
   */
  // HOT PATH: once per request.
  append (input: NewInspectionRecord, sharedResponseBody = true): number {
    const size = recordBytes(input, sharedResponseBody)
    const capacity = this.slots.length
    while (this.count > 0 && (this.count === capacity || this.bytes + size > this.limits.maxBytes)) this.evictOldest()
    const record = input as InspectionRecord
    record.id = this.nextId++
    this.slots[this.head] = record
    this.sizes[this.head] = size
    this.head = (this.head + 1) % capacity
    this.count++
    this.bytes += size
    return record.id
  }

  /**
   * Adds bytes to a record already in the ring (its request body arrives after it was appended),
   * evicting older records if the byte bound now requires it. Ignored once the record is evicted.
   */
  account (id: number, extraBytes: number): void {
    const index = this.indexOf(id)
    if (index === -1 || extraBytes <= 0) return
    this.sizes[index] = (this.sizes[index] ?? 0) + extraBytes
    this.bytes += extraBytes
    while (this.count > 1 && this.bytes > this.limits.maxBytes && this.indexOf(id) !== this.oldestIndex()) this.evictOldest()
  }

  private oldestIndex (): number {
    const capacity = this.slots.length
    return (this.head - this.count + capacity) % capacity
  }

  private indexOf (id: number): number {
    const age = this.nextId - 1 - id
    if (!Number.isInteger(id) || age < 0 || age >= this.count) return -1
    const capacity = this.slots.length
    return (this.head - 1 - age + capacity * 2) % capacity
  }

  private evictOldest (): void {
    const oldest = this.oldestIndex()
    this.bytes -= this.sizes[oldest] ?? 0
    this.slots[oldest] = undefined
    this.count--
  }

  /** Records newest first, skipping `skip`, at most `limit`. */
  newest (skip: number, limit: number): InspectionRecord[] {
    const capacity = this.slots.length
    const out: InspectionRecord[] = []
    for (let i = skip; i < this.count && out.length < limit; i++) {
      const record = this.slots[(this.head - 1 - i + capacity * 2) % capacity]
      if (record !== undefined) out.push(record)
    }
    return out
  }

  /** One record by id, or undefined once evicted (or never assigned). */
  get (id: number): InspectionRecord | undefined {
    const index = this.indexOf(id)
    return index === -1 ? undefined : this.slots[index]
  }

  /** Forgets every record (ids keep increasing). */
  clear (): void {
    this.slots.fill(undefined)
    this.count = 0
    this.bytes = 0
  }
}

/**
 * A body cut to `max` bytes for the journal: the same Buffer when it fits (no copy), else a copy
 * of its head, so that the journal does not keep the whole request alive.
 */
export function truncateBody (body: Buffer | null, max: number): { body: Buffer | null; truncated: boolean } {
  if (body === null || body.length <= max) return { body, truncated: false }
  return { body: Buffer.from(body.subarray(0, max)), truncated: true }
}
