/**
 * Media-type helpers shared by importers: splitting `type/subtype; charset=...`, and deciding
 * whether a body is JSON, XML or text (sent with a charset) or binary (sent as bytes).
 */

/** A media type split into its essence (`application/json`), its charset, and its other parameters. */
export interface MediaType {
  /** `type/subtype`, lowercase; '' when the input had none. */
  essence: string
  /** The `charset` parameter, as written; undefined when absent. */
  charset?: string
  /** The essence plus every parameter but `charset`, as written (`multipart/mixed; boundary=x`). */
  withoutCharset: string
}

/**
 * Parses a Content-Type value. Quoted parameter values are unquoted.
 *
 * @example
 * parseMediaType('application/json; charset=UTF-8') // { essence: 'application/json', charset: 'UTF-8', withoutCharset: 'application/json' }
 */
export function parseMediaType(value: string): MediaType {
  // a capture repeats a handful of media types thousands of times (100,000 entries)
  const known = parsed.get(value)
  if (known !== undefined) return { ...known }
  const fresh = parse(value)
  if (parsed.size >= PARSED_MAX) parsed.clear()
  parsed.set(value, fresh)
  return { ...fresh }
}

/** Media types parsed lately (callers get copies: they may set `charset`). */
const parsed = new Map<string, MediaType>()
const PARSED_MAX = 256

function parse(value: string): MediaType {
  const [head = '', ...params] = value.split(';')
  const essence = head.trim().toLowerCase()
  const kept: string[] = [essence]
  const out: MediaType = { essence, withoutCharset: essence }
  for (const param of params) {
    const eq = param.indexOf('=')
    const name = (eq === -1 ? param : param.slice(0, eq)).trim()
    if (name === '') continue
    const raw = eq === -1 ? '' : param.slice(eq + 1).trim()
    const unquoted =
      raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
    if (name.toLowerCase() === 'charset') out.charset = unquoted
    else kept.push(`${name}=${raw}`)
  }
  out.withoutCharset = essence === '' ? '' : kept.join('; ')
  return out
}

/**
 * True for JSON media types: `application/json`, `text/json`, `application/x-json` and any
 * `+json` suffix (`application/problem+json`, `application/vnd.github+json`).
 *
 * @example
 * isJsonType('application/hal+json') // true
 */
export function isJsonType(essence: string): boolean {
  return (
    /^(application|text)\/(x-)?json$/.test(essence) ||
    /\+json$/.test(essence) ||
    /\/json-seq$/.test(essence)
  )
}

/**
 * True for XML media types: `application/xml`, `text/xml` and any `+xml` suffix.
 *
 * @example
 * isXmlType('application/atom+xml') // true
 */
export function isXmlType(essence: string): boolean {
  return essence === 'application/xml' || essence === 'text/xml' || /\+xml$/.test(essence)
}

// Textual types outside text/*: scripts, data formats, forms. Everything else that is not text/*,
// JSON or XML is treated as binary, because sending bytes unchanged can never corrupt them.
const textualApplicationTypes = new Set([
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/x-ecmascript',
  'application/x-www-form-urlencoded',
  'application/graphql',
  'application/x-ndjson',
  'application/ld+json',
  'application/yaml',
  'application/x-yaml',
  'application/sql',
  'application/csv',
  'application/x-sh',
])

/**
 * True when a body of this media type is text (served with a charset), false when it is binary
 * (images, fonts, archives, `application/octet-stream`) or the type is unknown.
 *
 * @example
 * isTextType('image/svg+xml') // true
 * isTextType('font/woff2') // false
 */
export function isTextType(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    isJsonType(essence) ||
    isXmlType(essence) ||
    textualApplicationTypes.has(essence)
  )
}
