import type { DateTruncation } from './date-format.js'

/**
 * The transaction DSL of the mock services specification, with the semantics of docs/dsl.md and
 * docs/architecture.md#matching.
 * These types describe normalized documents; hand-written files may also use the shorthands of
 * `ResponseInput` (`text`, `json`), which normalization turns into `content`.
 */

/**
 * Every matcher name the runtime understands: the mock services specification's list, our
 * additions `equals_json`, `equals_xml` and `matches_xml` (docs/architecture.md#matching), and the
 * product's export's (docs/decisions.md#the-products-dsl-kept-whole).
 */
export const matcherNames = [
  'equals',
  'equals_insensitive',
  'contains',
  'matches',
  'matches_url',
  'not_matches',
  'absent',
  'equals_url',
  'matches_json',
  'equals_json',
  'equals_xml',
  'matches_xml',
  // --- product DSL compatibility ---
  'matches_xml_schema',
  'matches_xml_cdata',
  // WireMock's matchesJsonSchema, before, after, equalToDateTime
  'matches_json_schema',
  'before_date',
  'after_date',
  'equals_date',
] as const

export type MatcherName = (typeof matcherNames)[number]

/** One condition on one part of a request. */
export interface Matcher {
  /** Header, parameter or cookie name; for bodies a JSONPath (`$...`), XPath (`/...`) or form field. */
  key?: string
  matcherName: MatcherName
  matchingValue?: string
  /** Also holds when the item is absent. */
  optional?: boolean
  // --- product DSL compatibility: fields the product's export carries on matchers ---
  /** An example value, kept for round trips; never matched. */
  sampleBody?: string
  /** Prefixes usable in an XPath `key` or `matchingValue` (and in `cdataXpath`). */
  namespaces?: XmlNamespace[]
  /** `matches_xml_cdata`: XPath to the element whose CDATA section holds the XML the matcher reads. */
  cdataXpath?: string
  /** `equals_json`: arrays match whatever the order of their items (WireMock's `ignoreArrayOrder`). */
  ignoreArrayOrder?: boolean
  /** `equals_json`: members and array items beyond the expected ones are allowed (WireMock's `ignoreExtraElements`). */
  ignoreExtraElements?: boolean
  /** Date matchers: the request's value is read with this Java date pattern (WireMock's `actualFormat`). */
  dateFormat?: string
  /** Date matchers: the expected instant is truncated so before the comparison (after `now`, before its offset). */
  truncateExpected?: DateTruncation
  /** Date matchers: the request's instant is truncated so before the comparison. */
  truncateActual?: DateTruncation
  /**
   * Body matchers without `key`: the matcher applies to every field of a form body (every part of
   * a multipart one) and holds when each satisfies it (WireMock's multipart `matchingType: ALL`).
   */
  allParts?: boolean
}

/** An XML namespace binding of a matcher: `prefix` as used in its XPath expressions. */
export interface XmlNamespace {
  prefix: string
  uri: string
}

/** Chooses the response status by a condition on the request: the first that holds wins. */
export interface StatusCodeCondition {
  status: number
  statusMessage?: string
  /** A body matcher (the `body` rules of docs/architecture.md#matching). */
  matcher: Matcher
}

export interface Credentials {
  username?: string
  password?: string
}

export interface RequestDsl {
  /** Exact, case-insensitive; absent or `ANY` matches every method. */
  method?: string
  /** Where the transaction came from; never matched. */
  host?: string
  /** Matched as `equals_url` when there is no `url` matcher. */
  path?: string
  url?: Matcher
  headers?: Matcher[]
  queryParams?: Matcher[]
  cookies?: Matcher[]
  credentials?: Credentials
  body?: Matcher[]
  /** An example request body, kept for documentation; never matched. */
  sampleBody?: string
}

export const delayTypes = ['none', 'fixed', 'uniform', 'lognormal'] as const
export type DelayType = (typeof delayTypes)[number]

/** Think time, in milliseconds (docs/decisions.md#think-time). */
export interface ResponseDelay {
  type: DelayType
  duration?: number
  lower?: number
  upper?: number
  median?: number
  sigma?: number
  // --- product DSL compatibility ---
  /** With `dribbled`: the body is sent in this many chunks spread over the delay. */
  chunks?: number
  /** Slow-network simulation: the body trickles out over the delay instead of waiting first. */
  dribbled?: boolean
}

export interface HeaderEntry {
  name: string
  value: string
}

export interface ResponseDsl {
  status: number
  statusMessage?: string
  /** Forward the request to this base URL and return the live answer. */
  proxyUrl?: string
  headers?: HeaderEntry[]
  binary?: boolean
  /** `json`, `xml`, `text`, `html` or a full MIME type. */
  contentType?: string
  /** The body, base64-encoded. */
  content?: string
  charset?: string
  responseDelay?: ResponseDelay
  // --- product DSL compatibility ---
  /** Kept for round trips (docs/dsl.md). */
  failoverEnabled?: boolean
  statusCodeConditions?: StatusCodeCondition[]
  // --- dynamic responses (see "Beyond fixed answers" below) ---
  /** Body, headers and status message are Handlebars templates. */
  template?: boolean
  /** A fault instead of (a share of) the answers. */
  fault?: FaultSpec
  /** HTTP calls made after the answer is sent. */
  postServe?: PostServeCall[]
}

export interface TransactionDsl {
  type?: string
  /** 1 is the highest; default 10. */
  priority: number
  requestDsl: RequestDsl
  responseDsl: ResponseDsl
  sampleBody?: string
  // --- product DSL compatibility ---
  /** Kept for round trips (docs/dsl.md). */
  redirectUrl?: string
  failoverEnabled?: boolean
  statusCodeConditions?: StatusCodeCondition[]
  /** Stateful scenario this transaction belongs to. */
  scenario?: ScenarioSpec
}

/** The transaction resource of the mock services specification; only `dsl` shapes behaviour. */
export interface Transaction {
  id?: number
  name: string
  description?: string
  tags?: string[]
  serviceId?: number
  serviceName?: string
  link?: string
  dsl: TransactionDsl
}

/** `record`: forward like `bypasslive`, and record each exchange as a transaction. */
export const noMatchPreferences = [
  'return404',
  'bypasslive',
  'returnTransaction',
  'record',
] as const
export type NoMatchPreference = (typeof noMatchPreferences)[number]

/** An entry of `mockServiceTransactions`: which transaction, and the priority it has here. */
export interface MockServiceTransaction {
  txnId: number
  priority?: number
}

/**
 * A mock-service document: the fields of the mock services specification's mock service record that
 * shape behaviour, plus the resolved transactions. It is what `understudy run --mock` reads and
 * `PUT /config` takes.
 */
export interface MockServiceDocument {
  id?: number
  name?: string
  description?: string
  serviceId?: number
  serviceName?: string
  thinkTime: ResponseDelay | null
  capacity: number | null
  replicas: number | null
  noMatchingRequestPreference: NoMatchPreference
  noMatchingRequestTxnId: number | null
  liveSystemHost: string | null
  liveSystemPort: number | null
  endpointPreference: 'HTTP' | 'HTTPS' | null
  mockServiceTransactions: MockServiceTransaction[]
  transactions: Transaction[]
  // --- dynamic responses ---
  /** CORS answered by the runtime; absent: off. */
  cors?: CorsSpec
  /** A fault applied to every transaction without its own (chaos testing). */
  faults?: FaultSpec
  /** Seed of faker and the random helpers of templates: repeatable values. */
  templateSeed?: number
  // --- host matching and request validation ---
  /**
   * Check requests against the OpenAPI descriptions among the files the runtime reads, as
   * `--validate-requests` does (docs/runtime.md); absent or false: off unless the flag says so.
   */
  validateRequests?: boolean
  /** Match `requestDsl.host` against the Host header, as `--match-host` does; absent: off unless the flag says so. */
  matchHost?: boolean
  // --- product DSL compatibility ---
  /** The outbound HTTP proxy of forwarded requests (`proxyUrl`, `bypasslive`); absent: direct. */
  proxy?: OutboundProxy
}

/** An outbound HTTP proxy (the product's mock-service `proxy`), applied when the mock loads. */
export interface OutboundProxy {
  /** `http://host:port` (or `https://`) of the proxy. */
  proxyUrl: string
  /** Hosts reached directly, `|`-separated, `*` as a wildcard (`localhost|*.internal`). */
  nonProxyHosts?: string
  /** Basic credentials sent to the proxy (`Proxy-Authorization`). */
  username?: string
  password?: string
}

// ---------------------------------------------------------------------------------------------
// Beyond fixed answers: templates, scenarios, faults, CORS, webhooks.

export const faultTypes = [
  'connection_reset',
  'empty_response',
  'malformed_chunk',
  'random_data_then_close',
] as const
export type FaultType = (typeof faultTypes)[number]

/** A fault; `probability` (0..1, default 1) is the share of requests it applies to. */
export interface FaultSpec {
  type: FaultType
  probability?: number
}

/** Which request value keys a scenario instance. */
export interface ScenarioInstanceKey {
  part: 'header' | 'query' | 'cookie' | 'body'
  /** Header, parameter or cookie name; for `body` a JSONPath (`$.orderId`) or '' for the whole body. */
  key: string
}

/** A state machine shared by transactions: a scenario starts in `Started`. */
export interface ScenarioSpec {
  name: string
  /** The state this transaction matches in; absent: any state. */
  requiredState?: string
  /** The state its answer moves the scenario to; absent: unchanged. */
  newState?: string
  instanceKey?: ScenarioInstanceKey
  /** Milliseconds after its last transition an instance returns to `Started`. */
  ttl?: number
}

export interface CorsSpec {
  /** Allowed origins (`*` = any); default any. */
  origins: string[]
  methods: string[]
  headers: string[]
  credentials: boolean
  /** Seconds a preflight may be cached. */
  maxAge: number | null
}

/** An HTTP call made after a response is sent (the product's WEBHOOK / HTTP_CALL actions). */
export interface PostServeCall {
  url: string
  method: string
  headers?: HeaderEntry[]
  /** A Handlebars template over the request and the response. */
  body?: string
  /** Milliseconds to wait after the answer. */
  delay?: number
}
