/**
 * The offset in JSON text of the value a JSON pointer names, or of its deepest ancestor that
 * exists (an error about a missing member points at its parent); undefined when the text is not
 * JSON. One pass with an explicit stack: no recursion, whatever the nesting, and nothing kept but
 * the keys of the open containers. It replaces re-reading a JSON text with the YAML parser to
 * place an error, which took minutes and gigabytes for a 35 MB document (and overflowed the
 * stack on deep ones).
 *
 * @example
 * jsonValueOffset('{"a": [1, 2]}', ['a', '1']) // 10
 */
export function jsonValueOffset(text: string, segments: readonly string[]): number | undefined {
  // keys[d] is the key (or index) of the child being read in the open container at depth d.
  const keys: Array<string | number> = []
  const isArray: boolean[] = []
  // How many leading entries of `keys` equal the pointer's segments.
  let matched = 0
  let best: number | undefined
  let i = skipSpace(text, 0)
  for (;;) {
    // A value starts at i, at depth keys.length.
    if (matched === keys.length) {
      best = i
      if (matched === segments.length) return best
    }
    const c = text.charCodeAt(i)
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b
      i = skipSpace(text, i + 1)
      if (text.charCodeAt(i) === (array ? 0x5d : 0x7d)) {
        i++
      } else {
        keys.push(0)
        isArray.push(array)
        const next = enterChild(text, i, array, 0, keys, segments, matched)
        if (next === undefined) return undefined
        i = next.at
        matched = next.matched
        continue
      }
    } else {
      const end = scalarEnd(text, i)
      if (end === undefined) return undefined
      i = end
    }
    // After a value: the next sibling, or the end of containers.
    for (;;) {
      i = skipSpace(text, i)
      const depth = keys.length
      if (depth === 0) return best
      // The matched child is over and held nothing deeper, or a matched container ends without the child.
      if (matched === depth) return best
      const close = text.charCodeAt(i)
      const array = isArray[depth - 1] as boolean
      if (close === 0x2c) {
        const index = keys[depth - 1] as number | string
        const next = enterChild(
          text,
          skipSpace(text, i + 1),
          array,
          typeof index === 'number' ? index + 1 : 0,
          keys,
          segments,
          matched,
        )
        if (next === undefined) return undefined
        i = next.at
        matched = next.matched
        break
      }
      if (close !== (array ? 0x5d : 0x7d)) return undefined
      if (matched === depth - 1) return best
      keys.pop()
      isArray.pop()
      i++
    }
  }
}

/**
 * Reads the key of the next child of the container at depth keys.length - 1 (an object's key and
 * its colon, or the array index), records it, and says whether the path still matches.
 */
function enterChild(
  text: string,
  at: number,
  array: boolean,
  index: number,
  keys: Array<string | number>,
  segments: readonly string[],
  matched: number,
): { at: number; matched: number } | undefined {
  const depth = keys.length
  let key: string | number = index
  let i = at
  if (!array) {
    const end = text.charCodeAt(i) === 0x22 ? scalarEnd(text, i) : undefined
    if (end === undefined) return undefined
    const raw = text.slice(i + 1, end - 1)
    try {
      key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw
    } catch {
      return undefined
    }
    i = skipSpace(text, end)
    if (text.charCodeAt(i) !== 0x3a) return undefined
    i = skipSpace(text, i + 1)
  }
  keys[depth - 1] = array ? index : key
  const holds = matched >= depth - 1 && String(key) === segments[depth - 1]
  return { at: i, matched: holds ? depth : Math.min(matched, depth - 1) }
}

function skipSpace(text: string, from: number): number {
  let i = from
  for (;;) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i
    i++
  }
}

/** The end of the string, number or literal starting at `from`; undefined at the end of the text. */
function scalarEnd(text: string, from: number): number | undefined {
  if (from >= text.length) return undefined
  if (text.charCodeAt(from) === 0x22) {
    for (let i = from + 1; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 0x5c) i++
      else if (c === 0x22) return i + 1
    }
    return undefined
  }
  let i = from
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (
      c === 0x2c ||
      c === 0x5d ||
      c === 0x7d ||
      c === 0x20 ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09
    ) {
      break
    }
    i++
  }
  return i === from ? undefined : i
}

/**
 * The 1-based line and column of an offset in a text.
 *
 * @example
 * positionAt('a\nbc', 3) // { line: 2, column: 2 }
 */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: offset - lineStart + 1 }
}
