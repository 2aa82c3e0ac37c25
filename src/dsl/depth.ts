/**
 * How deep a definition may nest. Deeper values are refused at load (ERR_DSL_INVALID), because
 * the recursive code that later reads them (JSON.stringify, ajv, semantic JSON equality) would run
 * out of stack and turn a bad file into a 500 on every request. 512 levels is far beyond any real
 * API document and far below V8's stack limits. See docs/limits.md.
 */
export const MAX_DEFINITION_DEPTH = 512

/**
 * The JSON pointer of the first container nested deeper than `limit` in a parsed value, or null.
 * Iterative (an explicit stack), so that the check itself cannot overflow on a hostile value.
 *
 * @example
 * tooDeepAt([[[1]]], 2) // '/0/0'
 */
export function tooDeepAt (value: unknown, limit: number = MAX_DEFINITION_DEPTH): string | null {
  if (value === null || typeof value !== 'object') return null
  const stack: Array<{ node: object; depth: number; pointer: string }> = [{ node: value, depth: 1, pointer: '' }]
  for (;;) {
    const top = stack.pop()
    if (top === undefined) return null
    if (top.depth > limit) return top.pointer
    const entries: Array<[string, unknown]> = Array.isArray(top.node)
      ? top.node.map((v, i): [string, unknown] => [String(i), v])
      : Object.entries(top.node)
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') {
        stack.push({ node: child, depth: top.depth + 1, pointer: `${top.pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` })
      }
    }
  }
}

/**
 * The deepest nesting of `[` and `{` in JSON text (strings skipped), counting no further than
 * `limit + 1`: a cheap test of text that is about to be parsed and kept.
 *
 * @example
 * jsonTextDepth('{"a":[1,"]"]}') // 2
 */
export function jsonTextDepth (text: string, limit: number = MAX_DEFINITION_DEPTH): number {
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
