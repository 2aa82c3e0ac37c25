import { JSONPath } from 'jsonpath-plus'

/** A compiled JSONPath: every value it selects from a JSON document. */
export type JsonSelector = (json: unknown) => unknown[]

/** `$.a.b`, `$['a']`, `$[0]`: paths walked directly, without the JSONPath engine. */
const SIMPLE_PATH = /^\$((\.[A-Za-z_$][\w$-]*)|(\[\d+\])|(\['[^'\\]*'\])|(\["[^"\\]*"\]))*$/
const SIMPLE_SEGMENT = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^'\\]*)'\]|\["([^"\\]*)"\]/g

/**
 * Compiles a JSONPath once. Simple member/index paths become a direct walk (the common case on
 * the hot path); everything else (wildcards, recursive descent, filters) runs on jsonpath-plus
 * with its safe evaluator. Throws when the expression is invalid.
 *
 * @example
 * compileJsonPath('$.order.id')({ order: { id: 7 } }) // [7]
 */
export function compileJsonPath(expression: string): JsonSelector {
  const path = expression.trim()
  if (!path.startsWith('$')) throw new Error('a JSONPath starts with $')
  checkBalanced(path)
  const segments = simplePathSegments(path)
  if (segments !== null) return directWalk(segments)
  // Filter scripts are compiled by jsonpath-plus on first use; try each once on a probe so that
  // a syntax error surfaces now, at compile time, rather than as a silent non-match later.
  for (const filter of path.matchAll(/\[\?\((.*?)\)\]/g)) {
    JSONPath({ path: `$[?(${filter[1] ?? ''})]`, json: [{}], wrap: true, eval: 'safe' })
  }
  JSONPath({ path, json: {}, wrap: true, eval: 'safe' })
  // `$[?(...)]` on a root object: Jayway JsonPath (what WireMock users write against) applies the
  // filter to the root object itself, jsonpath-plus only to its members. Both are tried, so that
  // `$[?(@.amount > 10000)]` selects `{"amount": 20000}`.
  const rootFilter = /^\$\[\?\(/.test(path)
  return (json) => {
    try {
      // jsonpath-plus answers undefined (not []) for a `null` document.
      const selected =
        (JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as
          unknown[] | undefined) ?? []
      if (!rootFilter || json === null || typeof json !== 'object' || Array.isArray(json)) {
        return selected
      }
      const asRoot =
        (JSONPath({ path, json: [json], wrap: true, eval: 'safe' }) as unknown[] | undefined) ?? []
      return asRoot.length === 0 ? selected : [...asRoot, ...selected]
    } catch {
      // Includes the RangeError of its recursive walk on a body nested thousands deep: no match.
      return []
    }
  }
}

/** One segment of a simple path: a member name or an array index. */
export type PathSegment = string | number

/** The segments of a simple member/index path (`$.a[0]['b']`), or null for any other path. */
export function simplePathSegments(expression: string): PathSegment[] | null {
  const path = expression.trim()
  if (!SIMPLE_PATH.test(path)) return null
  const segments: PathSegment[] = []
  for (const m of path.matchAll(SIMPLE_SEGMENT)) {
    if (m[1] !== undefined) segments.push(m[1])
    else if (m[2] !== undefined) segments.push(Number(m[2]))
    else segments.push(m[3] ?? m[4] ?? '')
  }
  return segments
}

/**
 * The value a simple path selects in a parsed document, or undefined. A name selects only an own
 * member of an object, an index only an element of an array.
 */
// HOT PATH: body matchers on JSON fields.
export function walkSegments(json: unknown, segments: readonly PathSegment[]): unknown {
  let node: unknown = json
  for (let i = 0; i < segments.length; i++) {
    if (node === null || typeof node !== 'object') return undefined
    const segment = segments[i] as PathSegment
    if (typeof segment === 'number') {
      if (!Array.isArray(node)) return undefined
      node = node[segment]
    } else {
      if (Array.isArray(node) || !Object.hasOwn(node, segment)) return undefined
      node = (node as Record<string, unknown>)[segment]
    }
    if (node === undefined) return undefined
  }
  return node
}

function directWalk(segments: readonly PathSegment[]): JsonSelector {
  return (json) => {
    const value = walkSegments(json, segments)
    return value === undefined ? [] : [value]
  }
}

function checkBalanced(path: string): void {
  let depth = 0
  let quote: string | null = null
  for (const c of path) {
    if (quote !== null) {
      if (c === quote) quote = null
    } else if (c === '"' || c === "'") quote = c
    else if (c === '[' || c === '(') depth++
    else if (c === ']' || c === ')') {
      depth--
      if (depth < 0) throw new Error(`unbalanced ${c}`)
    }
  }
  if (quote !== null) throw new Error('unterminated string')
  if (depth !== 0) throw new Error('unbalanced brackets')
}

/**
 * A selected JSON value as the string matchers compare: strings as they are, others as JSON;
 * undefined for a value nested too deep for JSON.stringify (a hostile body), which the matchers
 * then treat as selecting nothing.
 */
export function jsonValueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/* eslint-disable no-template-curly-in-string -- json-unit placeholders are literal `${...}` strings */
const ANY_STRING = '${json-unit.any-string}'
const ANY_NUMBER = '${json-unit.any-number}'
const ANY_BOOLEAN = '${json-unit.any-boolean}'
const IGNORE = '${json-unit.ignore}'
/* eslint-enable no-template-curly-in-string */

/**
 * Semantic JSON equality for `equals_json`: key order and whitespace do not matter; the
 * json-unit placeholders `${json-unit.any-string}`, `${json-unit.any-number}`,
 * `${json-unit.any-boolean}` and `${json-unit.ignore}` (any value, but the member must exist)
 * stand for values in `expected`.
 *
 * With `options`, arrays may come in any order (`ignoreArrayOrder`) and the actual value may have
 * members and trailing (or, ignoring order, any) array items beyond the expected ones
 * (`ignoreExtraElements`), as WireMock's `equalToJson` flags.
 *
 * @example
 * jsonEquals({ id: '${json-unit.any-number}', tags: ['a'] }, { tags: ['a'], id: 7 }) // true
 * jsonEquals([1, 2], [2, 1, 3], { ignoreArrayOrder: true, ignoreExtraElements: true }) // true
 */
export function jsonEquals(
  expected: unknown,
  actual: unknown,
  options: JsonEqualsOptions | null = null,
): boolean {
  if (typeof expected === 'string') {
    if (expected === IGNORE) return actual !== undefined
    if (expected === ANY_STRING) return typeof actual === 'string'
    if (expected === ANY_NUMBER) return typeof actual === 'number'
    if (expected === ANY_BOOLEAN) return typeof actual === 'boolean'
    return expected === actual
  }
  if (expected === null || typeof expected !== 'object') return expected === actual
  if (actual === null || typeof actual !== 'object') return false
  const extra = options?.ignoreExtraElements === true
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false
    if (extra ? actual.length < expected.length : actual.length !== expected.length) return false
    if (options?.ignoreArrayOrder === true) return unorderedEquals(expected, actual, options)
    for (let i = 0; i < expected.length; i++) {
      if (!jsonEquals(expected[i], actual[i], options)) return false
    }
    return true
  }
  if (Array.isArray(actual)) return false
  const e = expected as Record<string, unknown>
  const a = actual as Record<string, unknown>
  const keys = Object.keys(e)
  if (!extra && keys.length !== Object.keys(a).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(a, key) || !jsonEquals(e[key], a[key], options)) return false
  }
  return true
}

/** `equals_json` options (WireMock's `equalToJson` flags). */
interface JsonEqualsOptions {
  ignoreArrayOrder?: boolean
  ignoreExtraElements?: boolean
}

/** Each expected item pairs with a distinct actual item (first fit, in order). */
function unorderedEquals(
  expected: readonly unknown[],
  actual: readonly unknown[],
  options: JsonEqualsOptions,
): boolean {
  const used = new Array<boolean>(actual.length).fill(false)
  for (const item of expected) {
    let found = false
    for (let i = 0; i < actual.length; i++) {
      if (used[i] === true || !jsonEquals(item, actual[i], options)) continue
      used[i] = true
      found = true
      break
    }
    if (!found) return false
  }
  return true
}
