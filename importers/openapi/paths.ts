import type { MatcherInput } from '../../src/dsl/index.js'
import { isObject } from './resolver.js'

/** Where an API is served: the path prefix every operation gets, and the host (recorded, never matched). */
export interface ServerBase {
  prefix: string
  host?: string
}

/**
 * The base of an OpenAPI 3.x server list: the path part of the first server's URL, with its
 * `{variables}` replaced by their `default` (else their first `enum` value). An absolute URL
 * gives its host too. `https://api.example.com/v1/` -> `{ prefix: '/v1', host: 'api.example.com' }`.
 *
 * @example
 * serverBase([{ url: '{scheme}://developer.uspto.gov/{path}', variables: { scheme: { default: 'https' }, path: { default: 'v2' } } }])
 * // { prefix: '/v2', host: 'developer.uspto.gov' }
 */
export function serverBase(servers: unknown): ServerBase {
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined
  if (!isObject(first) || typeof first['url'] !== 'string') return { prefix: '' }
  const variables = isObject(first['variables']) ? first['variables'] : {}
  const url = first['url'].replace(/\{([^{}]*)\}/g, (_, name: string) => {
    const variable = variables[name]
    if (!isObject(variable)) return ''
    if (variable['default'] !== undefined) return String(variable['default'])
    return Array.isArray(variable['enum']) && variable['enum'].length > 0
      ? String(variable['enum'][0])
      : ''
  })
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith('//')) {
    try {
      const parsed = new URL(url.startsWith('//') ? `http:${url}` : url)
      return { prefix: trimPrefix(parsed.pathname), host: parsed.host }
    } catch {
      return { prefix: '' }
    }
  }
  return { prefix: trimPrefix(url.replace(/[?#].*$/, '')) }
}

/**
 * The base of a Swagger 2.0 document: `basePath` and `host`.
 *
 * @example
 * swaggerBase({ host: 'petstore.swagger.io', basePath: '/v2' }) // { prefix: '/v2', host: 'petstore.swagger.io' }
 */
export function swaggerBase(doc: Record<string, unknown>): ServerBase {
  const prefix = typeof doc['basePath'] === 'string' ? trimPrefix(doc['basePath']) : ''
  return typeof doc['host'] === 'string' && doc['host'] !== ''
    ? { prefix, host: doc['host'] }
    : { prefix }
}

/** `/v1/` -> `/v1`, `v1` -> `/v1`, `/` -> '', `//v1` -> `/v1`. */
function trimPrefix(path: string): string {
  // A server variable without a default leaves an empty segment behind: `/{base}/api` -> `//api`.
  const withSlash = (path.startsWith('/') ? path : `/${path}`).replace(/\/{2,}/g, '/')
  return withSlash.replace(/\/+$/, '')
}

/** An operation's path as matchers: the URL matcher and any query parameters the path key pins. */
interface PathMatch {
  /** The full path as written, with `{param}` templates: `/v2/pets/{petId}`. */
  path: string
  url: MatcherInput
  queryParams: MatcherInput[]
  /** `?a=b` form of the pinned query, for names; '' when none. */
  querySuffix: string
}

/**
 * Matchers for an operation's path: `prefix + key`. A path whose `{param}` templates each fill a
 * whole segment becomes an `equals_url` matcher with the template kept (the runtime treats
 * `{name}` as one segment). A template that shares its segment with other text
 * (`/files/{name}.json`, `/users/{id}:activate`) becomes a `matches` regex, `{name}` standing
 * for `[^/]+`. A key carrying a query (`/tagging?Operation=Tag`, or the `#Operation=Tag&Resource`
 * suffix with which converted AWS descriptions tell apart operations on one path) pins those
 * parameters: `name=value` with `equals`, a bare `name` with `matches` `.*` (present, any value).
 *
 * @example
 * matchPath('/v1', '/files/{name}.json').url // { key: 'url', matcherName: 'matches', matchingValue: '/v1/files/[^/]+\\.json' }
 */
export function matchPath(prefix: string, key: string): PathMatch {
  const cut = key.search(/[?#]/)
  const rawPath = cut === -1 ? key : key.slice(0, cut)
  const query = cut === -1 ? '' : key.slice(cut + 1)
  const path = `${prefix}${rawPath.startsWith('/') ? rawPath : `/${rawPath}`}`
  const wholeSegments = path
    .split('/')
    .every((segment) => !/[{}]/.test(segment) || /^\{[^{}]+\}$/.test(segment))
  const url: MatcherInput = wholeSegments
    ? { key: 'url', matcherName: 'equals_url', matchingValue: path }
    : { key: 'url', matcherName: 'matches', matchingValue: templateRegex(path) }
  const queryParams: MatcherInput[] = []
  for (const part of query.split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    const name = decode(eq === -1 ? part : part.slice(0, eq))
    if (name === '') continue
    queryParams.push(
      eq === -1
        ? { key: name, matcherName: 'matches', matchingValue: '.*' }
        : { key: name, matcherName: 'equals', matchingValue: decode(part.slice(eq + 1)) },
    )
  }
  return { path, url, queryParams, querySuffix: queryParams.length > 0 ? `?${query}` : '' }
}

function templateRegex(path: string): string {
  return path
    .split(/(\{[^{}]+\})/)
    .map((part) =>
      /^\{[^{}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('')
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}
