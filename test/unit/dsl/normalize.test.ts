import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PRIORITY,
  decodeContent,
  documentOf,
  encodeContent,
  normalizeDelay,
  normalizeThinkTime,
  normalizeTransaction,
  readDefinition,
  type Transaction,
} from '../../../src/dsl/index.js'

/** The one transaction of a definition, normalized. */
const one = (value: unknown): Transaction => {
  const txn = readDefinition(value).transactions[0]
  if (txn === undefined) throw new Error('no transaction')
  return txn
}

describe('transaction defaults', () => {
  it('fill priority 10, status 200 and a name from method and path', () => {
    const txn = one({ requestDsl: { method: 'post', path: '/orders' } })
    expect(DEFAULT_PRIORITY).toBe(10)
    expect(txn).toEqual({
      name: 'POST /orders',
      dsl: {
        priority: 10,
        requestDsl: {
          method: 'POST',
          path: '/orders',
          url: { key: 'url', matcherName: 'equals_url', matchingValue: '/orders' },
        },
        responseDsl: { status: 200 },
      },
    })
  })

  it('name a transaction without method as ANY, and after its url matcher or its position', () => {
    expect(
      one({ requestDsl: { url: { matcherName: 'matches', matchingValue: '/a.*' } } }).name,
    ).toBe('ANY /a.*')
    expect(
      readDefinition([{ requestDsl: {} }, { requestDsl: {} }]).transactions.map((t) => t.name),
    ).toEqual(['ANY #1', 'ANY #2'])
  })

  it('keep a given name, but replace a null or empty one', () => {
    expect(one({ name: 'mine', dsl: { requestDsl: {} } }).name).toBe('mine')
    expect(one({ name: null, dsl: { requestDsl: { path: '/a' } } }).name).toBe('ANY /a')
    expect(one({ name: '', dsl: { requestDsl: { path: '/a' } } }).name).toBe('ANY /a')
  })
})

describe('request normalization', () => {
  it('uppercases the method and drops ANY', () => {
    expect(one({ requestDsl: { method: 'Delete' } }).dsl.requestDsl.method).toBe('DELETE')
    expect(one({ requestDsl: { method: 'any' } }).dsl.requestDsl).not.toHaveProperty('method')
    expect(one({ requestDsl: { method: 'ANY' } }).dsl.requestDsl).not.toHaveProperty('method')
  })

  it('turns path into an equals_url matcher only when there is no url matcher', () => {
    expect(one({ requestDsl: { path: '/a' } }).dsl.requestDsl.url).toEqual({
      key: 'url',
      matcherName: 'equals_url',
      matchingValue: '/a',
    })
    expect(
      one({ requestDsl: { path: '/a', url: { matcherName: 'contains', matchingValue: 'b' } } }).dsl
        .requestDsl.url,
    ).toEqual({
      matcherName: 'contains',
      matchingValue: 'b',
    })
  })

  it('drops nulls and optional: false; keeps lists and credentials sent empty, as sent', () => {
    const txn = one({
      requestDsl: {
        host: null,
        headers: [],
        queryParams: [],
        cookies: [{ key: 'c', matcherName: 'equals', matchingValue: '1', optional: false }],
        body: [],
        credentials: { username: null, password: '' },
        sampleBody: null,
      },
      sampleBody: null,
      nativeId: null,
    })
    expect(txn.dsl).toEqual({
      priority: 10,
      requestDsl: {
        headers: [],
        queryParams: [],
        cookies: [{ key: 'c', matcherName: 'equals', matchingValue: '1' }],
        body: [],
        credentials: { password: '' },
      },
      responseDsl: { status: 200 },
    })
  })

  it('keeps host, credentials and optional: true', () => {
    const txn = one({
      requestDsl: {
        host: 'api.example',
        credentials: { username: 'u', password: null },
        headers: [{ key: 'h', matcherName: 'absent', optional: true }],
      },
    })
    expect(txn.dsl.requestDsl).toEqual({
      host: 'api.example',
      credentials: { username: 'u', password: '' },
      headers: [{ key: 'h', matcherName: 'absent', optional: true }],
    })
  })
})

describe('response normalization', () => {
  it('turns text into base64 content with contentType text', () => {
    expect(one({ requestDsl: {}, responseDsl: { text: 'héllo' } }).dsl.responseDsl).toEqual({
      status: 200,
      content: Buffer.from('héllo').toString('base64'),
      contentType: 'text',
    })
  })

  it('turns json into base64 JSON content with contentType json', () => {
    const response = one({ requestDsl: {}, responseDsl: { json: { a: [1, 'x'] } } }).dsl.responseDsl
    expect(response).toMatchObject({ contentType: 'json' })
    expect(JSON.parse(decodeContent(response.content).toString('utf8'))).toEqual({ a: [1, 'x'] })
  })

  it('turns json null and json false into their JSON text', () => {
    expect(
      decodeContent(
        one({ requestDsl: {}, responseDsl: { json: null } }).dsl.responseDsl.content,
      ).toString(),
    ).toBe('null')
    expect(
      decodeContent(
        one({ requestDsl: {}, responseDsl: { json: false } }).dsl.responseDsl.content,
      ).toString(),
    ).toBe('false')
  })

  it('keeps an explicit contentType over the shorthand default', () => {
    expect(
      one({ requestDsl: {}, responseDsl: { text: '<b/>', contentType: 'application/xml' } }).dsl
        .responseDsl.contentType,
    ).toBe('application/xml')
    expect(
      one({ requestDsl: {}, responseDsl: { json: 1, contentType: 'application/hal+json' } }).dsl
        .responseDsl.contentType,
    ).toBe('application/hal+json')
  })

  it('lets a shorthand stand beside a null content, as exported records carry it (fixed in schema)', () => {
    expect(
      one({ requestDsl: {}, responseDsl: { text: 'x', content: null } }).dsl.responseDsl.content,
    ).toBe(encodeContent('x'))
    expect(
      one({ requestDsl: {}, responseDsl: { json: 1, content: null } }).dsl.responseDsl.content,
    ).toBe(encodeContent('1'))
  })

  it('removes whitespace from base64 content', () => {
    expect(
      one({ requestDsl: {}, responseDsl: { content: 'aGVs\n  bG8=\n' } }).dsl.responseDsl.content,
    ).toBe('aGVsbG8=')
  })

  it('drops nulls, keeps the other members (binary: false as sent)', () => {
    const response = one({
      requestDsl: {},
      responseDsl: {
        status: 201,
        statusMessage: null,
        proxyUrl: null,
        contentType: null,
        charset: null,
        binary: null,
        content: null,
        responseDelay: null,
      },
    }).dsl.responseDsl
    expect(response).toEqual({ status: 201 })
    const kept = one({
      requestDsl: {},
      responseDsl: {
        statusMessage: 'Created',
        proxyUrl: 'https://live.example/api',
        charset: 'utf-8',
        binary: true,
        contentType: 'json',
      },
    }).dsl.responseDsl
    expect(kept).toEqual({
      status: 200,
      statusMessage: 'Created',
      proxyUrl: 'https://live.example/api',
      charset: 'utf-8',
      binary: true,
      contentType: 'json',
    })
    expect(one({ requestDsl: {}, responseDsl: { binary: false } }).dsl.responseDsl).toEqual({
      status: 200,
      binary: false,
    })
  })

  it('turns header values into strings', () => {
    const response = one({
      requestDsl: {},
      responseDsl: {
        headers: [
          { name: 'X-Count', value: 5 },
          { name: 'X-On', value: true },
        ],
      },
    }).dsl.responseDsl
    expect(response.headers).toEqual([
      { name: 'X-Count', value: '5' },
      { name: 'X-On', value: 'true' },
    ])
  })

  it('lowercases the delay type and keeps a none delay without its numbers', () => {
    expect(
      one({
        requestDsl: {},
        responseDsl: { responseDelay: { type: 'LogNormal', median: 100, sigma: 0.5 } },
      }).dsl.responseDsl.responseDelay,
    ).toEqual({
      type: 'lognormal',
      median: 100,
      sigma: 0.5,
    })
    expect(
      one({ requestDsl: {}, responseDsl: { responseDelay: { type: 'NONE', duration: 5 } } }).dsl
        .responseDsl.responseDelay,
    ).toEqual({ type: 'none' })
  })
})

describe('document normalization', () => {
  it('fills every setting for plain transactions', () => {
    expect(documentOf([])).toEqual({
      thinkTime: null,
      capacity: null,
      replicas: null,
      noMatchingRequestPreference: 'return404',
      noMatchingRequestTxnId: null,
      liveSystemHost: null,
      liveSystemPort: null,
      endpointPreference: null,
      mockServiceTransactions: [],
      transactions: [],
    })
  })

  it.each([
    ['return404', 'return404'],
    ['RETURN404', 'return404'],
    ['BypassLive', 'bypasslive'],
    [null, 'return404'],
  ])('reads noMatchingRequestPreference %j as %j', (given, expected) => {
    const doc = readDefinition({
      transactions: [],
      noMatchingRequestPreference: given,
      liveSystemHost: 'h',
    })
    expect(doc.noMatchingRequestPreference).toBe(expected)
  })

  it('reads returntransaction in any case as returnTransaction', () => {
    const doc = readDefinition({
      transactions: [{ id: 1, dsl: { requestDsl: {} } }],
      noMatchingRequestPreference: 'RETURNTRANSACTION',
      noMatchingRequestTxnId: 1,
    })
    expect(doc.noMatchingRequestPreference).toBe('returnTransaction')
  })

  it('uppercases endpointPreference', () => {
    expect(
      readDefinition({ transactions: [], endpointPreference: 'https' }).endpointPreference,
    ).toBe('HTTPS')
    expect(
      readDefinition({ transactions: [], endpointPreference: null }).endpointPreference,
    ).toBeNull()
  })

  it('turns integer mockServiceTransactions entries into objects and drops null priorities', () => {
    const doc = readDefinition({
      transactions: [1, 2, 3].map((id) => ({ id, dsl: { requestDsl: {} } })),
      mockServiceTransactions: [1, { txnId: 2, priority: null }, { txnId: 3, priority: 4 }],
    })
    expect(doc.mockServiceTransactions).toEqual([
      { txnId: 1 },
      { txnId: 2 },
      { txnId: 3, priority: 4 },
    ])
  })

  it('drops null and empty descriptive fields of the document', () => {
    const doc = readDefinition({
      transactions: [],
      id: null,
      name: '',
      description: null,
      serviceId: null,
      serviceName: null,
      capacity: null,
    })
    expect(doc).not.toHaveProperty('id')
    expect(doc).not.toHaveProperty('name')
    expect(doc.capacity).toBeNull()
  })
})

describe('think time and delays', () => {
  it('read an integer thinkTime as a fixed delay, 0 and null as none', () => {
    expect(normalizeThinkTime(250)).toEqual({ type: 'fixed', duration: 250 })
    expect(normalizeThinkTime(0)).toBeNull()
    expect(normalizeThinkTime(null)).toBeNull()
    expect(normalizeThinkTime(undefined)).toBeNull()
  })

  it('read an object thinkTime as a delay, none as no delay', () => {
    expect(normalizeThinkTime({ type: 'Uniform', lower: 1, upper: 5 })).toEqual({
      type: 'uniform',
      lower: 1,
      upper: 5,
    })
    expect(normalizeThinkTime({ type: 'none', duration: 5 })).toBeNull()
  })

  it('keep only the numbers a delay gives', () => {
    expect(normalizeDelay({ type: 'FIXED', duration: 0 })).toEqual({ type: 'fixed', duration: 0 })
  })
})

describe('content helpers', () => {
  it('encode text and bytes to base64 and decode back', () => {
    expect(encodeContent('hi')).toBe('aGk=')
    expect(encodeContent(new Uint8Array([0, 255]))).toBe('AP8=')
    expect(decodeContent('aGk=').toString()).toBe('hi')
    expect(decodeContent(undefined)).toHaveLength(0)
    expect(decodeContent('')).toHaveLength(0)
  })

  it('normalize a transaction directly, from a resource or a bare dsl', () => {
    expect(normalizeTransaction({ requestDsl: { path: '/x' } }, 4).name).toBe('ANY /x')
    expect(normalizeTransaction({ dsl: { requestDsl: {} } }, 4).name).toBe('ANY #5')
  })
})
