/**
 * Reads one value at a simple JSONPath (`$.a.b`, `$.items[0]`) straight from a request body's
 * bytes, without `JSON.parse`.
 *
 * Why: a body matcher such as `$.shipping.kind equals express` needs one short string, but
 * `JSON.parse` builds every object, array and string of the body; on a small order document that
 * was the largest single cost of a request (bench S2). The scan validates the whole body with the
 * grammar of RFC 8259, exactly as strictly as `JSON.parse`, so that a body is "JSON" for the
 * scanner exactly when it is for the parser; it allocates only the selected value's text. No
 * library does this (streaming parsers such as clarinet or stream-json emit every token as an
 * object, which is what this avoids).
 *
 * Semantics are those of `JSON.parse` followed by the direct walk of json.ts:
 * - a repeated member name: the last one wins (as in `JSON.parse`);
 * - a name segment selects only in an object, an index segment only in an array;
 * - the selected value's text is `jsonValueText(value)`: strings as they are (escapes decoded),
 *   numbers, objects and arrays as `JSON.stringify` writes them.
 */
import { jsonValueText, simplePathSegments, walkSegments, type PathSegment } from './json.js'

/** The body is not JSON. */
export const NOT_JSON = 0
/** The body is JSON, and the path selects nothing in it. */
export const NOT_FOUND = 1

/** What a scanner holds between scans, instead of the last body. */
const EMPTY = Buffer.alloc(0)

/** Longest selected string a scan compares with the last one, to hand out the same string again. */
const REUSED_LENGTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

// Kinds of a selected value, to turn its bytes into text.
const KIND_STRING = 1
const KIND_ESCAPED_STRING = 2
const KIND_NUMBER = 3
const KIND_LITERAL = 4
const KIND_CONTAINER = 5

/** Member names and indexes compared against the body's bytes. */
interface CompiledSegment {
  /** The UTF-8 bytes of a member name; null for an index. */
  readonly name: Buffer | null
  readonly index: number
}

/**
 * A compiled simple path. `scan(body)` gives the selected value's text, `NOT_FOUND`, or `NOT_JSON`.
 * Not reentrant (one shared frame stack): matching is synchronous, so scans never interleave.
 */
export class JsonPathScanner {
  /** The scan's working state, reset by each scan rather than allocated for it. */
  private readonly state: Scan

  private constructor(private readonly path: readonly PathSegment[]) {
    this.state = new Scan(
      path.map((s) =>
        typeof s === 'number'
          ? { name: null, index: s }
          : { name: Buffer.from(s, 'utf8'), index: -1 },
      ),
    )
  }

  /**
   * A scanner for a simple JSONPath, or null for any other (wildcards, filters, recursive
   * descent), which jsonpath-plus evaluates on the parsed body instead.
   */
  static compile(expression: string): JsonPathScanner | null {
    const segments = simplePathSegments(expression)
    // A name with U+FFFD could equal a body name whose bytes are invalid UTF-8 (decoded to U+FFFD
    // by JSON.parse's input); bytes cannot tell, so such paths are left to the parser.
    if (segments === null || segments.some((s) => typeof s === 'string' && s.includes('\uFFFD'))) {
      return null
    }
    return new JsonPathScanner(segments)
  }

  /** The same selection from an already parsed body (when another matcher parsed it). */
  fromParsed(json: unknown): string | typeof NOT_FOUND {
    const value = walkSegments(json, this.path)
    return value === undefined ? NOT_FOUND : (jsonValueText(value) ?? NOT_FOUND)
  }

  // HOT PATH: one pass over the body, no allocation but the selected value's text.
  scan(body: Buffer): string | typeof NOT_JSON | typeof NOT_FOUND {
    const answer = this.state.run(body)
    // Drop the body: the scanner lives as long as the compiled mock service.
    this.state.body = EMPTY
    if (answer !== TOO_DEEP) return answer
    let json: unknown
    try {
      json = JSON.parse(body.toString('utf8'))
    } catch {
      return NOT_JSON
    }
    return this.fromParsed(json)
  }
}

// Frames of open containers, shared by all scans (see "Not reentrant" above). Each frame holds the
// container's path depth (-1 off the path) and, for arrays, the index of the next element. They
// grow to MAX_LEVELS at most: a deeper body is left to JSON.parse, so that a hostile body of
// millions of `[` cannot make these arrays grow for good.
const MAX_LEVELS = 4096
/** The body nests deeper than MAX_LEVELS. */
const TOO_DEEP = 2
let frameDepth = new Int32Array(64)
let frameIndex = new Int32Array(64)
let frameIsArray = new Uint8Array(64)

function growFrames(): void {
  const size = frameDepth.length * 2
  const depth = new Int32Array(size)
  depth.set(frameDepth)
  const index = new Int32Array(size)
  index.set(frameIndex)
  const isArray = new Uint8Array(size)
  isArray.set(frameIsArray)
  frameDepth = depth
  frameIndex = index
  frameIsArray = isArray
}

class Scan {
  body: Buffer = EMPTY
  private pos = 0
  private level = 0
  private foundStart = -1
  private foundEnd = -1
  private foundKind = 0
  /** Where the selected container starts, while it is open (its end is known when it closes). */
  private containerStart = -1
  /**
   * The last short string selected: requests to one route mostly send the same few values, so an
   * ASCII selection equal to it is handed out again rather than decoded and allocated anew.
   */
  private lastText = ''

  constructor(private readonly segments: readonly CompiledSegment[]) {}

  run(body: Buffer): string | typeof NOT_JSON | typeof NOT_FOUND | typeof TOO_DEEP {
    this.body = body
    this.pos = 0
    this.level = 0
    this.foundStart = -1
    this.containerStart = -1
    const count = this.segments.length
    // The value about to be read, and its depth on the path (-1: off the path).
    let valueDepth = 0
    this.skipSpace()
    for (;;) {
      // A value.
      if (this.pos >= body.length) return NOT_JSON
      const start = this.pos
      const c = body[start] as number
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (this.level === MAX_LEVELS) return TOO_DEEP
        if (this.level === frameDepth.length) growFrames()
        frameDepth[this.level] = valueDepth
        frameIndex[this.level] = 0
        frameIsArray[this.level] = c === OPEN_ARRAY ? 1 : 0
        if (valueDepth === count) this.containerStart = start
        this.level++
        this.pos++
        this.skipSpace()
        const close = c === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT
        if (this.pos < body.length && body[this.pos] === close) {
          // Empty container: close it here and go on after it.
          this.pos++
          if (!this.closeContainer()) return NOT_JSON
        } else if (c === OPEN_OBJECT) {
          const member = this.readMemberName()
          if (member === -2) return NOT_JSON
          valueDepth = member
          continue
        } else {
          valueDepth = this.elementDepth()
          continue
        }
      } else {
        let kind: number
        if (c === QUOTE) kind = this.skipString()
        else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) kind = this.skipNumber()
        else kind = this.skipLiteral()
        if (kind === 0) return NOT_JSON
        if (valueDepth === count) this.found(start, this.pos, kind)
      }
      // After a value: a separator, the end of containers, or the end of the document.
      for (;;) {
        this.skipSpace()
        if (this.level === 0) {
          if (this.pos !== body.length) return NOT_JSON
          return this.result()
        }
        if (this.pos >= body.length) return NOT_JSON
        const next = body[this.pos] as number
        const inArray = frameIsArray[this.level - 1] === 1
        if (next === COMMA) {
          this.pos++
          this.skipSpace()
          if (inArray) {
            valueDepth = this.elementDepth()
          } else {
            const member = this.readMemberName()
            if (member === -2) return NOT_JSON
            valueDepth = member
          }
          break
        }
        if (next !== (inArray ? CLOSE_ARRAY : CLOSE_OBJECT)) return NOT_JSON
        this.pos++
        if (!this.closeContainer()) return NOT_JSON
      }
    }
  }

  /** Closes the innermost container (its closing byte read); records it when it is the selection. */
  private closeContainer(): boolean {
    this.level--
    if (frameDepth[this.level] === this.segments.length) {
      this.found(this.containerStart, this.pos, KIND_CONTAINER)
    }
    return true
  }

  /** The path depth of the next element of the innermost array, and counts it. */
  private elementDepth(): number {
    const top = this.level - 1
    const depth = frameDepth[top] as number
    const index = frameIndex[top] as number
    frameIndex[top] = index + 1
    if (depth < 0 || depth >= this.segments.length) return -1
    const segment = this.segments[depth] as CompiledSegment
    return segment.name === null && segment.index === index ? depth + 1 : -1
  }

  /**
   * Reads `"name" :` of a member of the innermost object. Returns the path depth of its value
   * (-1 off the path), or -2 when the bytes are not a member name and a colon.
   */
  private readMemberName(): number {
    const body = this.body
    const start = this.pos
    if (start >= body.length || body[start] !== QUOTE) return -2
    const kind = this.skipString()
    if (kind === 0) return -2
    const end = this.pos
    this.skipSpace()
    if (this.pos >= body.length || body[this.pos] !== COLON) return -2
    this.pos++
    this.skipSpace()
    const depth = frameDepth[this.level - 1] as number
    if (depth < 0 || depth >= this.segments.length) return -1
    const name = (this.segments[depth] as CompiledSegment).name
    if (name === null || !this.nameEquals(name, start + 1, end - 1, kind === KIND_ESCAPED_STRING)) {
      return -1
    }
    // A repeated name replaces the earlier member entirely: forget what was found inside it.
    this.foundStart = -1
    return depth + 1
  }

  private nameEquals(name: Buffer, start: number, end: number, escaped: boolean): boolean {
    if (escaped) {
      return JSON.parse(this.body.toString('utf8', start - 1, end + 1)) === name.toString('utf8')
    }
    if (end - start !== name.length) return false
    // A byte loop: Buffer#compare with offsets validates them and crosses into C++, which costs
    // more than comparing a short name.
    const body = this.body
    for (let i = 0; i < name.length; i++) if (body[start + i] !== name[i]) return false
    return true
  }

  private found(start: number, end: number, kind: number): void {
    this.foundStart = start
    this.foundEnd = end
    this.foundKind = kind
  }

  private result(): string | typeof NOT_FOUND {
    if (this.foundStart < 0) return NOT_FOUND
    if (this.foundKind === KIND_STRING) return this.stringAt(this.foundStart + 1, this.foundEnd - 1)
    const text = this.body.toString('utf8', this.foundStart, this.foundEnd)
    switch (this.foundKind) {
      case KIND_LITERAL:
        return text
      case KIND_NUMBER:
        return jsonValueText(Number(text)) ?? NOT_FOUND
      default:
        return jsonValueText(JSON.parse(text)) ?? NOT_FOUND
    }
  }

  /** The text of an unescaped string's bytes; the previous one when the bytes spell it in ASCII. */
  private stringAt(start: number, end: number): string {
    const body = this.body
    const length = end - start
    if (length > REUSED_LENGTH) return body.toString('utf8', start, end)
    const last = this.lastText
    if (length === last.length) {
      // ASCII bytes equal to the characters decode to exactly those characters; any other byte
      // (multi-byte or invalid UTF-8) stops the comparison and the bytes are decoded.
      let i = 0
      while (i < length) {
        const c = body[start + i] as number
        if (c >= 0x80 || c !== last.charCodeAt(i)) break
        i++
      }
      if (i === length) return last
    }
    this.lastText = body.toString('utf8', start, end)
    return this.lastText
  }

  private skipSpace(): void {
    const body = this.body
    let pos = this.pos
    while (pos < body.length) {
      const c = body[pos]
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
      pos++
    }
    this.pos = pos
  }

  /** Skips a string at `pos` (its opening quote); its kind, or 0 when it is not valid. */
  private skipString(): number {
    const body = this.body
    let pos = this.pos + 1
    let kind = KIND_STRING
    while (pos < body.length) {
      const c = body[pos] as number
      if (c === QUOTE) {
        this.pos = pos + 1
        return kind
      }
      if (c < 0x20) return 0
      if (c === BACKSLASH) {
        kind = KIND_ESCAPED_STRING
        const e = body[pos + 1]
        if (e === 0x75) {
          // \uXXXX: four hex digits
          for (let i = 2; i < 6; i++) if (!isHex(body[pos + i])) return 0
          pos += 6
          continue
        }
        if (
          e !== QUOTE &&
          e !== BACKSLASH &&
          e !== 0x2f &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        ) {
          return 0
        }
        pos += 2
        continue
      }
      pos++
    }
    return 0
  }

  /** Skips `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; KIND_NUMBER, or 0 when invalid. */
  private skipNumber(): number {
    const body = this.body
    let pos = this.pos
    if (body[pos] === 0x2d) pos++
    if (body[pos] === 0x30) {
      pos++
    } else {
      if (!isDigit(body[pos])) return 0
      while (isDigit(body[pos])) pos++
    }
    if (body[pos] === 0x2e) {
      pos++
      if (!isDigit(body[pos])) return 0
      while (isDigit(body[pos])) pos++
    }
    if (body[pos] === 0x65 || body[pos] === 0x45) {
      pos++
      if (body[pos] === 0x2b || body[pos] === 0x2d) pos++
      if (!isDigit(body[pos])) return 0
      while (isDigit(body[pos])) pos++
    }
    this.pos = pos
    return KIND_NUMBER
  }

  /** Skips `true`, `false` or `null`; KIND_LITERAL, or 0 when none is there. */
  private skipLiteral(): number {
    const body = this.body
    const pos = this.pos
    const c = body[pos]
    const literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : null
    if (literal === null) return 0
    for (let i = 1; i < literal.length; i++) if (body[pos + i] !== literal.charCodeAt(i)) return 0
    this.pos = pos + literal.length
    return KIND_LITERAL
  }
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39
}

function isHex(c: number | undefined): boolean {
  return (
    c !== undefined &&
    ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))
  )
}
