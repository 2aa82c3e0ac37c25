import { describe, expect, it } from 'vitest'
import { toDetail, toListEntry, type InspectionRecord } from '../../../src/inspect/index.js'

/* The inspection shapes of the mock services specification (docs/api.md#analytics) built from a record. */

function record(overrides: Partial<InspectionRecord> = {}): InspectionRecord {
  return {
    id: 7,
    timestamp: 1_700_000_000_123,
    method: 'POST',
    url: '/orders?tag=a&tag=b&q=hello%20world&plus=a+b&empty=',
    requestHeaders: ['Host', 'localhost', 'Content-Type', 'application/json'],
    requestBody: Buffer.from('{"a":1}'),
    requestBodyTruncated: false,
    statusCode: 201,
    responseHeaders: ['content-type', 'application/json', 'content-length', '2'],
    responseBody: Buffer.from('{}'),
    responseBodyTruncated: false,
    matched: true,
    source: 'MOCK',
    hasError: false,
    transactionId: 12,
    respondingTxn: 'create order',
    txnPriority: 3,
    matchingData: null,
    durationMs: 4,
    ...overrides,
  }
}

/** The list-entry fields the mock services specification names, in its order. */
const listFields = [
  'id',
  'serviceMockId',
  'type',
  'transactionId',
  'operation',
  'url',
  'timestamp',
  'arguments',
  'matchType',
  'matchTolerance',
  'respondingTxn',
  'txnPriority',
  'hasError',
  'matched',
  'source',
  'liveTransactionCreated',
  'hash',
  'detailsHash',
  'webHookName',
  'webHookId',
  'modelEntity',
  'actionName',
  'objectAction',
]

/** The detail fields the mock services specification names. */
const detailFields = [
  'serviceMockId',
  'type',
  'stepDetails',
  'matchingData',
  'sessionData',
  'requestBody',
  'requestHeaders',
  'responseBody',
  'responseHeaders',
  'statusCode',
  'hash',
  'filters',
  'parameters',
  'changedRowsCount',
]

describe('toListEntry', () => {
  it('carries every list-entry field of the mock services specification with the record values', () => {
    const entry = toListEntry(record(), 42)
    for (const field of listFields) expect(entry).toHaveProperty(field)
    expect(entry).toMatchObject({
      id: 7,
      serviceMockId: 42,
      type: 'HTTP',
      transactionId: 12,
      operation: 'POST',
      url: '/orders?tag=a&tag=b&q=hello%20world&plus=a+b&empty=',
      timestamp: 1_700_000_000_123,
      respondingTxn: 'create order',
      txnPriority: 3,
      hasError: false,
      matched: true,
      source: 'MOCK',
      liveTransactionCreated: false,
      matchType: null,
      objectAction: null,
    })
  })

  it('lists the decoded query parameters as arguments, one entry per value', () => {
    expect(toListEntry(record(), 1).arguments).toEqual([
      { key: 'tag', value: 'a' },
      { key: 'tag', value: 'b' },
      { key: 'q', value: 'hello world' },
      { key: 'plus', value: 'a b' },
      { key: 'empty', value: '' },
    ])
    expect(toListEntry(record({ url: '/plain' }), 1).arguments).toEqual([])
  })

  it('shows an unmatched, failed, live request as such', () => {
    const entry = toListEntry(
      record({
        matched: false,
        hasError: true,
        source: 'LIVE',
        transactionId: null,
        respondingTxn: null,
        txnPriority: null,
      }),
      1,
    )
    expect(entry).toMatchObject({
      matched: false,
      hasError: true,
      source: 'LIVE',
      transactionId: null,
      respondingTxn: null,
      txnPriority: null,
    })
  })
})

describe('toDetail', () => {
  it('carries every detail field of the mock services specification with the record values', () => {
    const detail = toDetail(record({ matchingData: { nearMisses: [] } }), 42)
    for (const field of detailFields) expect(detail).toHaveProperty(field)
    expect(detail).toMatchObject({
      id: 7,
      serviceMockId: 42,
      type: 'HTTP',
      stepDetails: null,
      sessionData: null,
      matchingData: { nearMisses: [] },
      requestBody: '{"a":1}',
      requestBodyEncoding: 'utf8',
      requestBodyTruncated: false,
      requestHeaders: [
        { key: 'Host', value: 'localhost' },
        { key: 'Content-Type', value: 'application/json' },
      ],
      responseBody: Buffer.from('{}').toString('base64'),
      responseBodyTruncated: false,
      responseHeaders: [
        { key: 'content-type', value: 'application/json' },
        { key: 'content-length', value: '2' },
      ],
      statusCode: 201,
      durationMs: 4,
      hash: null,
      filters: null,
      parameters: null,
      changedRowsCount: null,
    })
  })

  it('gives a request body that is not valid UTF-8 as base64 and says so', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41])
    const detail = toDetail(record({ requestBody: bytes }), 1)
    expect(detail.requestBodyEncoding).toBe('base64')
    expect(Buffer.from(detail.requestBody, 'base64')).toEqual(bytes)
  })

  it('gives empty strings for absent bodies and carries the truncation flags', () => {
    const detail = toDetail(
      record({
        requestBody: null,
        responseBody: null,
        requestBodyTruncated: true,
        responseBodyTruncated: true,
      }),
      1,
    )
    expect(detail).toMatchObject({
      requestBody: '',
      requestBodyEncoding: 'utf8',
      responseBody: '',
      requestBodyTruncated: true,
      responseBodyTruncated: true,
    })
  })

  it('pairs flat header lists and ignores a dangling name', () => {
    const detail = toDetail(record({ requestHeaders: ['a', '1', 'b'], responseHeaders: [] }), 1)
    expect(detail.requestHeaders).toEqual([{ key: 'a', value: '1' }])
    expect(detail.responseHeaders).toEqual([])
  })
})
