import type { DateTruncation } from './date-format.js'
import type {
  DelayInput,
  DocumentInput,
  DslInput,
  MatcherInput,
  RequestDslInput,
  ResponseDslInput,
  StatusCodeConditionInput,
  TransactionInput,
} from './input-types.js'
import type {
  DelayType,
  Matcher,
  MockServiceDocument,
  MockServiceTransaction,
  NoMatchPreference,
  RequestDsl,
  ResponseDelay,
  ResponseDsl,
  StatusCodeCondition,
  Transaction,
} from './types.js'
import {
  normalizeDynamicDocument,
  normalizeDynamicResponse,
  normalizeScenario,
} from './normalize-dynamic.js'

/** Priority of a transaction that does not set one (docs/decisions.md#priority-order). */
export const DEFAULT_PRIORITY = 10

/** The body as base64, the form `responseDsl.content` takes. */
export function encodeContent(body: string | Uint8Array): string {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8').toString('base64')
    : Buffer.from(body).toString('base64')
}

/** Decodes `responseDsl.content`. */
export function decodeContent(content: string | undefined): Buffer {
  return content === undefined || content === '' ? Buffer.alloc(0) : Buffer.from(content, 'base64')
}

/** A non-empty string, or undefined for null, '' and anything else. */
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/**
 * Normalizes one validated transaction: fills defaults, uppercases the method, turns `path` into
 * an `equals_url` matcher, `text`/`json` into base64 `content`, and drops nulls. The input may be a
 * transaction resource or a bare `dsl` object. `index` names it when it has no name.
 *
 * @example
 * normalizeTransaction({ dsl: { requestDsl: { method: 'get', path: '/a' }, responseDsl: { text: 'hi' } } }, 0)
 * // { name: 'GET /a', dsl: { priority: 10, requestDsl: { method: 'GET', path: '/a', url: {...} }, responseDsl: { status: 200, content: 'aGk=', contentType: 'text' } } }
 */
export function normalizeTransaction(
  input: TransactionInput | DslInput,
  index: number,
): Transaction {
  const raw: TransactionInput = 'dsl' in input ? input : { dsl: input }
  const dslIn = raw.dsl
  const requestDsl = normalizeRequest(dslIn.requestDsl)
  const responseDsl = normalizeResponse(dslIn.responseDsl ?? {})
  const fallbackName = `${requestDsl.method ?? 'ANY'} ${requestDsl.path ?? requestDsl.url?.matchingValue ?? `#${index + 1}`}`
  const txn: Transaction = {
    name: text(raw.name) ?? fallbackName,
    dsl: { priority: dslIn.priority ?? DEFAULT_PRIORITY, requestDsl, responseDsl },
  }
  if (raw.id !== undefined) txn.id = raw.id
  if (text(raw.description) !== undefined) txn.description = raw.description as string
  if (Array.isArray(raw.tags)) txn.tags = [...raw.tags]
  if (typeof raw.serviceId === 'number') txn.serviceId = raw.serviceId
  if (text(raw.serviceName) !== undefined) txn.serviceName = raw.serviceName as string
  if (text(raw.link) !== undefined) txn.link = raw.link as string
  if (text(dslIn.type) !== undefined) txn.dsl.type = dslIn.type as string
  if (text(dslIn.sampleBody) !== undefined) txn.dsl.sampleBody = dslIn.sampleBody as string
  // --- product DSL compatibility ---
  if (text(dslIn.redirectUrl) !== undefined) txn.dsl.redirectUrl = dslIn.redirectUrl as string
  if (typeof dslIn.failoverEnabled === 'boolean') txn.dsl.failoverEnabled = dslIn.failoverEnabled
  const conditions = normalizeConditions(dslIn.statusCodeConditions)
  if (conditions !== undefined) txn.dsl.statusCodeConditions = conditions
  normalizeScenario(dslIn, txn.dsl)
  return txn
}

/** Empty credentials as sent: only the members given as strings (`{}` stays `{}`). */
function sentFields(credentials: { username?: string | null; password?: string | null }): {
  username?: string
  password?: string
} {
  const out: { username?: string; password?: string } = {}
  if (typeof credentials.username === 'string') out.username = credentials.username
  if (typeof credentials.password === 'string') out.password = credentials.password
  return out
}

/** `statusCodeConditions`, kept as sent (an empty list means none). */
function normalizeConditions(
  list: StatusCodeConditionInput[] | null | undefined,
): StatusCodeCondition[] | undefined {
  if (list === null || list === undefined) return undefined
  return list.map((c) => {
    const out: StatusCodeCondition = { status: c.status, matcher: normalizeMatcher(c.matcher) }
    if (text(c.statusMessage) !== undefined) out.statusMessage = c.statusMessage as string
    return out
  })
}

function normalizeMatcher(m: MatcherInput): Matcher {
  const out: Matcher = { matcherName: m.matcherName }
  if (m.key !== undefined) out.key = m.key
  if (m.matchingValue !== undefined) out.matchingValue = m.matchingValue
  if (m.optional === true) out.optional = true
  // --- product DSL compatibility ---
  if (text(m.sampleBody) !== undefined) out.sampleBody = m.sampleBody as string
  if (Array.isArray(m.namespaces) && m.namespaces.length > 0) {
    out.namespaces = m.namespaces.map((n) => ({ prefix: n.prefix, uri: n.uri }))
  }
  if (text(m.cdataXpath) !== undefined) out.cdataXpath = m.cdataXpath as string
  if (m.ignoreArrayOrder === true) out.ignoreArrayOrder = true
  if (m.ignoreExtraElements === true) out.ignoreExtraElements = true
  // date matcher options (validated before normalizing)
  if (m.dateFormat !== undefined) out.dateFormat = m.dateFormat
  if (m.truncateExpected !== undefined) {
    out.truncateExpected = m.truncateExpected as DateTruncation
  }
  if (m.truncateActual !== undefined) {
    out.truncateActual = m.truncateActual as DateTruncation
  }
  if (m.allParts === true) out.allParts = true
  return out
}

function normalizeRequest(r: RequestDslInput): RequestDsl {
  const out: RequestDsl = {}
  const method = text(r.method)?.toUpperCase()
  if (method !== undefined && method !== 'ANY') out.method = method
  if (text(r.host) !== undefined) out.host = r.host as string
  if (r.path !== undefined) out.path = r.path
  if (r.url !== undefined) out.url = normalizeMatcher(r.url)
  else if (out.path !== undefined) {
    out.url = { key: 'url', matcherName: 'equals_url', matchingValue: out.path }
  }
  // A list sent empty stays empty (and so do credentials, below): the DSL comes back as it was
  // sent, so that a client comparing what it sent with what it reads sees no change. Empty, they
  // match as if absent.
  for (const part of ['headers', 'queryParams', 'cookies', 'body'] as const) {
    const list = r[part]
    if (list !== undefined) out[part] = list.map(normalizeMatcher)
  }
  const credentials = r.credentials
  if (credentials !== undefined && credentials !== null) {
    const username = credentials.username ?? ''
    const password = credentials.password ?? ''
    if (username !== '' || password !== '') out.credentials = { username, password }
    else out.credentials = sentFields(credentials)
  }
  if (text(r.sampleBody) !== undefined) out.sampleBody = r.sampleBody as string
  return out
}

function normalizeResponse(r: ResponseDslInput): ResponseDsl {
  const out: ResponseDsl = { status: r.status ?? 200 }
  if (text(r.statusMessage) !== undefined) out.statusMessage = r.statusMessage as string
  if (text(r.proxyUrl) !== undefined) out.proxyUrl = r.proxyUrl as string
  if (r.headers !== undefined) {
    out.headers = r.headers.map((h) => ({ name: h.name, value: String(h.value) }))
  }
  if (typeof r.binary === 'boolean') out.binary = r.binary
  if (text(r.contentType) !== undefined) out.contentType = r.contentType as string
  if (text(r.charset) !== undefined) out.charset = r.charset as string
  if (r.text !== undefined) {
    out.content = encodeContent(r.text)
    out.contentType ??= 'text'
  } else if ('json' in r) {
    out.content = encodeContent(JSON.stringify(r.json) ?? 'null')
    out.contentType ??= 'json'
  } else if (text(r.content) !== undefined) {
    out.content = (r.content as string).replace(/\s+/g, '')
  }
  if (r.responseDelay !== undefined && r.responseDelay !== null) {
    // A `none` delay is kept: it switches off the mock service's think time for this transaction.
    const delay = normalizeDelay(r.responseDelay)
    out.responseDelay = delay.type === 'none' ? noneDelay(delay) : delay
  }
  // --- product DSL compatibility ---
  if (typeof r.failoverEnabled === 'boolean') out.failoverEnabled = r.failoverEnabled
  const conditions = normalizeConditions(r.statusCodeConditions)
  if (conditions !== undefined) out.statusCodeConditions = conditions
  normalizeDynamicResponse(r, out)
  return out
}

/** A `none` delay keeps only what round trips need: its type and the product's chunk fields. */
function noneDelay(delay: ResponseDelay): ResponseDelay {
  const out: ResponseDelay = { type: 'none' }
  if (delay.chunks !== undefined) out.chunks = delay.chunks
  if (delay.dribbled !== undefined) out.dribbled = delay.dribbled
  return out
}

/** Lowercases the delay type and keeps only the numbers it uses. */
export function normalizeDelay(d: DelayInput): ResponseDelay {
  const out: ResponseDelay = { type: d.type.toLowerCase() as DelayType }
  for (const key of ['duration', 'lower', 'upper', 'median', 'sigma'] as const) {
    const v = d[key]
    if (v !== undefined) out[key] = v
  }
  // --- product DSL compatibility ---
  if (typeof d.chunks === 'number') out.chunks = d.chunks
  if (typeof d.dribbled === 'boolean') out.dribbled = d.dribbled
  return out
}

/** `thinkTime` as a delay: an integer is a fixed delay; 0, null and `none` mean no delay. */
export function normalizeThinkTime(
  value: number | DelayInput | null | undefined,
): ResponseDelay | null {
  if (typeof value === 'number') return value > 0 ? { type: 'fixed', duration: value } : null
  if (value === null || value === undefined) return null
  const delay = normalizeDelay(value)
  return delay.type === 'none' ? null : delay
}

const preferenceByLowercase: Record<string, NoMatchPreference> = {
  return404: 'return404',
  bypasslive: 'bypasslive',
  returntransaction: 'returnTransaction',
  record: 'record',
}

/** Normalizes the mock-service fields of a validated document around normalized transactions. */
export function normalizeDocument(
  fields: DocumentInput,
  transactions: Transaction[],
): MockServiceDocument {
  const preference =
    preferenceByLowercase[(text(fields.noMatchingRequestPreference) ?? 'return404').toLowerCase()]
  const endpoint = text(fields.endpointPreference)?.toUpperCase()
  const doc: MockServiceDocument = {
    thinkTime: normalizeThinkTime(fields.thinkTime),
    capacity: fields.capacity ?? null,
    replicas: fields.replicas ?? null,
    noMatchingRequestPreference: preference ?? 'return404',
    noMatchingRequestTxnId: fields.noMatchingRequestTxnId ?? null,
    liveSystemHost: text(fields.liveSystemHost) ?? null,
    liveSystemPort: fields.liveSystemPort ?? null,
    endpointPreference: endpoint === 'HTTP' || endpoint === 'HTTPS' ? endpoint : null,
    mockServiceTransactions: (fields.mockServiceTransactions ?? []).map(
      (e): MockServiceTransaction => {
        if (typeof e === 'number') return { txnId: e }
        return typeof e.priority === 'number'
          ? { txnId: e.txnId, priority: e.priority }
          : { txnId: e.txnId }
      },
    ),
    transactions,
  }
  if (typeof fields.id === 'number') doc.id = fields.id
  if (text(fields.name) !== undefined) doc.name = fields.name as string
  if (text(fields.description) !== undefined) doc.description = fields.description as string
  if (typeof fields.serviceId === 'number') doc.serviceId = fields.serviceId
  if (text(fields.serviceName) !== undefined) doc.serviceName = fields.serviceName as string
  normalizeDynamicDocument(fields, doc)
  if (fields.proxy !== undefined && fields.proxy !== null) {
    const p = fields.proxy
    doc.proxy = { proxyUrl: p.proxyUrl }
    if (text(p.nonProxyHosts) !== undefined) doc.proxy.nonProxyHosts = p.nonProxyHosts as string
    if (typeof p.username === 'string') doc.proxy.username = p.username
    if (typeof p.password === 'string') doc.proxy.password = p.password
  }
  return doc
}

/** A document with no settings: what a set of plain transaction files becomes. */
export function documentOf(transactions: Transaction[]): MockServiceDocument {
  return normalizeDocument({}, transactions)
}
