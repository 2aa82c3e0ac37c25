/**
 * How deep a definition may nest. Deeper values are refused at load (ERR_DSL_INVALID), because
 * the recursive code that later reads them (JSON.stringify, ajv, semantic JSON equality) would run
 * out of stack and turn a bad file into a 500 on every request. 512 levels is far beyond any real
 * API document and far below V8's stack limits. See docs/limits.md.
 */
export const MAX_DEFINITION_DEPTH = 512

/**
 * The JSON pointer of the first container nested deeper than `limit` in a parsed value, or null.
 * Recursive, but never deeper than `limit` frames (it stops there), so the check itself cannot
 * overflow on a hostile value; it allocates nothing unless it finds one.
 *
 * @example
 * tooDeepAt([[[1]]], 2) // '/0/0'
 */
export function tooDeepAt(value: unknown, limit: number = MAX_DEFINITION_DEPTH): string | null {
  const path = deeperThan(value, 1, limit)
  return path === null
    ? null
    : path
        .reverse()
        .map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
        .join('')
}

/** The keys (innermost first) down to the first container past `limit`, or null. */
function deeperThan(node: unknown, depth: number, limit: number): string[] | null {
  if (node === null || typeof node !== 'object') return null
  if (depth > limit) return []
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i]
      if (child === null || typeof child !== 'object') continue
      const found = deeperThan(child, depth + 1, limit)
      if (found !== null) {
        found.push(String(i))
        return found
      }
    }
    return null
  }
  const record = node as Record<string, unknown>
  for (const key in record) {
    const child = record[key]
    if (child === null || typeof child !== 'object') continue
    const found = deeperThan(child, depth + 1, limit)
    if (found !== null) {
      found.push(key)
      return found
    }
  }
  return null
}

/**
 * The deepest nesting of `[` and `{` in JSON text (strings skipped), counting no further than
 * `limit + 1`: a cheap test of text that is about to be parsed and kept.
 *
 * @example
 * jsonTextDepth('{"a":[1,"]"]}') // 2
 */
export function jsonTextDepth(text: string, limit: number = MAX_DEFINITION_DEPTH): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return deepest
}
