import type { InspectionRecord } from '../inspect/index.js'
import { Exchange, type AnyRequest, type AnyResponse } from './exchange.js'
import type { RuntimeState } from './runtime-state.js'

const noHeaders: readonly string[] = Object.freeze([])

/**
 * The request listener of every runtime listener (HTTP/1.1, HTTPS with h2, h2c). It opens the
 * inspection record when the request arrives, so that ids follow arrival order and error bodies
 * can name the record, then hands over to an Exchange.
 *
 * @example
 * http.createServer(createRequestHandler(state))
 */
export function createRequestHandler (state: RuntimeState): (req: AnyRequest, res: AnyResponse) => void {
  // HOT PATH: runs for every request.
  return function handleRequest (req, res) {
    const arrived = Date.now()
    const ring = state.ring
    let record: InspectionRecord | null = null
    if (ring !== null) {
      record = {
        id: 0,
        timestamp: arrived,
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        requestHeaders: req.rawHeaders,
        requestBody: null,
        requestBodyTruncated: false,
        statusCode: 0,
        responseHeaders: noHeaders,
        responseBody: null,
        responseBodyTruncated: false,
        matched: false,
        source: 'MOCK',
        hasError: false,
        transactionId: null,
        respondingTxn: null,
        txnPriority: null,
        matchingData: null,
        durationMs: 0,
      }
      ring.append(record)
    }
    const exchange = new Exchange(state, state.mock, req, res, record, arrived, req.httpVersionMajor === 2)
    try {
      exchange.start()
    } catch (err) {
      exchange.fail(err)
    }
  }
}
