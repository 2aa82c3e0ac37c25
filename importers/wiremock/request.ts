import type { MatcherInput, RequestDslInput } from '../../src/dsl/index.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { literalPathMatcher, queryMatchers } from '../shared/url.js'
import { hostAndPortMatchers } from './host-port.js'
import { multipartMatchers } from './multipart.js'
import { pathParameterMatcher } from './path-parameters.js'
import { matchersOf, type Part } from './patterns.js'
import { splitUrlPattern } from './url-pattern.js'

const urlKeys = ['url', 'urlPath', 'urlPathTemplate', 'urlPattern', 'urlPathPattern'] as const

const unsupportedRequestKeys: Record<string, string> = {
  customMatcher: 'custom matchers (Java extensions) are not supported; not matched',
  clientIp: 'client IP matching is not supported; not matched',
  scheme: 'scheme matching is not supported; not matched',
}

/**
 * Maps the `request` of a WireMock stub. Everything that cannot be expressed is reported through
 * `note`; the transaction then matches more requests than the stub did, never fewer.
 *
 * @example
 * requestOf({ method: 'GET', urlPath: '/a', queryParameters: { q: { equalTo: '1' } } }, note)
 * // { method: 'GET', url: { key: 'url', matcherName: 'equals_url', matchingValue: '/a' }, queryParams: [...] }
 */
export function requestOf(req: Loose, note: (message: string) => void): RequestDslInput {
  const out: RequestDslInput = {}
  const method = str(req['method'])
  if (method !== undefined && method.toUpperCase() !== 'ANY') out.method = method.toUpperCase()
  const queryParams: MatcherInput[] = []
  for (const k of urlKeys) {
    if (req[k] !== undefined && req[k] !== null && typeof req[k] !== 'string') {
      note(`request ${k} must be a string; not matched`)
    }
  }
  const present = urlKeys.filter((k) => typeof req[k] === 'string')
  if (present.length > 1) {
    note(`request has ${present.join(' and ')}; only ${present[0] ?? ''} is used`)
  }
  const urlKey = present[0]
  const urlValue = urlKey === undefined ? undefined : str(req[urlKey])
  if (urlKey !== undefined && urlValue !== undefined) {
    switch (urlKey) {
      case 'url': {
        // exact path and query; here the path is exact and each parameter must be present
        const q = urlValue.indexOf('?')
        const path = q === -1 ? urlValue : urlValue.slice(0, q)
        out.url = literalPathMatcher(path)
        if (q !== -1) queryParams.push(...queryMatchers(urlValue.slice(q + 1)))
        break
      }
      case 'urlPath':
        out.url = literalPathMatcher(urlValue)
        break
      case 'urlPathTemplate':
        out.url =
          req['pathParameters'] === undefined
            ? { key: 'url', matcherName: 'equals_url', matchingValue: urlValue }
            : (pathParameterMatcher(urlValue, req['pathParameters'], note) ?? {
                key: 'url',
                matcherName: 'equals_url',
                matchingValue: urlValue,
              })
        break
      case 'urlPattern': {
        const split = splitUrlPattern(urlValue)
        out.url = split.url
        queryParams.push(...split.queryParams)
        if (split.unmapped !== undefined) {
          note(
            `the query part ${JSON.stringify(split.unmapped)} of urlPattern is not matched (only NAME=REGEX&NAME=REGEX can be mapped); the path part is`,
          )
        }
        break
      }
      case 'urlPathPattern':
        out.url = { key: 'url', matcherName: 'matches', matchingValue: urlValue }
        break
    }
  }
  if (req['pathParameters'] !== undefined && urlKey !== 'urlPathTemplate') {
    note('request pathParameters apply to a urlPathTemplate only; not matched')
  }
  const keyed = (field: string, part: Exclude<Part, 'body'>, label: string): MatcherInput[] => {
    const map = req[field]
    if (map === undefined) return []
    if (!isObject(map)) {
      note(`${field} must be an object of name to pattern; not matched`)
      return []
    }
    return Object.entries(map).flatMap(([key, pattern]) =>
      matchersOf(pattern, { part, key, where: `${label} ${JSON.stringify(key)}`, note }),
    )
  }
  queryParams.push(...keyed('queryParameters', 'queryParams', 'query parameter'))
  if (queryParams.length > 0) out.queryParams = queryParams
  const headers = keyed('headers', 'headers', 'header')
  const multipart =
    req['multipartPatterns'] === undefined
      ? null
      : multipartMatchers(req['multipartPatterns'], note)
  if (multipart !== null) headers.push(...multipart.headers)
  headers.push(...hostAndPortMatchers(req, note))
  if (headers.length > 0) out.headers = headers
  const cookies = keyed('cookies', 'cookies', 'cookie')
  if (cookies.length > 0) out.cookies = cookies
  const body = bodyMatchers(req, note)
  if (multipart !== null) body.push(...multipart.body)
  if (body.length > 0) out.body = body
  const auth = req['basicAuthCredentials']
  if (isObject(auth)) {
    out.credentials = {
      username: str(auth['username']) ?? '',
      password: str(auth['password']) ?? '',
    }
  }
  const host = req['host']
  if (host !== undefined) {
    // Recorded as the transaction's host too (matched through the Host header above).
    const value = isObject(host) ? str(host['equalTo']) : str(host)
    if (value !== undefined) out.host = value
  }
  for (const key of Object.keys(req)) {
    const reason = unsupportedRequestKeys[key]
    if (reason !== undefined) note(`request ${key}: ${reason}`)
    else if (!knownRequestKeys.has(key)) note(`request has unknown property ${key}; ignored`)
  }
  return out
}

const knownRequestKeys = new Set<string>([
  ...urlKeys,
  'method',
  'queryParameters',
  'headers',
  'cookies',
  'bodyPatterns',
  'formParameters',
  'basicAuthCredentials',
  'host',
  'port',
  'pathParameters',
  'multipartPatterns',
  ...Object.keys(unsupportedRequestKeys),
])

function bodyMatchers(req: Loose, note: (message: string) => void): MatcherInput[] {
  const out: MatcherInput[] = []
  const patterns = req['bodyPatterns']
  if (Array.isArray(patterns)) {
    patterns.forEach((p, i) =>
      out.push(...matchersOf(p, { part: 'body', where: `bodyPatterns[${i}]`, note })),
    )
  } else if (patterns !== undefined) {
    note('bodyPatterns must be an array; not matched')
  }
  const form = req['formParameters']
  if (isObject(form)) {
    // a body matcher keyed by a plain name applies to that form field (docs/dsl.md#request-requestdsl)
    for (const [key, pattern] of Object.entries(form)) {
      out.push(
        ...matchersOf(pattern, {
          part: 'body',
          key,
          where: `form parameter ${JSON.stringify(key)}`,
          note,
        }),
      )
    }
  }
  return out
}
