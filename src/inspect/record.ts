/**
 * What the runtime keeps of one request (DESIGN.md section 4). Built once per request at the end
 * of the response; conversions to the spec/002 shapes happen only when someone queries.
 */
export interface InspectionRecord {
  /** Unique and increasing per mock service; assigned by the ring. */
  id: number
  /** Epoch milliseconds when the request arrived. */
  timestamp: number
  method: string
  /** Path and query as received. */
  url: string
  /** Request headers as Node's `rawHeaders` (name, value, name, value...). */
  requestHeaders: readonly string[]
  /** Request body, at most the ring's body limit (a copy when truncated). */
  requestBody: Buffer | null
  requestBodyTruncated: boolean
  statusCode: number
  /** Response headers, flat like `rawHeaders`. */
  responseHeaders: readonly string[]
  /** Response body, at most the ring's body limit; shared with the compiled response when static. */
  responseBody: Buffer | null
  responseBodyTruncated: boolean
  matched: boolean
  source: 'MOCK' | 'LIVE'
  hasError: boolean
  transactionId: number | null
  respondingTxn: string | null
  txnPriority: number | null
  /** Near-miss diagnosis of an unmatched request, or an error description; null otherwise. */
  matchingData: unknown
  /** Milliseconds from arrival to the end of the response. */
  durationMs: number
}

/** The record fields a caller supplies; the ring assigns `id`. */
export type NewInspectionRecord = Omit<InspectionRecord, 'id'>

/**
 * Bytes a record holds on its own (shared response buffers are not counted again). An estimate
 * used to bound the ring's memory; strings count one byte per UTF-16 unit plus a fixed overhead.
 */
// HOT PATH: one short loop over the raw headers per request.
export function recordBytes (record: NewInspectionRecord, sharedResponseBody: boolean): number {
  let bytes = 160 + record.url.length
  const headers = record.requestHeaders
  for (let i = 0; i < headers.length; i++) bytes += (headers[i] as string).length + 8
  if (record.requestBody !== null) bytes += record.requestBody.length
  if (record.responseBody !== null && !sharedResponseBody) bytes += record.responseBody.length
  return bytes
}
