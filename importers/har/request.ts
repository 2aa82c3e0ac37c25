import type { MatcherInput, RequestDslInput } from '../../src/dsl/index.js'
import { headerValues, type HarEntry } from './har-types.js'
import { matchBody } from './request-body.js'

/** A recorded request turned into matchers, or the reason it cannot be replayed. */
type RequestOutcome =
  | {
      kind: 'request'
      requestDsl: RequestDslInput
      method: string
      path: string
      /** Identifies requests that the matchers cannot tell apart (duplicates). */
      key: string
      /** Parts of the request that could not be matched, for warnings. */
      notes: string[]
    }
  | { kind: 'skip'; reason: string }

/**
 * Builds the request side of a transaction from a HAR entry: the method, the URL path as an
 * `equals_url` matcher, one `equals` matcher per query parameter, and body matchers. Request
 * headers and cookies are not matched: what a recording carries there is either volatile (dates,
 * cookies, user agents, tracing ids, conditional-request validators) or set by the HTTP client
 * (accept-encoding, connection, host), and any of them would make a faithful replay miss.
 * `host` records where the request went; the runtime does not match it.
 *
 * @example
 * readRequest({ request: { method: 'get', url: 'https://api.example.com/pets?limit=2' } })
 * // { kind: 'request', method: 'GET', path: '/pets', requestDsl: { method: 'GET', host: 'api.example.com', url: {...}, queryParams: [{ key: 'limit', matcherName: 'equals', matchingValue: '2' }] }, ... }
 */
export function readRequest(entry: HarEntry): RequestOutcome {
  const request = entry.request
  const method = request.method.toUpperCase()
  if (!/^[A-Z]+$/.test(method)) {
    return { kind: 'skip', reason: `method "${request.method}" is not an HTTP token of letters` }
  }
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    return { kind: 'skip', reason: `its URL "${request.url}" is not absolute` }
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:' || isWebSocket(entry)) {
    return {
      kind: 'skip',
      reason: 'it is a WebSocket connection, which a request/response mock cannot replay',
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'skip', reason: `its URL scheme ${url.protocol} is not HTTP` }
  }
  if (method === 'CONNECT') {
    return { kind: 'skip', reason: 'CONNECT opens a proxy tunnel, not a request to replay' }
  }

  const path = url.pathname === '' ? '/' : url.pathname
  // A parameter without a name (`?=x`) cannot be keyed; it is left unmatched.
  const allQuery = [...url.searchParams]
  const query = allQuery.filter(([key]) => key !== '')
  const body = matchBody(request)
  const notes: string[] = []
  if (query.length < allQuery.length) {
    notes.push('its query parameter without a name is not matched')
  }
  if (body.note !== undefined) notes.push(body.note)
  const requestDsl: RequestDslInput = {
    method,
    host: url.host,
    path,
    url: { key: 'url', matcherName: 'equals_url', matchingValue: path },
  }
  if (query.length > 0) {
    requestDsl.queryParams = query.map(([key, value]): MatcherInput => ({
      key,
      matcherName: 'equals',
      matchingValue: value,
    }))
  }
  if (body.matchers.length > 0) requestDsl.body = body.matchers
  // Query order does not matter to the matchers, so it does not make requests different either.
  const queryKey = query
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&')
  return {
    kind: 'request',
    requestDsl,
    method,
    path,
    key: JSON.stringify([method, path, queryKey, body.key]),
    notes,
  }
}

/** Chrome marks WebSocket entries by resource type and frames; any capture by the Upgrade header. */
function isWebSocket(entry: HarEntry): boolean {
  if (entry._resourceType === 'websocket') return true
  if (Array.isArray(entry._webSocketMessages) && entry._webSocketMessages.length > 0) return true
  if (headerValues(entry.request.headers, 'upgrade').some((v) => v.toLowerCase() === 'websocket')) {
    return true
  }
  return entry.response?.status === 101
}
