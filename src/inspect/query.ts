import { parse as parseQuery } from 'node:querystring'
import type { InspectionRecord } from './record.js'

/** A list entry of the mock services specification, docs/api.md#analytics. */
export interface InspectionListEntry {
  id: number
  serviceMockId: number
  type: string
  transactionId: number | null
  operation: string
  url: string
  timestamp: number
  arguments: Array<{ key: string; value: string }>
  matchType: string | null
  matchTolerance: number | null
  respondingTxn: string | null
  txnPriority: number | null
  hasError: boolean
  matched: boolean
  source: 'MOCK' | 'LIVE'
  liveTransactionCreated: boolean
  hash: string | null
  detailsHash: string | null
  webHookName: string | null
  webHookId: number | null
  modelEntity: string | null
  actionName: string | null
  objectAction: string | null
  /** Beyond the mock services specification: the answer's status and duration, so that traffic charts need no detail reads. */
  statusCode: number
  durationMs: number
}

/** The detail of the mock services specification, docs/api.md#analytics, plus the list-entry identity fields for convenience. */
export interface InspectionDetail {
  id: number
  serviceMockId: number
  type: string
  timestamp: number
  operation: string
  url: string
  stepDetails: null
  matchingData: unknown
  sessionData: null
  /** UTF-8 text, or base64 when the body is not valid UTF-8 (see `requestBodyEncoding`). */
  requestBody: string
  requestBodyEncoding: 'utf8' | 'base64'
  requestBodyTruncated: boolean
  requestHeaders: Array<{ key: string; value: string }>
  /** Base64, as in the mock services specification's sample. */
  responseBody: string
  responseBodyTruncated: boolean
  responseHeaders: Array<{ key: string; value: string }>
  statusCode: number
  durationMs: number
  hash: null
  filters: null
  parameters: null
  changedRowsCount: null
}

/** The mock services specification list entry of a record. */
export function toListEntry(record: InspectionRecord, serviceMockId: number): InspectionListEntry {
  return {
    id: record.id,
    serviceMockId,
    type: 'HTTP',
    transactionId: record.transactionId,
    operation: record.method,
    url: record.url,
    timestamp: record.timestamp,
    arguments: argumentsOf(record.url),
    matchType: null,
    matchTolerance: null,
    respondingTxn: record.respondingTxn,
    txnPriority: record.txnPriority,
    hasError: record.hasError,
    matched: record.matched,
    source: record.source,
    liveTransactionCreated: record.liveTransactionCreated === true,
    hash: null,
    detailsHash: null,
    webHookName: null,
    webHookId: null,
    modelEntity: null,
    actionName: null,
    objectAction: null,
    statusCode: record.statusCode,
    durationMs: record.durationMs,
  }
}

/** The mock services specification detail of a record. */
export function toDetail(record: InspectionRecord, serviceMockId: number): InspectionDetail {
  const body = record.requestBody
  const utf8 = body === null ? '' : body.toString('utf8')
  const isText = body === null || Buffer.from(utf8, 'utf8').equals(body)
  return {
    id: record.id,
    serviceMockId,
    type: 'HTTP',
    timestamp: record.timestamp,
    operation: record.method,
    url: record.url,
    stepDetails: null,
    matchingData: record.matchingData,
    sessionData: null,
    requestBody: isText ? utf8 : (body as Buffer).toString('base64'),
    requestBodyEncoding: isText ? 'utf8' : 'base64',
    requestBodyTruncated: record.requestBodyTruncated,
    requestHeaders: pairsOf(record.requestHeaders),
    responseBody: record.responseBody === null ? '' : record.responseBody.toString('base64'),
    responseBodyTruncated: record.responseBodyTruncated,
    responseHeaders: pairsOf(record.responseHeaders),
    statusCode: record.statusCode,
    durationMs: record.durationMs,
    hash: null,
    filters: null,
    parameters: null,
    changedRowsCount: null,
  }
}

function pairsOf(flat: readonly string[]): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = []
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ key: flat[i] as string, value: flat[i + 1] as string })
  }
  return out
}

function argumentsOf(url: string): Array<{ key: string; value: string }> {
  const q = url.indexOf('?')
  if (q === -1) return []
  const parsed = parseQuery(url.slice(q + 1))
  const out: Array<{ key: string; value: string }> = []
  for (const key of Object.keys(parsed)) {
    const value = parsed[key]
    if (Array.isArray(value)) for (const v of value) out.push({ key, value: v })
    else if (value !== undefined) out.push({ key, value })
  }
  return out
}
