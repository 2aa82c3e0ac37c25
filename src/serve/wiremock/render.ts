import type { Matcher, MatcherName, ResponseDsl, Transaction } from '../../dsl/index.js'

/** WireMock's priority of the DSL's default (10): the importer's shift, read backwards. */
const PRIORITY_SHIFT = 5

/**
 * A transaction of another format (a DSL file, HAR, OpenAPI, `PUT /config`...) in WireMock's stub
 * JSON, as `GET /__admin/mappings` lists it: every condition and answer with a WireMock
 * equivalent is rendered as one, and `metadata.understudy` carries the transaction itself, where
 * it came from (`source: "transaction"`), and the JSON pointers of the transaction's parts that
 * have no WireMock equivalent (`notRendered`), so that the listing never claims to match less
 * than is matched. docs/wiremock.md.
 *
 * @example
 * renderTransaction({ name: 'a', dsl: { priority: 10, requestDsl: { method: 'GET', path: '/a' }, responseDsl: { status: 200 } } })
 * // { name: 'a', priority: 5, request: { method: 'GET', urlPath: '/a' }, response: { status: 200 }, metadata: { understudy: {...} } }
 */
export function renderTransaction(txn: Transaction): Record<string, unknown> {
  const notRendered: string[] = []
  const request = renderRequest(txn, notRendered)
  const response = renderResponse(txn.dsl.responseDsl, notRendered)
  const out: Record<string, unknown> = {
    name: txn.name,
    priority: Math.max(1, txn.dsl.priority - PRIORITY_SHIFT),
    request,
    response,
  }
  const scenario = txn.dsl.scenario
  if (scenario !== undefined) {
    out['scenarioName'] = scenario.name
    if (scenario.requiredState !== undefined) out['requiredScenarioState'] = scenario.requiredState
    if (scenario.newState !== undefined) out['newScenarioState'] = scenario.newState
  }
  for (const key of ['statusCodeConditions', 'redirectUrl'] as const) {
    if (txn.dsl[key] !== undefined) notRendered.push(`/dsl/${key}`)
  }
  const understudy: Record<string, unknown> = { source: 'transaction', transaction: txn }
  if (txn.id !== undefined) understudy['transactionId'] = txn.id
  if (notRendered.length > 0) understudy['notRendered'] = notRendered
  out['metadata'] = { understudy }
  return out
}

function renderRequest(txn: Transaction, notRendered: string[]): Record<string, unknown> {
  const req = txn.dsl.requestDsl
  const out: Record<string, unknown> = {}
  out['method'] =
    req.method === undefined || req.method.toUpperCase() === 'ANY'
      ? 'ANY'
      : req.method.toUpperCase()
  const url =
    req.url ??
    (req.path === undefined
      ? undefined
      : { matcherName: 'equals_url' as const, matchingValue: req.path })
  if (url !== undefined) {
    const value = url.matchingValue ?? ''
    if (url.matcherName === 'equals_url' || url.matcherName === 'equals') {
      out[
        /\{[^}]+\}/.test(value) && url.matcherName === 'equals_url' ? 'urlPathTemplate' : 'urlPath'
      ] = value
    } else if (url.matcherName === 'matches_url' || url.matcherName === 'matches') {
      out['urlPathPattern'] = value
    } else notRendered.push('/dsl/requestDsl/url')
  }
  const keyed: Array<[keyof typeof req & ('headers' | 'queryParams' | 'cookies'), string]> = [
    ['headers', 'headers'],
    ['queryParams', 'queryParameters'],
    ['cookies', 'cookies'],
  ]
  for (const [field, wiremockField] of keyed) {
    const rendered = renderKeyed(req[field] ?? [], `/dsl/requestDsl/${field}`, notRendered)
    if (rendered !== null) out[wiremockField] = rendered
  }
  if (req.credentials !== undefined) {
    out['basicAuthCredentials'] = {
      username: req.credentials.username ?? '',
      password: req.credentials.password ?? '',
    }
  }
  const body: unknown[] = []
  const form: Matcher[] = []
  ;(req.body ?? []).forEach((m, i) => {
    const key = m.key ?? ''
    if (key !== '' && !key.startsWith('$') && !key.startsWith('/')) {
      form.push(m)
      return
    }
    const pattern = renderBodyMatcher(m)
    if (pattern === null) notRendered.push(`/dsl/requestDsl/body/${i}`)
    else body.push(pattern)
  })
  if (body.length > 0) out['bodyPatterns'] = body
  const formParameters = renderKeyed(form, '/dsl/requestDsl/body', notRendered)
  if (formParameters !== null) out['formParameters'] = formParameters
  return out
}

/** Matchers keyed by name as WireMock's `{name: pattern}`; several on one name as `and`. */
function renderKeyed(
  matchers: readonly Matcher[],
  pointer: string,
  notRendered: string[],
): Record<string, unknown> | null {
  const byKey = new Map<string, unknown[]>()
  matchers.forEach((m, i) => {
    const pattern = m.optional === true ? null : valuePattern(m)
    if (pattern === null) {
      notRendered.push(`${pointer}/${i}`)
      return
    }
    const key = m.key ?? ''
    byKey.set(key, [...(byKey.get(key) ?? []), pattern])
  })
  if (byKey.size === 0) return null
  const out: Record<string, unknown> = {}
  for (const [key, patterns] of byKey) {
    out[key] = patterns.length === 1 ? patterns[0] : { and: patterns }
  }
  return out
}

/** DSL matchers on one value and WireMock's string pattern for each (absent: none). */
const valueOperators: Partial<Record<MatcherName, (value: string) => Record<string, unknown>>> = {
  equals: (value) => ({ equalTo: value }),
  equals_insensitive: (value) => ({ equalTo: value, caseInsensitive: true }),
  contains: (value) => ({ contains: value }),
  matches: (value) => ({ matches: value }),
  not_matches: (value) => ({ doesNotMatch: value }),
  before_date: (value) => ({ before: value }),
  after_date: (value) => ({ after: value }),
  equals_date: (value) => ({ equalToDateTime: value }),
}

/** A matcher on one value as WireMock's string pattern; null when WireMock has no equivalent. */
function valuePattern(m: Matcher): Record<string, unknown> | null {
  if (m.matcherName === 'absent') {
    return m.key === undefined || m.key === '' ? null : { absent: true }
  }
  const pattern = valueOperators[m.matcherName]?.(m.matchingValue ?? '') ?? null
  if (pattern !== null) dateOptions(pattern, m)
  return pattern
}

/** The date matchers' options under WireMock's names. */
function dateOptions(pattern: Record<string, unknown>, m: Matcher): void {
  if (m.dateFormat !== undefined) pattern['actualFormat'] = m.dateFormat
  if (m.truncateExpected !== undefined) pattern['truncateExpected'] = m.truncateExpected
  if (m.truncateActual !== undefined) pattern['truncateActual'] = m.truncateActual
}

/** DSL matchers on a whole body with their WireMock body pattern, beyond the value operators. */
const bodyOperators: Partial<Record<MatcherName, (m: Matcher) => Record<string, unknown> | null>> =
  {
    equals_json: (m) => jsonFlags({ equalToJson: m.matchingValue ?? '' }, m),
    equals_xml: (m) => ({ equalToXml: m.matchingValue ?? '' }),
    matches_json: (m) => ({ matchesJsonPath: m.matchingValue ?? '' }),
    matches_xml: (m) =>
      m.namespaces === undefined ? { matchesXPath: m.matchingValue ?? '' } : null,
    matches_json_schema: (m) => ({ matchesJsonSchema: m.matchingValue ?? '' }),
  }

function renderBodyMatcher(m: Matcher): Record<string, unknown> | null {
  // A matcher on every part is a multipart pattern, not a body pattern: listed as not rendered.
  if (m.allParts === true) return null
  const key = m.key ?? ''
  if (key === '') {
    const whole = bodyOperators[m.matcherName]
    if (whole !== undefined) return whole(m)
    return m.optional === true ? null : valuePattern(m)
  }
  if (m.optional === true || m.namespaces !== undefined || m.matcherName === 'absent') return null
  const value = m.matchingValue ?? ''
  const inner =
    m.matcherName === 'equals_json'
      ? jsonFlags({ equalToJson: value }, m)
      : m.matcherName === 'equals_xml'
        ? { equalToXml: value }
        : m.matcherName === 'matches_json_schema'
          ? { matchesJsonSchema: value }
          : valuePattern(m)
  if (inner === null) return null
  return key.startsWith('$')
    ? { matchesJsonPath: { expression: key, ...inner } }
    : { matchesXPath: { expression: key, ...inner } }
}

function jsonFlags(pattern: Record<string, unknown>, m: Matcher): Record<string, unknown> {
  if (m.ignoreArrayOrder === true) pattern['ignoreArrayOrder'] = true
  if (m.ignoreExtraElements === true) pattern['ignoreExtraElements'] = true
  return pattern
}

function renderResponse(rsp: ResponseDsl, notRendered: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { status: rsp.status }
  if (rsp.statusMessage !== undefined) out['statusMessage'] = rsp.statusMessage
  const headers: Record<string, string | string[]> = {}
  for (const h of rsp.headers ?? []) {
    const had = headers[h.name]
    headers[h.name] = had === undefined ? h.value : [...(Array.isArray(had) ? had : [had]), h.value]
  }
  if (
    rsp.contentType !== undefined &&
    !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')
  ) {
    headers['Content-Type'] = mimeOf(rsp.contentType, rsp.charset)
  }
  if (Object.keys(headers).length > 0) out['headers'] = headers
  if (rsp.content !== undefined && rsp.content !== '') {
    const bytes = Buffer.from(rsp.content, 'base64')
    const text = bytes.toString('utf8')
    if (rsp.binary !== true && Buffer.from(text, 'utf8').equals(bytes)) out['body'] = text
    else out['base64Body'] = rsp.content
  }
  if (rsp.proxyUrl !== undefined) out['proxyBaseUrl'] = rsp.proxyUrl
  if (rsp.template === true) out['transformers'] = ['response-template']
  const delay = rsp.responseDelay
  if (delay !== undefined && delay.type !== 'none') {
    if (delay.dribbled === true) {
      out['chunkedDribbleDelay'] = {
        numberOfChunks: delay.chunks ?? 1,
        totalDuration: delay.duration ?? 0,
      }
    } else if (delay.type === 'fixed') out['fixedDelayMilliseconds'] = delay.duration ?? 0
    else if (delay.type === 'uniform') {
      out['delayDistribution'] = {
        type: 'uniform',
        lower: delay.lower ?? 0,
        upper: delay.upper ?? 0,
      }
    } else {
      out['delayDistribution'] = {
        type: 'lognormal',
        median: delay.median ?? 0,
        sigma: delay.sigma ?? 0,
      }
    }
  }
  for (const key of ['fault', 'postServe', 'statusCodeConditions'] as const) {
    if (rsp[key] !== undefined) notRendered.push(`/dsl/responseDsl/${key}`)
  }
  return out
}

const shortTypes: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  text: 'text/plain',
  html: 'text/html',
}

function mimeOf(contentType: string, charset: string | undefined): string {
  const mime = shortTypes[contentType] ?? contentType
  return charset === undefined ? mime : `${mime}; charset=${charset}`
}
