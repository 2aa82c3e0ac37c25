/**
 * Request paths as every url matcher sees them (docs/dsl.md, `equals_url`): percent-decoded (a
 * malformed escape leaves the path as it was; `+` stays `+`), runs of `/` collapsed after
 * decoding, one trailing `/` dropped (the root stays `/`). The query string is not handled here:
 * the caller cuts it off before (MatchRequest), so a `?` never reaches this function.
 */

const DOUBLE_SLASH = /\/{2,}/g

/**
 * Normalizes a raw request path. The common case (no `%`, no `//`, no trailing `/`) returns the
 * input itself without allocating.
 *
 * @example
 * normalizePath('/pets//1/') // '/pets/1'
 * normalizePath('/a%20b')    // '/a b'
 */
// HOT PATH: runs once per request before routing.
export function normalizePath(raw: string): string {
  let path = raw
  const found = escapesAndDoubleSlashes(raw)
  if ((found & ESCAPE) !== 0) {
    path = safeDecode(path)
    // Decoding can make a `//` (`/%2F`): look again.
    if (path.indexOf('//') !== -1) path = path.replace(DOUBLE_SLASH, '/')
  } else if ((found & DOUBLE_SLASH_FOUND) !== 0) {
    path = path.replace(DOUBLE_SLASH, '/')
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */) path = path.slice(0, -1)
  if (path.length === 0 || path.charCodeAt(0) !== 47) path = '/' + path
  return path
}

const ESCAPE = 1
const DOUBLE_SLASH_FOUND = 2

/**
 * Whether `path` has a `%` (ESCAPE) and a `//` (DOUBLE_SLASH_FOUND), in one pass over its
 * characters: for the short paths of requests, cheaper than two String#indexOf calls (each about
 * 160 instructions through V8's search builtin, before the first character is read).
 */
function escapesAndDoubleSlashes(path: string): number {
  let found = 0
  let previous = 0
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c === 37 /* % */) found |= ESCAPE
    else if (c === 47 /* / */ && previous === 47) found |= DOUBLE_SLASH_FOUND
    previous = c
  }
  return found
}

/** decodeURIComponent, except that a malformed escape leaves the path as it was. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** `{name}` in a path template (one segment, or part of one). */
const TEMPLATE_PARAM = /\{[^{}/]+\}/g

/** True when an `equals_url` value contains `{name}` placeholders. */
export function isTemplate(path: string): boolean {
  TEMPLATE_PARAM.lastIndex = 0
  return TEMPLATE_PARAM.test(path)
}

/**
 * The normalized form of an `equals_url` value. Placeholders are left as they are; the value is
 * not percent-decoded twice when it is written decoded already.
 */
export function normalizeTemplate(template: string): string {
  // Percent-decode around placeholders only: `{` and `}` must survive.
  const withoutQuery = template.split('?')[0] ?? ''
  return normalizePath(withoutQuery)
}

/**
 * The find-my-way pattern of a normalized template: placeholders become positional parameters
 * (`:p0`, `:p1`) so that `/pets/{id}` and `/pets/{petId}` are one route. find-my-way treats `:`
 * and `*` specially, so a template with those in literal parts gets no router pattern (null) and
 * is matched by its regex alone.
 *
 * @example
 * routerPatternOf('/pets/{id}/toys/{toyId}') // '/pets/:p0/toys/:p1'
 */
export function routerPatternOf(template: string): string | null {
  const literal = template.replace(TEMPLATE_PARAM, '')
  if (/[:*?#;%()]/.test(literal)) return null
  let n = 0
  return template.replace(TEMPLATE_PARAM, () => `:p${n++}`)
}

/**
 * A regex equivalent of a normalized template, for checks outside the router (overlaps between
 * templates, near-miss diagnosis, literal paths tested at compile time).
 *
 * @example
 * templateRegex('/pets/{id}').test('/pets/42') // true
 */
export function templateRegex(template: string): RegExp {
  const parts = template.split(TEMPLATE_PARAM)
  const source = parts.map(escapeRegex).join('[^/]+')
  return new RegExp(`^${source}$`)
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Escapes a normalized path for find-my-way, which decodes `%` escapes and cuts at `?`, `#` and
 * `;` itself: those characters, rare after normalization, are re-encoded.
 */
const ROUTER_SPECIAL = /[%?#;]/
const ROUTER_SPECIAL_ALL = /[%?#;]/g
const encodeSpecial = (c: string): string =>
  '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')

// HOT PATH: one cheap test per request in the common case.
export function routerKeyOf(path: string): string {
  if (!ROUTER_SPECIAL.test(path)) return path
  return path.replace(ROUTER_SPECIAL_ALL, encodeSpecial)
}
