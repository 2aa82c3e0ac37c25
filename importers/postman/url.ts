import type { MatcherInput } from '../../src/dsl/index.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { escapeRegex, literalPathMatcher } from '../shared/url.js'
import { isLiteral, resolvePieces, resolveText, type Piece, type Scope } from './variables.js'

/** What a Postman request URL becomes. */
interface UrlMatchers {
  host?: string
  url: MatcherInput
  /** The path as written with variables resolved (unknown ones as `{name}`), for names. */
  display: string
  queryParams: MatcherInput[]
  /** True when part of the path is a wildcard (an unknown variable). */
  wildcard: boolean
  notes: string[]
}

interface RawUrl {
  host: string
  segments: string[]
  query: Array<{ key: string; value: string }>
  pathVariables: Map<string, string>
}

/**
 * Maps a Postman URL (a string, or the v2 object with `host`, `path`, `query`, `variable`) to
 * matchers. Known `{{variables}}` are substituted; an unknown one in the path matches any one
 * segment (or part of one), as does a `:name` path variable without a value. Only query
 * parameters that are not disabled are matched.
 *
 * @example
 * urlMatchersOf('{{base}}/users/{{id}}?active=true', new Map()).url
 * // { key: 'url', matcherName: 'equals_url', matchingValue: '/users/{id}' }
 */
export function urlMatchersOf(url: unknown, scope: Scope): UrlMatchers {
  const raw = rawUrlOf(url)
  const notes: string[] = []
  const segments: Piece[][] = []
  let host: string | undefined
  const hostPieces = resolvePieces(raw.host, scope)
  if (raw.host !== '' && isLiteral(hostPieces)) {
    // a base-URL variable may carry a scheme and a path prefix: https://api.example.com/v2
    const resolved = hostPieces
      .map((p) => ('text' in p ? p.text : ''))
      .join('')
      .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    const slash = resolved.indexOf('/')
    host = slash === -1 ? resolved : resolved.slice(0, slash)
    if (slash !== -1) {
      for (const s of resolved.slice(slash + 1).split('/')) {
        if (s !== '') segments.push([{ text: s }])
      }
    }
  }
  for (const segment of raw.segments) {
    const pathVar = /^:([A-Za-z0-9_.-]+)$/.exec(segment)?.[1]
    if (pathVar !== undefined) {
      const value = raw.pathVariables.get(pathVar)
      segments.push(
        value === undefined || value === '' ? [{ variable: pathVar }] : resolvePieces(value, scope),
      )
    } else {
      segments.push(resolvePieces(segment, scope))
    }
  }
  const pieces: Piece[] = []
  for (const segment of segments) pieces.push({ text: '/' }, ...segment)
  if (pieces.length === 0) pieces.push({ text: '/' })
  const wildcard = !isLiteral(pieces)
  const decoded = pieces.map((p) => ('text' in p ? { text: safeDecode(p.text) } : p))
  const display = decoded.map((p) => ('text' in p ? p.text : `{${p.variable}}`)).join('')
  const out: UrlMatchers = {
    url: urlMatcher(decoded),
    display,
    queryParams: queryMatchersOf(raw.query, scope, notes),
    wildcard,
    notes,
  }
  if (host !== undefined && host !== '') out.host = host
  return out
}

function urlMatcher(pieces: Piece[]): MatcherInput {
  const literalText = pieces.map((p) => ('text' in p ? p.text : '')).join('')
  if (isLiteral(pieces)) return literalPathMatcher(literalText)
  // `{name}` in equals_url matches one segment or part of one ([^/]+), like the wildcard wanted,
  // and keeps the transaction routable; braces in the literal text would be read as placeholders.
  if (!/[{}]/.test(literalText)) {
    return {
      key: 'url',
      matcherName: 'equals_url',
      matchingValue: pieces
        .map((p) => ('text' in p ? p.text : `{${placeholderName(p.variable)}}`))
        .join(''),
    }
  }
  return {
    key: 'url',
    matcherName: 'matches',
    matchingValue: pieces.map((p) => ('text' in p ? escapeRegex(p.text) : '[^/]+')).join(''),
  }
}

function placeholderName(variable: string): string {
  const name = variable.replace(/[{}/\s]/g, '')
  return name === '' ? 'var' : name
}

function queryMatchersOf(query: RawUrl['query'], scope: Scope, notes: string[]): MatcherInput[] {
  const out: MatcherInput[] = []
  for (const { key, value } of query) {
    const keyText = resolveText(key, scope)
    if (keyText.includes('{{')) {
      notes.push(
        `query parameter ${JSON.stringify(key)} has an unknown variable in its name; not matched`,
      )
      continue
    }
    const name = formDecode(keyText)
    if (name === '') continue
    const pieces = resolvePieces(value, scope)
    if (isLiteral(pieces)) {
      out.push({
        key: name,
        matcherName: 'equals',
        matchingValue: formDecode(pieces.map((p) => ('text' in p ? p.text : '')).join('')),
      })
    } else {
      const regex = pieces
        .map((p) => ('text' in p ? escapeRegex(formDecode(p.text)) : '.*'))
        .join('')
      out.push({ key: name, matcherName: 'matches', matchingValue: regex })
    }
  }
  return out
}

/** Reads a query string part the way the runtime will (URLSearchParams: `+` is a space). */
function formDecode(text: string): string {
  return new URLSearchParams(`x=${text.replace(/&/g, '%26').replace(/=/g, '%3D')}`).get('x') ?? text
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function rawUrlOf(url: unknown): RawUrl {
  if (typeof url === 'string') return parseRaw(url)
  if (!isObject(url)) return { host: '', segments: [], query: [], pathVariables: new Map() }
  const structured = url['host'] !== undefined || url['path'] !== undefined
  const base = structured ? structuredUrl(url) : parseRaw(str(url['raw']) ?? '')
  if (Array.isArray(url['query'])) base.query = queryOf(url['query'])
  if (Array.isArray(url['variable'])) {
    for (const v of url['variable']) {
      if (!isObject(v)) continue
      const key = str(v['key']) ?? str(v['id'])
      const value = v['value']
      if (key !== undefined && (typeof value === 'string' || typeof value === 'number')) {
        base.pathVariables.set(key, String(value))
      }
    }
  }
  return base
}

function structuredUrl(url: Loose): RawUrl {
  const hostValue = url['host']
  let host = Array.isArray(hostValue) ? hostValue.map(String).join('.') : (str(hostValue) ?? '')
  const port = url['port']
  if ((typeof port === 'string' && port !== '') || typeof port === 'number') {
    host += `:${String(port)}`
  }
  const pathValue = url['path']
  const parts = Array.isArray(pathValue)
    ? pathValue.map((p) => (isObject(p) ? (str(p['value']) ?? '') : String(p)))
    : (str(pathValue) ?? '').split('/')
  const segments = parts.flatMap((p) => p.split('/')).filter((s) => s !== '')
  return { host, segments, query: [], pathVariables: new Map() }
}

function queryOf(list: unknown[]): RawUrl['query'] {
  const out: RawUrl['query'] = []
  for (const q of list) {
    if (!isObject(q) || q['disabled'] === true) continue
    const key = str(q['key'])
    if (key === undefined) continue
    const value = q['value']
    out.push({ key, value: value === null || value === undefined ? '' : String(value) })
  }
  return out
}

function parseRaw(raw: string): RawUrl {
  let rest = raw.trim().split('#')[0] ?? ''
  const q = rest.indexOf('?')
  const query: RawUrl['query'] = []
  if (q !== -1) {
    for (const part of rest.slice(q + 1).split('&')) {
      if (part === '') continue
      const eq = part.indexOf('=')
      query.push(
        eq === -1
          ? { key: part, value: '' }
          : { key: part.slice(0, eq), value: part.slice(eq + 1) },
      )
    }
    rest = rest.slice(0, q)
  }
  rest = rest.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  let host = ''
  if (!rest.startsWith('/')) {
    const slash = rest.indexOf('/')
    host = slash === -1 ? rest : rest.slice(0, slash)
    rest = slash === -1 ? '' : rest.slice(slash)
  }
  return {
    host,
    segments: rest.split('/').filter((s) => s !== ''),
    query,
    pathVariables: new Map(),
  }
}
