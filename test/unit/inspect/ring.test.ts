import { describe, expect, it } from 'vitest'
import { InspectionRing, type RecordOutcome } from '../../../src/inspect/index.js'

const limits = { maxRecords: 100, maxBytes: 1 << 20, maxBodyBytes: 1024 }
const at = 1_700_000_000_000

function outcome(overrides: Partial<RecordOutcome> = {}): RecordOutcome {
  return {
    statusCode: 200,
    durationMs: 3,
    matched: true,
    hasError: false,
    source: 'MOCK',
    transactionId: 7,
    respondingTxn: 'list pets',
    txnPriority: 10,
    responseHeaders: ['content-type', 'application/json'],
    responseBody: Buffer.from('[]'),
    responseBodyTruncated: false,
    ownBytes: 0,
    matchingData: null,
    ...overrides,
  }
}

const ids = (ring: InspectionRing, skip = 0, limit = 1000): number[] =>
  ring.newest(skip, limit).map((r) => r.id)

/**
 * Bytes one record with no headers and no body holds, as the ring itself counts them: measured,
 * not restated from the byte layout, so that the layout can change without the tests changing.
 */
function bareSize(url: string): number {
  const probe = new InspectionRing(limits)
  probe.append(at, 'GET', url, [], null)
  return probe.heldBytes
}

describe('InspectionRing', () => {
  it('assigns increasing ids starting at 1', () => {
    const ring = new InspectionRing(limits)
    expect(ring.append(at, 'GET', '/a', [], null)).toBe(1)
    expect(ring.append(at, 'GET', '/b', [], null)).toBe(2)
    expect(ring.length).toBe(2)
  })

  it('gives back the request side exactly as appended, and the outcome once completed', () => {
    const ring = new InspectionRing(limits)
    const headers = ['Host', 'localhost:8080', 'X-Name', 'café', 'Accept', '*/*']
    const id = ring.append(at, 'POST', '/pets?limit=2', headers, Buffer.from('{"name":"Rex"}'))
    expect(ring.get(id)).toMatchObject({
      id,
      timestamp: at,
      method: 'POST',
      url: '/pets?limit=2',
      requestHeaders: headers,
      requestBody: Buffer.from('{"name":"Rex"}'),
      requestBodyTruncated: false,
      statusCode: 0,
      matched: false,
    })
    ring.complete(
      id,
      outcome({
        statusCode: 201,
        source: 'LIVE',
        hasError: true,
        matchingData: { nearMisses: [] },
      }),
    )
    expect(ring.get(id)).toMatchObject({
      statusCode: 201,
      durationMs: 3,
      matched: true,
      hasError: true,
      source: 'LIVE',
      transactionId: 7,
      respondingTxn: 'list pets',
      txnPriority: 10,
      responseHeaders: ['content-type', 'application/json'],
      responseBody: Buffer.from('[]'),
      matchingData: { nearMisses: [] },
    })
  })

  it('copies the body: changing the request buffer afterwards does not change the record', () => {
    const ring = new InspectionRing(limits)
    const body = Buffer.from('original')
    const id = ring.append(at, 'POST', '/', [], body)
    body.write('CHANGED!')
    expect(ring.get(id)?.requestBody?.toString()).toBe('original')
  })

  it('cuts bodies to maxBodyBytes and flags them', () => {
    const ring = new InspectionRing({ ...limits, maxBodyBytes: 4 })
    const id = ring.append(at, 'POST', '/', [], Buffer.from('abcdefgh'))
    expect(ring.get(id)).toMatchObject({
      requestBody: Buffer.from('abcd'),
      requestBodyTruncated: true,
    })
    ring.complete(id, outcome({ responseBodyTruncated: true }))
    expect(ring.get(id)).toMatchObject({ requestBodyTruncated: true, responseBodyTruncated: true })
  })

  it('reports null nullable fields as null', () => {
    const ring = new InspectionRing(limits)
    const id = ring.append(at, 'GET', '/', [], null)
    ring.complete(
      id,
      outcome({ transactionId: null, respondingTxn: null, txnPriority: null, responseBody: null }),
    )
    expect(ring.get(id)).toMatchObject({
      requestBody: null,
      transactionId: null,
      respondingTxn: null,
      txnPriority: null,
      responseBody: null,
    })
  })

  it('lists records newest first, honouring skip and limit', () => {
    const ring = new InspectionRing(limits)
    for (let i = 0; i < 5; i++) ring.append(at, 'GET', `/r${i}`, [], null)
    expect(ids(ring)).toEqual([5, 4, 3, 2, 1])
    expect(ids(ring, 1, 2)).toEqual([4, 3])
    expect(ids(ring, 4, 10)).toEqual([1])
    expect(ids(ring, 5, 10)).toEqual([])
    expect(ids(ring, 0, 0)).toEqual([])
  })

  it('evicts the oldest records when the count bound is reached', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 3 })
    for (let i = 1; i <= 5; i++) ring.append(at, 'GET', `/r${i}`, [], null)
    expect(ids(ring)).toEqual([5, 4, 3])
    expect(ring.get(2)).toBeUndefined()
    expect(ring.get(3)?.url).toBe('/r3')
  })

  it('keeps ids, lookups and contents consistent after wrapping the buffer many times', () => {
    const ring = new InspectionRing({ maxRecords: 50, maxBytes: 4096, maxBodyBytes: 64 })
    for (let i = 1; i <= 10_000; i++) {
      ring.append(at + i, 'GET', `/r${i}`, ['x-n', String(i)], Buffer.from(`body ${i}`))
    }
    const kept = ring.newest(0, 1000)
    expect(kept.length).toBeGreaterThan(10)
    expect(kept[0]?.id).toBe(10_000)
    for (const record of kept) {
      expect(record.url).toBe(`/r${record.id}`)
      expect(record.requestHeaders).toEqual(['x-n', String(record.id)])
      expect(record.requestBody?.toString()).toBe(`body ${record.id}`)
      expect(record.timestamp).toBe(at + record.id)
    }
    // consecutive ids: nothing in the middle went missing
    expect(kept.map((r) => r.id)).toEqual(kept.map((_r, i) => 10_000 - i))
  })

  it('evicts the oldest records when the byte bound would be exceeded, and stays within it', () => {
    const ring = new InspectionRing({ maxRecords: 1000, maxBytes: 2048, maxBodyBytes: 1024 })
    for (let i = 1; i <= 100; i++) {
      ring.append(at, 'POST', `/r${i}`, [], Buffer.alloc(100, 97))
      expect(ring.heldBytes).toBeLessThanOrEqual(2048)
    }
    const kept = ids(ring)
    expect(kept[0]).toBe(100)
    expect(kept.length).toBeLessThan(20)
    expect(ring.get(1)).toBeUndefined()
  })

  it('keeps every record while they fit in maxBytes, growing its buffer beyond the first MiB', () => {
    const ring = new InspectionRing({ maxRecords: 3000, maxBytes: 8 << 20, maxBodyBytes: 2048 })
    for (let i = 1; i <= 3000; i++) ring.append(at, 'POST', `/r${i}`, [], Buffer.alloc(1000, 98))
    expect(ring.length).toBe(3000)
    expect(ring.heldBytes).toBeGreaterThan(3_000_000)
    expect(ring.get(1)?.requestBody?.length).toBe(1000)
    expect(ring.get(3000)?.url).toBe('/r3000')
  })

  it('counts a record’s own response bytes and evicts older records, never the one completed', () => {
    const ring = new InspectionRing({ maxRecords: 100, maxBytes: 1024, maxBodyBytes: 1024 })
    const held: number[] = []
    for (let i = 0; i < 4; i++) {
      ring.append(at, 'GET', '/x', [], null)
      held.push(ring.heldBytes)
    }
    // Each record's size grows with what it holds.
    expect(bareSize('/longer-url')).toBe(bareSize('/x') + '/longer-url'.length - '/x'.length)
    const fourth = (held[3] as number) - (held[2] as number)
    ring.complete(4, outcome({ ownBytes: 1000 }))
    expect(ring.get(4)).toBeDefined()
    expect(ring.length).toBe(1)
    expect(ring.heldBytes).toBe(fourth + 1000)
  })

  it('ignores completing an evicted or unknown id', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 1 })
    ring.append(at, 'GET', '/a', [], null)
    ring.append(at, 'GET', '/b', [], null)
    ring.complete(1, outcome({ statusCode: 500 }))
    ring.complete(99, outcome({ statusCode: 500 }))
    expect(ring.get(2)?.statusCode).toBe(0)
  })

  it('drops the body, then the headers, of a record larger than the whole buffer, and flags it', () => {
    const ring = new InspectionRing({ maxRecords: 10, maxBytes: 1024, maxBodyBytes: 4096 })
    const id = ring.append(at, 'POST', '/big', ['x-a', 'b'.repeat(2000)], Buffer.alloc(3000))
    expect(ring.get(id)).toMatchObject({
      url: '/big',
      requestHeaders: [],
      requestBody: Buffer.alloc(0),
      requestBodyTruncated: true,
    })
    expect(ring.heldBytes).toBeLessThanOrEqual(1024)
  })

  it('returns undefined from get for evicted, future, zero, negative and fractional ids', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 2 })
    for (let i = 0; i < 3; i++) ring.append(at, 'GET', '/', [], null)
    for (const id of [1, 4, 0, -1, 2.5, Number.NaN]) expect(ring.get(id)).toBeUndefined()
    expect(ring.get(2)).toBeDefined()
  })

  it('clear forgets every record while ids keep increasing', () => {
    const ring = new InspectionRing(limits)
    ring.append(at, 'GET', '/', [], null)
    ring.append(at, 'GET', '/', [], null)
    ring.clear()
    expect(ring.length).toBe(0)
    expect(ring.heldBytes).toBe(0)
    expect(ring.get(2)).toBeUndefined()
    expect(ring.append(at, 'GET', '/', [], null)).toBe(3)
  })

  it('keeps a string that repeats once and refers to it: later records take fewer bytes', () => {
    const ring = new InspectionRing(limits)
    const headers = ['Host', 'localhost:8080', 'Content-Type', 'application/json']
    const sizes: number[] = []
    for (let i = 0; i < 4; i++) {
      const before = ring.heldBytes
      // Fresh strings each time, as the HTTP parser makes them.
      ring.append(
        at,
        'POST',
        '/orders'.slice(0),
        headers.map((h) => `${h} `.trim()),
        null,
      )
      sizes.push(ring.heldBytes - before)
    }
    // The first is copied out; from the second on, each string has come twice and is referred to.
    expect(sizes[1]).toBeLessThan(sizes[0] as number)
    expect(sizes[2]).toBe(sizes[1])
    expect(sizes[3]).toBe(sizes[1])
    // Copied: a 4-byte length and the characters of each string; referred to: 4 bytes. Then the
    // 2-byte header count and the 4-byte body length.
    expect(sizes).toEqual([4 + 4 + 4 + 7 + 2 + 4 * 4 + 4 + 14 + 12 + 16 + 4, 4 * 6 + 2 + 4, 30, 30])
    expect(ring.repeatedStrings).toBe(6)
    for (let id = 1; id <= 4; id++) {
      expect(ring.get(id)).toMatchObject({
        method: 'POST',
        url: '/orders',
        requestHeaders: headers,
      })
    }
  })

  it('never keeps one-off strings, such as request ids', () => {
    const ring = new InspectionRing(limits)
    for (let i = 0; i < 500; i++) {
      ring.append(at, 'GET', `/items/${i}`, ['x-request-id', `req-${i}`], null)
    }
    // Only the method and the header name came twice in a row at their places.
    expect(ring.repeatedStrings).toBe(2)
    expect(ring.get(500)).toMatchObject({
      url: '/items/499',
      requestHeaders: ['x-request-id', 'req-499'],
    })
  })

  it('keeps records exact when strings alternate, move between places, or come past the first 62', () => {
    const ring = new InspectionRing(limits)
    const many = Array.from({ length: 120 }, (_v, i) => `h${i % 7}`)
    const shapes = [
      ['a', 'one', 'b', 'two'],
      ['b', 'two', 'a', 'one'],
      ['a', 'two', 'b', 'one'],
      many,
      [],
    ]
    const expected = new Map<number, string[]>()
    for (let i = 0; i < 60; i++) {
      const headers = shapes[i % shapes.length] as string[]
      expected.set(
        ring.append(at, i % 2 === 0 ? 'GET' : 'PUT', '/same', [...headers], null),
        headers,
      )
    }
    for (const [id, headers] of expected) {
      const record = ring.get(id)
      expect(record?.requestHeaders).toEqual(headers)
      expect(record?.method).toBe(id % 2 === 1 ? 'GET' : 'PUT')
      expect(record?.url).toBe('/same')
    }
  })

  it('keeps at most 1,024 strings of at most 256 characters, and copies the rest', () => {
    const ring = new InspectionRing({ maxRecords: 5000, maxBytes: 8 << 20, maxBodyBytes: 64 })
    const long = 'v'.repeat(257)
    for (let i = 0; i < 1500; i++) {
      for (let twice = 0; twice < 2; twice++) ring.append(at, 'GET', '/', [`x-${i}`, long], null)
    }
    expect(ring.repeatedStrings).toBe(1024)
    const last = ring.get(3000)
    expect(last?.requestHeaders).toEqual(['x-1499', long])
    expect(ring.get(1)?.requestHeaders).toEqual(['x-0', long])
  })

  it('clear also forgets the repeated strings', () => {
    const ring = new InspectionRing(limits)
    for (let i = 0; i < 3; i++) ring.append(at, 'GET', '/', ['accept', '*/*'], null)
    expect(ring.repeatedStrings).toBe(4)
    ring.clear()
    expect(ring.repeatedStrings).toBe(0)
    const id = ring.append(at, 'GET', '/', ['accept', '*/*'], null)
    expect(ring.get(id)?.requestHeaders).toEqual(['accept', '*/*'])
  })

  it('gives back every kept record exactly, whatever mix of repeated and one-off strings it holds', () => {
    // A small deterministic generator: strings drawn from a few pools, so that places repeat,
    // alternate and change, through evictions by count and by bytes and buffer growth.
    let seed = 12_345
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed % n
    }
    const pick = (pool: readonly string[]): string => pool[next(pool.length)] as string
    const names = ['host', 'accept', 'content-type', 'x-trace', 'cookie', 'user-agent']
    const values = ['*/*', 'application/json', 'localhost:8080', '', 'é-latin1', 'v'.repeat(300)]
    const ring = new InspectionRing({ maxRecords: 300, maxBytes: 64 * 1024, maxBodyBytes: 512 })
    const sent = new Map<number, { method: string; url: string; headers: string[]; body: string }>()
    for (let i = 0; i < 5000; i++) {
      const pairs = next(5)
      const headers: string[] = []
      for (let h = 0; h < pairs; h++) {
        headers.push(pick(names), next(4) === 0 ? `one-off-${i}-${h}` : pick(values))
      }
      const method = pick(['GET', 'POST', 'PUT'])
      const url = next(3) === 0 ? `/items/${i}` : pick(['/a', '/b?x=1', '/'])
      const body = 'b'.repeat(next(3) * 200)
      const id = ring.append(at, method, url, headers, body === '' ? null : Buffer.from(body))
      sent.set(id, { method, url, headers, body })
    }
    expect(ring.length).toBeGreaterThan(100)
    for (const record of ring.newest(0, 1000)) {
      const expected = sent.get(record.id)
      expect(record.method).toBe(expected?.method)
      expect(record.url).toBe(expected?.url)
      expect(record.requestHeaders).toEqual(expected?.headers)
      expect(record.requestBody?.toString() ?? '').toBe(expected?.body)
    }
    expect(ring.heldBytes).toBeLessThanOrEqual(64 * 1024)
  })

  it('exposes its limits and body bound', () => {
    const ring = new InspectionRing(limits)
    expect(ring.limits).toEqual(limits)
    expect(ring.maxBodyBytes).toBe(1024)
  })

  it('numbers records from a start by a step, as replica k of N does (k, k + N, k + 2N...)', () => {
    const ring = new InspectionRing(limits, { start: 2, step: 3 })
    expect([1, 2, 3].map(() => ring.append(at, 'GET', '/', [], null))).toEqual([2, 5, 8])
    expect(ids(ring)).toEqual([8, 5, 2])
    expect(ids(ring, 1, 1)).toEqual([5])
    expect(ring.get(5)?.id).toBe(5)
    // Ids of another residue belong to another replica: never found here.
    expect(ring.get(4)).toBeUndefined()
    expect(ring.get(6)).toBeUndefined()
    expect(ring.get(11)).toBeUndefined()
    ring.complete(5, outcome({ statusCode: 204 }))
    expect(ring.get(5)?.statusCode).toBe(204)
  })

  it('keeps stepped ids through eviction', () => {
    const ring = new InspectionRing({ ...limits, maxRecords: 2 }, { start: 1, step: 2 })
    for (let i = 0; i < 4; i++) ring.append(at, 'GET', `/${i}`, [], null)
    expect(ids(ring)).toEqual([7, 5])
    expect(ring.get(3)).toBeUndefined()
    expect(ring.get(7)?.url).toBe('/3')
  })

  it('rejects a step below 1 or a fractional start', () => {
    expect(() => new InspectionRing(limits, { start: 1, step: 0 })).toThrow(RangeError)
    expect(() => new InspectionRing(limits, { start: 1.5, step: 1 })).toThrow(RangeError)
  })
})
