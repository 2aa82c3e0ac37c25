import { describe, expect, it } from 'vitest'
import { InspectionRing, truncateBody, type NewInspectionRecord } from '../../../src/inspect/index.js'

/*
 * The ring's byte estimate of a record (src/inspect/record.ts recordBytes) is
 * 160 + url length + (length + 8) per raw header string + request body bytes (+ response body
 * bytes when not shared). The records below have no headers and no bodies, so a record with a url
 * of length L weighs 160 + L bytes.
 */
function record (url = '/x', overrides: Partial<NewInspectionRecord> = {}): NewInspectionRecord {
  return {
    timestamp: 1_700_000_000_000,
    method: 'GET',
    url,
    requestHeaders: [],
    requestBody: null,
    requestBodyTruncated: false,
    statusCode: 200,
    responseHeaders: [],
    responseBody: null,
    responseBodyTruncated: false,
    matched: true,
    source: 'MOCK',
    hasError: false,
    transactionId: null,
    respondingTxn: null,
    txnPriority: null,
    matchingData: null,
    durationMs: 0,
    ...overrides,
  }
}

/** A url that makes the record weigh exactly `bytes` bytes. */
const urlOfWeight = (bytes: number): string => '/' + 'a'.repeat(bytes - 160 - 1)

const ids = (ring: InspectionRing, skip = 0, limit = 1000): number[] => ring.newest(skip, limit).map((r) => r.id)

const limits = { maxRecords: 100, maxBytes: 1 << 20, maxBodyBytes: 1024 }

describe('InspectionRing', () => {
  it('assigns increasing ids starting at 1 and writes them into the records', () => {
    const ring = new InspectionRing(limits)
    const a = record()
    const b = record()
    expect(ring.append(a)).toBe(1)
    expect(ring.append(b)).toBe(2)
    expect(a).toMatchObject({ id: 1 })
    expect(b).toMatchObject({ id: 2 })
    expect(ring.size).toBe(2)
  })

  it('lists records newest first, honouring skip and limit', () => {
    const ring = new InspectionRing(limits)
    for (let i = 0; i < 5; i++) ring.append(record(`/r${i}`))
    expect(ids(ring)).toEqual([5, 4, 3, 2, 1])
    expect(ids(ring, 1, 2)).toEqual([4, 3])
    expect(ids(ring, 4, 10)).toEqual([1])
    expect(ids(ring, 5, 10)).toEqual([])
    expect(ids(ring, 0, 0)).toEqual([])
    expect(ring.newest(0, 1)[0]?.url).toBe('/r4')
  })

  it('evicts the oldest records when the count bound is reached', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 3 })
    for (let i = 0; i < 5; i++) ring.append(record())
    expect(ring.size).toBe(3)
    expect(ids(ring)).toEqual([5, 4, 3])
    expect(ring.get(1)).toBeUndefined()
    expect(ring.get(2)).toBeUndefined()
    expect(ring.get(3)?.id).toBe(3)
    expect(ring.get(5)?.id).toBe(5)
  })

  it('keeps ids, lookups and order consistent after wrapping around many times', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 7 })
    for (let i = 1; i <= 10_000; i++) ring.append(record(`/r${i}`))
    expect(ring.size).toBe(7)
    expect(ids(ring)).toEqual([10_000, 9999, 9998, 9997, 9996, 9995, 9994])
    for (let id = 9994; id <= 10_000; id++) expect(ring.get(id)?.url).toBe(`/r${id}`)
    expect(ring.get(9993)).toBeUndefined()
  })

  it('evicts the oldest records when the byte bound would be exceeded', () => {
    const ring = new InspectionRing({ ...limits, maxBytes: 1000 })
    for (let i = 0; i < 5; i++) ring.append(record(urlOfWeight(200)))
    expect(ring.size).toBe(5)
    expect(ring.heldBytes).toBe(1000)
    ring.append(record(urlOfWeight(200)))
    expect(ring.size).toBe(5)
    expect(ring.heldBytes).toBe(1000)
    expect(ids(ring)).toEqual([6, 5, 4, 3, 2])
    // A heavier record pushes out as many old ones as it needs.
    ring.append(record(urlOfWeight(500)))
    expect(ids(ring)).toEqual([7, 6, 5])
    expect(ring.heldBytes).toBe(900)
  })

  it('counts request headers and bodies in the byte estimate', () => {
    const ring = new InspectionRing(limits)
    ring.append(record('/x', { requestHeaders: ['host', 'localhost'], requestBody: Buffer.alloc(100) }))
    expect(ring.heldBytes).toBe(160 + 2 + (4 + 8) + (9 + 8) + 100)
  })

  it('counts an unshared response body, and not a shared one', () => {
    const ring = new InspectionRing(limits)
    ring.append(record('/x', { responseBody: Buffer.alloc(50) }))
    expect(ring.heldBytes).toBe(162)
    ring.append(record('/x', { responseBody: Buffer.alloc(50) }), false)
    expect(ring.heldBytes).toBe(162 + 212)
  })

  it('keeps a record heavier than the whole bound on its own, evicting all others', () => {
    const ring = new InspectionRing({ ...limits, maxBytes: 1000 })
    ring.append(record(urlOfWeight(300)))
    ring.append(record(urlOfWeight(1500)))
    expect(ids(ring)).toEqual([2])
    expect(ring.heldBytes).toBe(1500)
    ring.append(record(urlOfWeight(200)))
    expect(ids(ring)).toEqual([3])
  })

  it('account adds bytes to a held record and evicts older records past the byte bound', () => {
    const ring = new InspectionRing({ ...limits, maxBytes: 1000 })
    for (let i = 0; i < 4; i++) ring.append(record(urlOfWeight(200)))
    ring.account(4, 150)
    expect(ring.heldBytes).toBe(950)
    expect(ring.size).toBe(4)
    ring.account(4, 300)
    // 1250 > 1000: the two oldest go (1250 - 200 - 200 = 850).
    expect(ids(ring)).toEqual([4, 3])
    expect(ring.heldBytes).toBe(850)
    expect(ring.get(4)?.id).toBe(4)
  })

  it('account never evicts the record it grows, even past the bound', () => {
    const ring = new InspectionRing({ ...limits, maxBytes: 1000 })
    ring.append(record(urlOfWeight(200)))
    ring.append(record(urlOfWeight(200)))
    ring.account(2, 5000)
    expect(ids(ring)).toEqual([2])
    expect(ring.heldBytes).toBe(5200)
    // The next append restores the bound.
    ring.append(record(urlOfWeight(200)))
    expect(ids(ring)).toEqual([3])
    expect(ring.heldBytes).toBe(200)
  })

  it('account ignores evicted ids, unknown ids and non-positive amounts', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 2 })
    ring.append(record())
    ring.append(record())
    ring.append(record())
    const before = ring.heldBytes
    ring.account(1, 100)
    ring.account(99, 100)
    ring.account(3, 0)
    ring.account(3, -10)
    expect(ring.heldBytes).toBe(before)
  })

  it('returns undefined from get for evicted, future, zero, negative and fractional ids', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 2 })
    for (let i = 0; i < 3; i++) ring.append(record())
    for (const id of [1, 4, 0, -1, 2.5, Number.NaN]) expect(ring.get(id)).toBeUndefined()
    expect(ring.get(2)?.id).toBe(2)
  })

  it('clear forgets every record while ids keep increasing', () => {
    const ring = new InspectionRing(limits)
    ring.append(record())
    ring.append(record())
    ring.clear()
    expect(ring.size).toBe(0)
    expect(ring.heldBytes).toBe(0)
    expect(ring.get(1)).toBeUndefined()
    expect(ring.newest(0, 10)).toEqual([])
    expect(ring.append(record())).toBe(3)
    expect(ids(ring)).toEqual([3])
  })

  it('exposes its limits and body bound', () => {
    const ring = new InspectionRing({ maxRecords: 5, maxBytes: 4096, maxBodyBytes: 64 })
    expect(ring.maxBodyBytes).toBe(64)
    expect(ring.limits).toEqual({ maxRecords: 5, maxBytes: 4096, maxBodyBytes: 64 })
  })
})

describe('truncateBody', () => {
  it('returns the same buffer when it fits, and a flagged copy of its head when not', () => {
    const body = Buffer.from('0123456789')
    const fits = truncateBody(body, 10)
    expect(fits.body).toBe(body)
    expect(fits.truncated).toBe(false)
    const cut = truncateBody(body, 4)
    expect(cut.body?.toString()).toBe('0123')
    expect(cut.truncated).toBe(true)
    // A copy, not a view: the journal must not keep the whole request alive.
    body[0] = 0x78
    expect(cut.body?.toString()).toBe('0123')
    expect(truncateBody(null, 4)).toEqual({ body: null, truncated: false })
  })
})
