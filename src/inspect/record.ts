/**
 * One inspection record as queries see it (docs/decisions.md#inspection-ring), decoded from the
 * ring on demand; conversions to the mock services specification shapes (query.ts) start from it.
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
  /** The live answer was recorded as a transaction (record mode); absent: false. */
  liveTransactionCreated?: boolean
  hasError: boolean
  transactionId: number | null
  respondingTxn: string | null
  txnPriority: number | null
  /** Near-miss diagnosis of an unmatched request, or an error description; null otherwise. */
  matchingData: unknown
  /** Milliseconds from arrival to the end of the response. */
  durationMs: number
}
