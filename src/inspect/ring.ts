import type { InspectionRecord } from './record.js'
import { RepeatedStrings, TRACKED_PLACES } from './repeated-strings.js'

/** Bounds of a ring; see config's InspectionOptions for the defaults. */
interface RingLimits {
  maxRecords: number
  maxBytes: number
  maxBodyBytes: number
}

/**
 * How a ring numbers its records: the first id, and the distance between consecutive ids. The
 * default (1, 1) numbers 1, 2, 3...; replica k of N in a cluster numbers k, k + N, k + 2N..., so
 * that ids stay unique across the replicas of one mock service and name their replica.
 */
export interface RingIds {
  start: number
  step: number
}

/** How a request ended, given once to `complete`. Short-lived: its fields are copied. */
export interface RecordOutcome {
  statusCode: number
  durationMs: number
  matched: boolean
  hasError: boolean
  source: 'MOCK' | 'LIVE'
  /** The exchange was recorded as a transaction; absent: false. */
  liveTransactionCreated?: boolean
  transactionId: number | null
  respondingTxn: string | null
  txnPriority: number | null
  /** Flat `[name, value, ...]`; kept by reference (compiled responses share theirs). */
  responseHeaders: readonly string[]
  /** Kept by reference: at most maxBodyBytes, shared with the compiled response when static. */
  responseBody: Buffer | null
  responseBodyTruncated: boolean
  /** Bytes the record keeps beyond the shared ones (a proxied or error body), for the byte bound. */
  ownBytes: number
  matchingData: unknown
}

const FLAG_MATCHED = 1
const FLAG_ERROR = 2
const FLAG_LIVE = 4
const FLAG_REQUEST_TRUNCATED = 8
const FLAG_RESPONSE_TRUNCATED = 16
/** The live answer became a recorded transaction (`noMatchingRequestPreference: record`). */
const FLAG_RECORDED = 32

/**
 * The inspection journal (docs/decisions.md#inspection-ring): a ring bounded by record count and by
 * bytes, O(1) append, oldest evicted first, lookups by id in O(1).
 *
 * The request side of every record (method, URL, headers, body) is copied into one preallocated
 * byte buffer, and the fixed fields live in typed arrays: recording a request leaves no object on
 * the JavaScript heap, so journaling 10,000 requests costs the garbage collector nothing (a heap
 * of retained records made every request measurably slower; bench/README.md). A string that
 * arrives with request after request is written as a reference to one kept copy
 * (RepeatedStrings). Responses are kept by reference, which for compiled responses costs nothing.
 * Records are decoded only when queried.
 *
 * @example
 * const ring = new InspectionRing({ maxRecords: 10_000, maxBytes: 64 << 20, maxBodyBytes: 65_536 })
 * const id = ring.append(Date.now(), 'GET', '/pets', req.rawHeaders, null)
 * ring.complete(id, outcome)
 * ring.get(id)?.statusCode // 200
 */
export class InspectionRing {
  readonly limits: Readonly<RingLimits>
  private data: Buffer
  /** The same bytes, for the fixed-size fields: one bounds-checked store each instead of four. */
  private view: DataView
  private readonly offset: Float64Array
  private readonly size: Float64Array
  private readonly own: Float64Array
  private readonly timestamp: Float64Array
  private readonly duration: Float64Array
  private readonly status: Uint16Array
  private readonly flags: Uint8Array
  private readonly txnId: Float64Array
  private readonly txnPriority: Float64Array
  private readonly txnName: Array<string | null>
  private readonly responseHeaders: Array<readonly string[] | null>
  private readonly responseBody: Array<Buffer | null>
  private readonly matchingData: unknown[]
  private readonly repeated = new RepeatedStrings()
  /** The repeated-string codes of the request being appended, by header place. */
  private readonly headerCodes = new Int32Array(HEADER_PLACES)
  /** Where the field after the last `readText` starts. */
  private readEnd = 0
  private head = 0 // next write position in `data`
  private first = 0 // slot of the oldest record
  private count = 0
  private bytes = 0 // request bytes in `data` plus the records' own response bytes
  private nextId: number // id of the next record
  private readonly idStep: number

  constructor(limits: RingLimits, ids: RingIds = { start: 1, step: 1 }) {
    if (!Number.isSafeInteger(ids.start) || !Number.isSafeInteger(ids.step) || ids.step < 1) {
      throw new RangeError(
        `ring ids need an integer start and a step >= 1, not ${ids.start}/${ids.step}`,
      )
    }
    this.limits = { ...limits }
    this.nextId = ids.start
    this.idStep = ids.step
    const n = limits.maxRecords
    // Outside the JavaScript heap. It starts small and doubles, up to maxBytes, only when the
    // records kept need the room: writing round a 64 MiB buffer would touch every page of it for
    // 10,000 records that need 1.5 MiB.
    this.data = Buffer.allocUnsafeSlow(Math.min(limits.maxBytes, INITIAL_BYTES))
    this.view = viewOf(this.data)
    this.offset = new Float64Array(n)
    this.size = new Float64Array(n)
    this.own = new Float64Array(n)
    this.timestamp = new Float64Array(n)
    this.duration = new Float64Array(n)
    this.status = new Uint16Array(n)
    this.flags = new Uint8Array(n)
    this.txnId = new Float64Array(n)
    this.txnPriority = new Float64Array(n)
    this.txnName = new Array<string | null>(n).fill(null)
    this.responseHeaders = new Array<readonly string[] | null>(n).fill(null)
    this.responseBody = new Array<Buffer | null>(n).fill(null)
    this.matchingData = new Array<unknown>(n).fill(null)
  }

  /** Records held now. */
  get length(): number {
    return this.count
  }

  /** Bytes held now: request sides in the buffer, plus responses that are not shared. */
  get heldBytes(): number {
    return this.bytes
  }

  /** Bodies longer than this are cut to it and flagged. */
  get maxBodyBytes(): number {
    return this.limits.maxBodyBytes
  }

  /**
   * Records the request side of a new record and returns its id. The body is copied (cut to
   * maxBodyBytes, flagged); if the record would not fit in the buffer at all, its body and then
   * its headers are left out, flagged as truncated.
   */
  // HOT PATH: once per request.
  append(
    timestamp: number,
    method: string,
    url: string,
    rawHeaders: readonly string[],
    body: Buffer | null,
  ): number {
    const repeated = this.repeated
    const methodCode = repeated.codeOf(0, method)
    let urlCode = repeated.codeOf(1, url)
    let headers = rawHeaders
    let headerBytes = this.codeHeaders(headers)
    let bodyLength = body === null ? 0 : Math.min(body.length, this.limits.maxBodyBytes)
    let truncated = body !== null && body.length > bodyLength
    const fixedBytes = textBytes(method, methodCode) + 4
    let size = fixedBytes + textBytes(url, urlCode) + headerBytes + bodyLength
    const capacity = this.limits.maxBytes
    if (size > capacity) {
      truncated = truncated || bodyLength > 0
      bodyLength = 0
      size = fixedBytes + textBytes(url, urlCode) + headerBytes
      if (size > capacity) {
        headers = []
        headerBytes = HEADER_COUNT_BYTES
        size = fixedBytes + textBytes(url, urlCode) + headerBytes
      }
      if (size > capacity) {
        url = url.slice(0, Math.max(0, capacity - 64))
        urlCode = -1
      }
      size = fixedBytes + textBytes(url, urlCode) + headerBytes
    }
    const slots = this.offset.length
    if (this.count === slots) this.evictOldest()
    if (this.data.length < capacity && this.needsRoom(size)) this.grow(size)
    let start = this.head
    const wrapping = start + size > this.data.length
    if (wrapping) start = 0
    // Oldest first: records in the tail skipped by a wrap, then those the new one overlaps, then
    // any needed to respect the byte bound.
    while (this.count > 0) {
      const oldest = this.first
      const at = this.offset[oldest] as number
      const end = at + (this.size[oldest] as number)
      const inSkippedTail = wrapping && at >= this.head
      const overlaps = at < start + size && end > start
      if (!inSkippedTail && !overlaps && this.bytes + size <= this.limits.maxBytes) break
      this.evictOldest()
    }
    if (this.count === 0) start = 0
    const slot = wrapSlot(this.first + this.count, slots)
    this.write(start, method, methodCode, url, urlCode, headers, body, bodyLength)
    this.offset[slot] = start
    this.size[slot] = size
    this.own[slot] = 0
    this.timestamp[slot] = timestamp
    this.duration[slot] = 0
    this.status[slot] = 0
    this.flags[slot] = truncated ? FLAG_REQUEST_TRUNCATED : 0
    this.txnId[slot] = NaN
    this.txnPriority[slot] = NaN
    // The slot's references are null already: evicting a record clears them.
    this.head = start + size
    this.count++
    this.bytes += size
    const id = this.nextId
    this.nextId += this.idStep
    return id
  }

  /** Completes a record with how its request ended; ignored once the record is evicted. */
  // HOT PATH: once per request.
  complete(id: number, outcome: RecordOutcome): void {
    const slot = this.slotOf(id)
    if (slot === -1) return
    this.status[slot] = outcome.statusCode
    this.duration[slot] = outcome.durationMs
    let flags = (this.flags[slot] as number) & FLAG_REQUEST_TRUNCATED
    if (outcome.matched) flags |= FLAG_MATCHED
    if (outcome.hasError) flags |= FLAG_ERROR
    if (outcome.source === 'LIVE') flags |= FLAG_LIVE
    if (outcome.responseBodyTruncated) flags |= FLAG_RESPONSE_TRUNCATED
    if (outcome.liveTransactionCreated === true) flags |= FLAG_RECORDED
    this.flags[slot] = flags
    this.txnId[slot] = outcome.transactionId ?? NaN
    this.txnPriority[slot] = outcome.txnPriority ?? NaN
    this.txnName[slot] = outcome.respondingTxn
    this.responseHeaders[slot] = outcome.responseHeaders
    this.responseBody[slot] = outcome.responseBody
    this.matchingData[slot] = outcome.matchingData
    if (outcome.ownBytes > 0) {
      this.own[slot] = (this.own[slot] as number) + outcome.ownBytes
      this.bytes += outcome.ownBytes
      // Keep the byte bound, never evicting the record just completed.
      while (this.count > 1 && this.bytes > this.limits.maxBytes && this.first !== slot) {
        this.evictOldest()
      }
    }
  }

  /** One record by id, decoded; undefined once evicted (or never assigned). */
  get(id: number): InspectionRecord | undefined {
    const slot = this.slotOf(id)
    return slot === -1 ? undefined : this.decode(slot, id)
  }

  /** Records newest first, skipping `skip`, at most `limit`. */
  newest(skip: number, limit: number): InspectionRecord[] {
    const out: InspectionRecord[] = []
    const newestId = this.nextId - this.idStep
    for (let i = skip; i < this.count && out.length < limit; i++) {
      const record = this.get(newestId - i * this.idStep)
      if (record !== undefined) out.push(record)
    }
    return out
  }

  /** Forgets every record (ids keep increasing). */
  clear(): void {
    while (this.count > 0) this.evictOldest()
    this.head = 0
    this.repeated.clear()
  }

  /** Strings kept once for records to refer to (see RepeatedStrings). */
  get repeatedStrings(): number {
    return this.repeated.size
  }

  /** Sets `headerCodes` for a request's headers; the bytes they take in the buffer. */
  private codeHeaders(headers: readonly string[]): number {
    const strings = headers.length & ~1
    const tracked = Math.min(strings, HEADER_PLACES)
    let bytes = HEADER_COUNT_BYTES + 4 * strings
    bytes += this.repeated.codeRun(headers, tracked, FIRST_HEADER_PLACE, this.headerCodes)
    for (let i = tracked; i < strings; i++) bytes += (headers[i] as string).length
    return bytes
  }

  /**
   * True when writing `size` bytes now would evict the oldest record for lack of room in the
   * buffer (rather than by the record count or the byte bound): the buffer should grow instead.
   */
  private needsRoom(size: number): boolean {
    if (this.count === 0) return size > this.data.length
    const wrapping = this.head + size > this.data.length
    const start = wrapping ? 0 : this.head
    const oldest = this.first
    const at = this.offset[oldest] as number
    const end = at + (this.size[oldest] as number)
    return (wrapping && at >= this.head) || (at < start + size && end > start)
  }

  /** Doubles the buffer (up to maxBytes) and lays the records out again from its start. */
  private grow(size: number): void {
    let length = this.data.length
    while (length < this.limits.maxBytes && length < (this.bytes + size) * 2) length *= 2
    const data = Buffer.allocUnsafeSlow(Math.min(length, this.limits.maxBytes))
    let at = 0
    const slots = this.offset.length
    for (let i = 0; i < this.count; i++) {
      const slot = (this.first + i) % slots
      const from = this.offset[slot] as number
      const recordSize = this.size[slot] as number
      this.data.copy(data, at, from, from + recordSize)
      this.offset[slot] = at
      at += recordSize
    }
    this.data = data
    this.view = viewOf(data)
    this.head = at
  }

  private slotOf(id: number): number {
    // With the default step of 1 the division is exact and cheap; other steps reject ids of
    // another residue (another replica's) as a fraction.
    const age = (this.nextId - this.idStep - id) / this.idStep
    if (!Number.isInteger(age) || age < 0 || age >= this.count) return -1
    return wrapSlot(this.first + this.count - 1 - age, this.offset.length)
  }

  private evictOldest(): void {
    const slot = this.first
    this.bytes -= (this.size[slot] as number) + (this.own[slot] as number)
    this.txnName[slot] = null
    this.responseHeaders[slot] = null
    this.responseBody[slot] = null
    this.matchingData[slot] = null
    this.first = wrapSlot(slot + 1, this.offset.length)
    this.count--
  }

  /**
   * `[text method][text url][u16 header count]([text name][text value])*[u32 body]`, where a text
   * is a u32 tag: a repeated string's number plus REPEATED, or the length of the latin1 characters
   * that follow it (as Node's HTTP parser decodes them). Characters are copied in a JavaScript
   * loop: for header sized strings it is about three times faster than Buffer#write, whose native
   * call costs ~100 ns each.
   */
  private write(
    start: number,
    method: string,
    methodCode: number,
    url: string,
    urlCode: number,
    headers: readonly string[],
    body: Buffer | null,
    bodyLength: number,
  ): void {
    const data = this.data
    const view = this.view
    const codes = this.headerCodes
    let at = putText(data, view, method, methodCode, start)
    at = putText(data, view, url, urlCode, at)
    const strings = headers.length & ~1
    const tracked = Math.min(strings, HEADER_PLACES)
    view.setUint16(at, strings >> 1, true)
    at += 2
    for (let i = 0; i < tracked; i++) {
      at = putText(data, view, headers[i] as string, codes[i] as number, at)
    }
    for (let i = tracked; i < strings; i++) at = putText(data, view, headers[i] as string, -1, at)
    view.setUint32(at, bodyLength, true)
    at += 4
    // TypedArray#set: Buffer#copy crosses into C++ on Node 20, set stays in a V8 builtin.
    if (body !== null && bodyLength > 0) {
      typedArraySet.call(data, bodyLength === body.length ? body : body.subarray(0, bodyLength), at)
    }
  }

  /** The text at `at` in the buffer, and where the next field starts (in `this.readEnd`). */
  private readText(at: number): string {
    const data = this.data
    const tag = data.readUInt32LE(at)
    if (tag >= REPEATED) {
      this.readEnd = at + 4
      return this.repeated.text(tag - REPEATED)
    }
    this.readEnd = at + 4 + tag
    return data.toString('latin1', at + 4, at + 4 + tag)
  }

  private decode(slot: number, id: number): InspectionRecord {
    const data = this.data
    let at = this.offset[slot] as number
    const method = this.readText(at)
    const url = this.readText(this.readEnd)
    at = this.readEnd
    const pairs = data.readUInt16LE(at)
    at += 2
    const requestHeaders: string[] = []
    for (let i = 0; i < pairs * 2; i++) {
      requestHeaders.push(this.readText(at))
      at = this.readEnd
    }
    const bodyLength = data.readUInt32LE(at)
    at += 4
    const flags = this.flags[slot] as number
    const txnId = this.txnId[slot] as number
    const priority = this.txnPriority[slot] as number
    return {
      id,
      timestamp: this.timestamp[slot] as number,
      method,
      url,
      requestHeaders,
      requestBody:
        bodyLength === 0 && (flags & FLAG_REQUEST_TRUNCATED) === 0
          ? null
          : Buffer.from(data.subarray(at, at + bodyLength)),
      requestBodyTruncated: (flags & FLAG_REQUEST_TRUNCATED) !== 0,
      statusCode: this.status[slot] as number,
      responseHeaders: this.responseHeaders[slot] ?? [],
      responseBody: this.responseBody[slot] ?? null,
      responseBodyTruncated: (flags & FLAG_RESPONSE_TRUNCATED) !== 0,
      matched: (flags & FLAG_MATCHED) !== 0,
      source: (flags & FLAG_LIVE) !== 0 ? 'LIVE' : 'MOCK',
      liveTransactionCreated: (flags & FLAG_RECORDED) !== 0,
      hasError: (flags & FLAG_ERROR) !== 0,
      transactionId: Number.isNaN(txnId) ? null : txnId,
      respondingTxn: this.txnName[slot] ?? null,
      txnPriority: Number.isNaN(priority) ? null : priority,
      matchingData: this.matchingData[slot] ?? null,
      durationMs: this.duration[slot] as number,
    }
  }
}

/**
 * TypedArray#set, for the body copy: `data.set` on a Buffer was a call into V8's generic property
 * load (about 70 instructions), as Buffer.prototype holds too many methods for an inlined lookup.
 */
const typedArraySet = Uint8Array.prototype.set

/** A text's tag: a repeated string's number plus this; below it, the length of copied characters. */
const REPEATED = 0x8000_0000

/** The repeated-string places of a request's header strings: after its method (0) and URL (1). */
const FIRST_HEADER_PLACE = 2
/** Header strings followed for repeats; the strings after them are copied. */
const HEADER_PLACES = TRACKED_PLACES - FIRST_HEADER_PLACE

/** Bytes of the header count that precedes a record's headers. */
const HEADER_COUNT_BYTES = 2

function putText(data: Buffer, view: DataView, text: string, code: number, at: number): number {
  if (code >= 0) {
    view.setUint32(at, REPEATED + code, true)
    return at + 4
  }
  const length = text.length
  view.setUint32(at, length, true)
  at += 4
  for (let i = 0; i < length; i++) data[at + i] = text.charCodeAt(i)
  return at + length
}

/** `slot % slots` for a slot below twice `slots`, without a division. */
function wrapSlot(slot: number, slots: number): number {
  return slot >= slots ? slot - slots : slot
}

function viewOf(data: Buffer): DataView {
  return new DataView(data.buffer, data.byteOffset, data.length)
}

/** The journal buffer's first size: 1 MiB. */
const INITIAL_BYTES = 1024 * 1024

/** Bytes a text takes in the buffer: its tag, and its characters when copied (latin1: one byte each). */
function textBytes(text: string, code: number): number {
  return code >= 0 ? 4 : 4 + text.length
}
