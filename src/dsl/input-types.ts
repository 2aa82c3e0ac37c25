import type { MatcherName } from './types.js'

/*
 * The DSL as written by hand or by other tools, before normalization: what the JSON Schemas in
 * schema/ accept. Nulls are allowed where exported records carry them; `text` and `json` stand in
 * for base64 `content`. Importers may produce these shapes and let normalization finish the job.
 */

export interface MatcherInput {
  key?: string
  matcherName: MatcherName
  matchingValue?: string
  optional?: boolean
  // --- product DSL compatibility ---
  sampleBody?: string | null
  namespaces?: Array<{ prefix: string; uri: string }> | null
  cdataXpath?: string | null
  ignoreArrayOrder?: boolean
  ignoreExtraElements?: boolean
  dateFormat?: string
  truncateExpected?: string
  truncateActual?: string
  allParts?: boolean
}

export interface StatusCodeConditionInput {
  status: number
  statusMessage?: string | null
  matcher: MatcherInput
}

export interface RequestDslInput {
  method?: string
  host?: string | null
  path?: string
  url?: MatcherInput
  headers?: MatcherInput[]
  queryParams?: MatcherInput[]
  cookies?: MatcherInput[]
  credentials?: { username?: string | null; password?: string | null } | null
  body?: MatcherInput[]
  sampleBody?: string | null
}

export interface DelayInput {
  type: string
  duration?: number
  lower?: number
  upper?: number
  median?: number
  sigma?: number
  chunks?: number | null
  dribbled?: boolean | null
}

export interface ResponseDslInput {
  status?: number
  statusMessage?: string | null
  proxyUrl?: string | null
  headers?: Array<{ name: string; value: string | number | boolean }>
  binary?: boolean | null
  contentType?: string | null
  content?: string | null
  charset?: string | null
  responseDelay?: DelayInput | null
  /** A plain-text body. */
  text?: string
  /** A JSON body, any value. */
  json?: unknown
  failoverEnabled?: boolean | null
  statusCodeConditions?: StatusCodeConditionInput[] | null
  // dynamic responses
  template?: boolean | null
  templated?: boolean | null
  fault?: string | { type: string; probability?: number } | null
  postServe?: Array<{
    url: string
    method?: string
    headers?: Array<{ name: string; value: string }>
    body?: string
    delay?: number
  }> | null
}

export interface DslInput {
  type?: string
  priority?: number
  requestDsl: RequestDslInput
  responseDsl?: ResponseDslInput
  sampleBody?: string | null
  nativeId?: string | null
  redirectUrl?: string | null
  failoverEnabled?: boolean | null
  statusCodeConditions?: StatusCodeConditionInput[] | null
  // dynamic responses
  scenario?: {
    name: string
    requiredState?: string | null
    newState?: string | null
    instanceKey?: { part: 'header' | 'query' | 'cookie' | 'body'; key?: string } | null
    ttl?: number | null
  } | null
}

export interface TransactionInput {
  id?: number
  name?: string | null
  description?: string | null
  tags?: string[] | null
  serviceId?: number | null
  serviceName?: string | null
  link?: string | null
  dsl: DslInput
}

export interface DocumentInput {
  id?: number | null
  name?: string | null
  description?: string | null
  serviceId?: number | null
  serviceName?: string | null
  thinkTime?: number | DelayInput | null
  capacity?: number | null
  replicas?: number | null
  noMatchingRequestPreference?: string | null
  noMatchingRequestTxnId?: number | null
  liveSystemHost?: string | null
  liveSystemPort?: number | null
  endpointPreference?: string | null
  mockServiceTransactions?: Array<number | { txnId: number; priority?: number | null }> | null
  transactions?: unknown[]
  // dynamic responses
  cors?:
    | boolean
    | {
        origins?: string[]
        methods?: string[]
        headers?: string[]
        credentials?: boolean
        maxAge?: number | null
      }
    | null
  faults?: string | { type: string; probability?: number } | null
  templateSeed?: number | null
  // host matching and request validation
  validateRequests?: boolean | null
  matchHost?: boolean | null
  // product DSL compatibility
  proxy?: {
    proxyUrl: string
    nonProxyHosts?: string | null
    username?: string | null
    password?: string | null
  } | null
}
