/**
 * Where the elements of one array of a JSON document are, found in its UTF-8 bytes without
 * parsing them: so that a large capture (a HAR's `log.entries`) or configuration (a `PUT /config`'s
 * `transactions`) can be parsed an element at a time, each element's objects dying young, between
 * turns of the event loop or split between threads. The scan only
 * finds boundaries; it judges nothing. Every byte still goes through `JSON.parse`: the skeleton
 * (the document with the array emptied) and each element (`elementText`), so a document that is
 * not valid JSON fails one of those parses (or the scan), and the caller then reads it whole the
 * usual way, for the usual message. The scan is one pass over the bytes, about 2 ns each.
 */

/** The array's elements as offsets into the bytes, and the text around them. */
interface ArrayLayout {
  /** The document with the array emptied (`[]`): everything but the elements, for `JSON.parse`. */
  skeleton: string
  /** Start and end (exclusive) byte offsets of each element, two numbers per element. */
  bounds: number[]
}

const utf8 = new TextDecoder('utf-8')
const encoder = new TextEncoder()

/**
 * The text of the element `index` of a layout of `bytes` (or of a range: `bounds` relative to it).
 *
 * @example
 * JSON.parse(elementText(bytes, layout.bounds, 0))
 */
export function elementText(bytes: Uint8Array, bounds: readonly number[], index: number): string {
  return utf8.decode(bytes.subarray(bounds[2 * index], bounds[2 * index + 1]))
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

/**
 * Finds the array at `path` (member names from the root object: `['log', 'entries']`) in UTF-8
 * bytes (a byte order mark is skipped). Null when the document is not shaped so (no such array, a
 * member named twice on the path, escapes in a name on the path), is UTF-16, or breaks JSON's
 * structure where the scan walks: read it whole instead.
 *
 * @example
 * const layout = locateArray(Buffer.from('{"log": {"entries": [{"a": 1}, {"a": 2}]}}'), ['log', 'entries'])
 * layout?.skeleton // '{"log": {"entries": []}}'
 * layout?.bounds // [21, 29, 31, 39]
 */
export function locateArray(bytes: Uint8Array, path: readonly string[]): ArrayLayout | null {
  const steps = locateArraySteps(bytes, path)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/**
 * locateArray as steps, one per element found, so that a caller on the event loop can scan tens
 * of megabytes between turns (`PUT /config`).
 *
 * @example
 * const steps = locateArraySteps(bytes, ['transactions']); let step = steps.next(); while (step.done !== true) { await slice(); step = steps.next() }
 */
export function* locateArraySteps(
  bytes: Uint8Array,
  path: readonly string[],
): Generator<void, ArrayLayout | null, void> {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return null
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  const at = skipSpace(bytes, start)
  if (bytes[at] !== OPEN_BRACE) return null
  const found: Found = { open: -1, close: -1, bounds: [] }
  if (
    (yield* walkObject(
      bytes,
      at,
      path.map((name) => encoder.encode(name)),
      0,
      found,
    )) < 0 ||
    found.open < 0
  ) {
    return null
  }
  return {
    skeleton:
      utf8.decode(bytes.subarray(start, found.open + 1)) + utf8.decode(bytes.subarray(found.close)),
    bounds: found.bounds,
  }
}

/** The array found: the offsets of its `[` and `]`, and its elements. */
interface Found {
  open: number
  close: number
  bounds: number[]
}

/**
 * Walks the object at `open`, descending into the member named `path[depth]` (the array sought
 * when it is the last name); returns the offset after the object, or -1. The path is walked in the
 * same pass as everything else, so that no byte is scanned twice.
 */
function* walkObject(
  bytes: Uint8Array,
  open: number,
  path: readonly Uint8Array[],
  depth: number,
  found: Found,
): Generator<void, number, void> {
  const name = path[depth] as Uint8Array
  const last = depth === path.length - 1
  let seen = false
  let at = skipSpace(bytes, open + 1)
  if (bytes[at] === CLOSE_BRACE) return at + 1
  for (;;) {
    if (bytes[at] !== QUOTE) return -1
    const keyEnd = stringEnd(bytes, at)
    if (keyEnd < 0) return -1
    const key = bytes.subarray(at + 1, keyEnd - 1)
    // an escaped name might spell `name`: JSON.parse would decode it, the scan does not
    if (key.includes(BACKSLASH)) return -1
    at = skipSpace(bytes, keyEnd)
    if (bytes[at] !== COLON) return -1
    at = skipSpace(bytes, at + 1)
    let end: number
    if (sameBytes(key, name)) {
      // JSON.parse keeps the last of repeated names: the scan would have to as well
      if (seen) return -1
      seen = true
      if (last) {
        if (bytes[at] !== OPEN_BRACKET) return -1
        const close = yield* elementsOf(bytes, at, found.bounds)
        if (close < 0) return -1
        found.open = at
        found.close = close
        end = close + 1
      } else {
        if (bytes[at] !== OPEN_BRACE) return -1
        end = yield* walkObject(bytes, at, path, depth + 1, found)
      }
    } else {
      end = valueEnd(bytes, at)
    }
    if (end < 0) return -1
    at = skipSpace(bytes, end)
    const c = bytes[at]
    if (c === CLOSE_BRACE) return at + 1
    if (c !== COMMA) return -1
    at = skipSpace(bytes, at + 1)
  }
}

/** Records the elements of the array at `open`, a step each; returns the offset of its `]`, or -1. */
function* elementsOf(
  bytes: Uint8Array,
  open: number,
  bounds: number[],
): Generator<void, number, void> {
  let at = skipSpace(bytes, open + 1)
  if (bytes[at] === CLOSE_BRACKET) return at
  for (;;) {
    const end = valueEnd(bytes, at)
    if (end < 0) return -1
    bounds.push(at, end)
    yield
    at = skipSpace(bytes, end)
    const c = bytes[at]
    if (c === CLOSE_BRACKET) return at
    if (c !== COMMA) return -1
    at = skipSpace(bytes, at + 1)
  }
}

/*
 * The byte loops below compare with literals: module-level constants are loaded (and checked)
 * on every comparison, which made the scan three times slower.
 */

/**
 * The end of the value starting at `at`, or -1. Containers are followed by their nesting only
 * (JSON.parse checks the rest).
 */
function valueEnd(bytes: Uint8Array, at: number): number {
  const length = bytes.length
  const first = bytes[at]
  if (first === QUOTE) return stringEnd(bytes, at)
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0
    let inString = false
    for (let i = at; i < length; i++) {
      const c = bytes[i]
      if (inString) {
        // an escape's second byte is never a quote that ends the string
        if (c === 0x5c) {
          i++
        } // backslash
        else if (c === 0x22) inString = false // quote
      } else if (c === 0x22) inString = true
      else if (c === 0x7b || c === 0x5b) {
        depth++
      } // { [
      else if (c === 0x7d || c === 0x5d) {
        // } ]
        if (--depth === 0) return i + 1
      }
    }
    return -1
  }
  // a number, true, false or null: up to the next delimiter
  let i = at
  while (i < length) {
    const c = bytes[i] as number
    if (
      c === COMMA ||
      c === CLOSE_BRACE ||
      c === CLOSE_BRACKET ||
      c === QUOTE ||
      c === OPEN_BRACE ||
      c === OPEN_BRACKET ||
      isSpace(c)
    ) {
      break
    }
    i++
  }
  return i === at ? -1 : i
}

/** The offset after the closing quote of the string opening at `open`, or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  const length = bytes.length
  for (let i = open + 1; i < length; i++) {
    const c = bytes[i]
    if (c === 0x5c) {
      i++
    } // backslash
    else if (c === 0x22) return i + 1 // quote
  }
  return -1
}

function skipSpace(bytes: Uint8Array, at: number): number {
  const length = bytes.length
  while (at < length && isSpace(bytes[at] as number)) at++
  return at
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
