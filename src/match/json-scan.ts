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
/** The body nests deeper than MAX_LEVELS: JSON.parse decides instead. */
const TOO_DEEP = 2

/** Longest selected string a scan compares with the last one, to hand out the same string again. */
const REUSED_LENGTH = 64

/**
 * Open containers a scan follows itself. A deeper body is left to JSON.parse, so that a hostile
 * body of millions of `[` needs no more than this fixed stack.
 */
const MAX_LEVELS = 4096

/**
 * The closing byte of each open container, shared by all scans (see "Not reentrant" below): it
 * tells an object from an array after a comma, and checks that `]` closes `[` and `}` closes `{`.
 */
const closers = new Uint8Array(MAX_LEVELS)

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const MINUS = 0x2d
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39
/** What a scan takes for the byte past the body's end: no byte of JSON's grammar. */
const END = -1

// Kinds of a selected value, to turn its bytes into text.
const KIND_STRING = 1
const KIND_ESCAPED_STRING = 2
const KIND_NUMBER = 3
const KIND_LITERAL = 4
const KIND_CONTAINER = 5

/**
 * An index no path segment holds: segments' indexes are clamped to it, since no body can have
 * that many elements in one array (each takes 2 bytes, and a Buffer holds at most 4 GiB).
 */
const MAX_INDEX = 0x7fffffff

/**
 * Longest body whose bytes scans remember. Load tests and client loops send the same body again
 * and again; a scan of a body equal to the last one scanned hands out its scanner's answer for
 * it again, for one comparison of bytes. A fixed buffer, allocated with the first scan.
 */
const REMEMBERED_BODY = 64 * 1024
/** The room for a copy of the last body scanned, when it was at most REMEMBERED_BODY bytes long. */
let rememberedRoom: Buffer | null = null
/** That copy: a view of the room as long as the body, or null when the last body was longer. */
let rememberedBody: Buffer | null = null
/**
 * How many times the body scanned changed: the last body's number. A scanner keeps its answer
 * with the number of the body it was for; numbers start at 1, so 0 is no body.
 */
let bodyNumber = 0

/**
 * Buffer#equals, called on each body: `body.equals` was a call into V8's generic property load
 * (about 70 instructions), as Buffer.prototype holds too many methods for an inlined lookup.
 */
const bufferEquals = Buffer.prototype.equals

/**
 * The number of `body`: the last body's when the bytes are the same, a new one otherwise. The
 * bytes are compared by Buffer#equals (one call into C++, about 45 ns for a 126-byte body, where
 * a loop over the bytes takes 110, and Buffer#compare with offsets, which checks them in
 * JavaScript first, 60); a different body costs that and a copy.
 */
function numberOf(body: Buffer): number {
  if (rememberedBody !== null && bufferEquals.call(body, rememberedBody)) return bodyNumber
  const length = body.length
  if (length <= REMEMBERED_BODY) {
    rememberedRoom ??= Buffer.allocUnsafeSlow(REMEMBERED_BODY)
    // TypedArray#set: V8's own copy, without the call into C++ of Buffer#copy.
    rememberedRoom.set(body)
    // Bodies that change keep their length more often than not (ids, counters): the view of the
    // last length serves again, without a new one.
    if (rememberedBody === null || rememberedBody.length !== length) {
      rememberedBody = rememberedRoom.subarray(0, length)
    }
  } else {
    rememberedBody = null
  }
  return ++bodyNumber
}

/** Whether a name's UTF-8 bytes tell it from every other name (see `compile`). */
function hasOwnBytes(name: string): boolean {
  return !name.includes('\uFFFD') && Buffer.from(name).toString() === name
}

/**
 * A compiled simple path. `scan(body)` gives the selected value's text, `NOT_FOUND`, or `NOT_JSON`.
 * Not reentrant (one shared stack of closers): matching is synchronous, so scans never interleave.
 */
export class JsonPathScanner {
  /** Path segments. */
  private readonly count: number
  /** The UTF-8 bytes of each name segment; empty for an index segment. */
  private readonly names: readonly Buffer[]
  /** The byte length of each name segment, -1 for an index segment, which no name matches. */
  private readonly nameLengths: Int32Array
  /** Each index segment, -1 for a name segment, which no element matches. */
  private readonly indexes: Int32Array
  /**
   * The last short string selected: requests to one route mostly send the same few values, so an
   * ASCII selection equal to it is handed out again rather than decoded and allocated anew.
   */
  private lastText = ''
  /** The number (see numberOf) of the body the last answer was for, and that answer. */
  private answeredBody = 0
  private answer: string | typeof NOT_JSON | typeof NOT_FOUND = NOT_FOUND

  private constructor(private readonly path: readonly PathSegment[]) {
    this.count = path.length
    this.names = path.map((s) => (typeof s === 'number' ? Buffer.alloc(0) : Buffer.from(s)))
    this.nameLengths = Int32Array.from(path, (s, i) =>
      typeof s === 'number' ? -1 : (this.names[i] as Buffer).length,
    )
    this.indexes = Int32Array.from(path, (s) =>
      typeof s === 'number' ? Math.min(s, MAX_INDEX) : -1,
    )
  }

  /**
   * A scanner for a simple JSONPath, or null for any other (wildcards, filters, recursive
   * descent), which jsonpath-plus evaluates on the parsed body instead.
   */
  static compile(expression: string): JsonPathScanner | null {
    const segments = simplePathSegments(expression)
    // A name with U+FFFD could equal a body name whose bytes are invalid UTF-8 (decoded to U+FFFD
    // by JSON.parse's input), and a name with a lone surrogate has no UTF-8 bytes of its own (they
    // would be U+FFFD's) while an escape in the body can spell it; bytes cannot tell, so such
    // paths are left to the parser.
    if (segments === null || segments.some((s) => typeof s === 'string' && !hasOwnBytes(s))) {
      return null
    }
    return new JsonPathScanner(segments)
  }

  /** The same selection from an already parsed body (when another matcher parsed it). */
  fromParsed(json: unknown): string | typeof NOT_FOUND {
    const value = walkSegments(json, this.path)
    return value === undefined ? NOT_FOUND : (jsonValueText(value) ?? NOT_FOUND)
  }

  scan(body: Buffer): string | typeof NOT_JSON | typeof NOT_FOUND {
    const number = numberOf(body)
    if (number === this.answeredBody) return this.answer
    const answer = this.scanBytes(body)
    this.answeredBody = number
    this.answer = answer
    return answer
  }

  private scanBytes(body: Buffer): string | typeof NOT_JSON | typeof NOT_FOUND {
    const answer = this.run(body)
    if (answer !== TOO_DEEP) return answer
    let json: unknown
    try {
      json = JSON.parse(body.toString('utf8'))
    } catch {
      return NOT_JSON
    }
    return this.fromParsed(json)
  }

  // HOT PATH: one pass over the body, no allocation but the selected value's text. One function
  // with its state in locals, and the byte at `pos` kept in `c` so that each byte is read once:
  // a read of the body is a map check, three loads and a bounds check in V8's code, more than
  // the work done with the byte.
  private run(body: Buffer): string | typeof NOT_JSON | typeof NOT_FOUND | typeof TOO_DEEP {
    const end = body.length
    const count = this.count
    // Open containers.
    let level = 0
    // Open containers on the path: levels 0 to pathLevels - 1. A container on the path is at the
    // depth of the path equal to its level, and everything inside one off the path is off it too.
    let pathLevels = 0
    // Whether the value about to be read is on the path (at depth `level`).
    let onPath = true
    // The index of the next element of the array at level pathLevels - 1, while it is innermost.
    let elementIndex = 0
    let foundStart = -1
    let foundEnd = -1
    let foundKind = 0
    // Where the selected container starts, while it is open (its end is known when it closes).
    let containerStart = -1
    // Whether the next string is a member name, which a colon and the member's value follow.
    let memberNext = false
    let pos = 0
    // The byte at `pos`, or END past the body's end.
    let c = end > 0 ? (body[0] as number) : END
    while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
    for (;;) {
      const start = pos
      if (c === QUOTE) {
        // The common string has no escapes: its plain bytes run up to its closing quote.
        pos = plainBytesEnd(body, pos + 1, end)
        c = pos < end ? (body[pos] as number) : END
        let kind = KIND_STRING
        if (c === QUOTE) {
          pos++
        } else {
          pos = escapedStringEnd(body, pos, end)
          if (pos < 0) return NOT_JSON
          kind = KIND_ESCAPED_STRING
        }
        c = pos < end ? (body[pos] as number) : END
        if (memberNext) {
          // A member name, then its colon and value.
          const nameEnd = pos - 1
          while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
          if (c !== COLON) return NOT_JSON
          c = ++pos < end ? (body[pos] as number) : END
          while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
          memberNext = false
          onPath =
            level === pathLevels &&
            level <= count &&
            this.nameEquals(body, start + 1, nameEnd, kind, level - 1)
          // A repeated name replaces the earlier member entirely: forget what was found inside it.
          if (onPath) foundStart = -1
          continue
        }
        if (onPath && level === count) {
          foundStart = start
          foundEnd = pos
          foundKind = kind
        }
      } else if (memberNext) {
        return NOT_JSON
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (level === MAX_LEVELS) return TOO_DEEP
        const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY
        closers[level] = close
        if (onPath) {
          pathLevels = level + 1
          elementIndex = 0
          if (level === count) containerStart = start
        }
        level++
        c = ++pos < end ? (body[pos] as number) : END
        while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
        // A first member or element; an empty container is closed by the loop below.
        if (c !== close) {
          if (close === CLOSE_OBJECT) {
            memberNext = true
          } else if (level === pathLevels && level <= count) {
            onPath = this.indexes[level - 1] === 0
            elementIndex = 1
          } else {
            // An array off the path: the count of the one on the path goes on after it.
            onPath = false
          }
          continue
        }
      } else {
        let kind = KIND_NUMBER
        if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
          pos = numberEnd(body, pos, end)
        } else {
          pos = literalEnd(body, pos, end, c)
          kind = KIND_LITERAL
        }
        if (pos < 0) return NOT_JSON
        if (onPath && level === count) {
          foundStart = start
          foundEnd = pos
          foundKind = kind
        }
        c = pos < end ? (body[pos] as number) : END
      }
      // After a value: a separator, the end of containers, or the end of the document.
      for (;;) {
        while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
        if (level === 0) {
          if (pos !== end) return NOT_JSON
          if (foundStart < 0) return NOT_FOUND
          return this.text(body, foundStart, foundEnd, foundKind)
        }
        const close = closers[level - 1] as number
        if (c === COMMA) {
          c = ++pos < end ? (body[pos] as number) : END
          while (isSpace(c)) c = ++pos < end ? (body[pos] as number) : END
          if (close === CLOSE_OBJECT) {
            memberNext = true
          } else if (level === pathLevels && level <= count) {
            onPath = this.indexes[level - 1] === elementIndex
            elementIndex++
          } else {
            onPath = false
          }
          break
        }
        if (c !== close) return NOT_JSON
        c = ++pos < end ? (body[pos] as number) : END
        level--
        if (level < pathLevels) {
          // The container on the path closed.
          pathLevels = level
          if (level === count) {
            foundStart = containerStart
            foundEnd = pos
            foundKind = KIND_CONTAINER
          }
          // In an array (level - 1 on the path), it was the element at that array's index
          // segment: the array's count goes on after it, whatever arrays inside it counted.
          if (level > 0) elementIndex = (this.indexes[level - 1] as number) + 1
        }
      }
    }
  }

  /** Whether the name between `start` and `end` (its quotes excluded) is segment `segment`'s. */
  private nameEquals(
    body: Buffer,
    start: number,
    end: number,
    kind: number,
    segment: number,
  ): boolean {
    const length = this.nameLengths[segment] as number
    if (length < 0) return false
    const name = this.names[segment] as Buffer
    if (kind === KIND_ESCAPED_STRING) {
      return JSON.parse(body.toString('utf8', start - 1, end + 1)) === name.toString('utf8')
    }
    // Most names of an object differ from the wanted one in length already.
    if (end - start !== length) return false
    // A byte loop: Buffer#compare with offsets validates them and crosses into C++, which costs
    // more than comparing a short name.
    for (let i = 0; i < length; i++) if (body[start + i] !== name[i]) return false
    return true
  }

  /** The selected value's text from its bytes. */
  private text(body: Buffer, start: number, end: number, kind: number): string | typeof NOT_FOUND {
    if (kind === KIND_STRING) return this.stringAt(body, start + 1, end - 1)
    const text = body.toString('utf8', start, end)
    switch (kind) {
      case KIND_LITERAL:
        return text
      case KIND_NUMBER:
        return jsonValueText(Number(text)) ?? NOT_FOUND
      default:
        return jsonValueText(JSON.parse(text)) ?? NOT_FOUND
    }
  }

  /** The text of an unescaped string's bytes; the previous one when the bytes spell it in ASCII. */
  private stringAt(body: Buffer, start: number, end: number): string {
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
}

// The helpers of the scan are constants rather than function declarations: V8 inlines both, but
// checks on each call that a declared function's binding still holds it (a declaration can be
// reassigned), a load and a comparison per byte in the loops.

/**
 * The position of the first byte from `pos` that may not stand for itself in a string (see
 * isPlainStringByte), or `end`.
 */
const plainBytesEnd = (body: Buffer, pos: number, end: number): number => {
  // Four bytes a round: V8 checks the body's map, reloads its data pointer and checks the stack
  // once per round of a loop, which costs more than the comparisons of one byte.
  while (pos + 4 <= end) {
    if (!isPlainStringByte(body[pos] as number)) return pos
    if (!isPlainStringByte(body[pos + 1] as number)) return pos + 1
    if (!isPlainStringByte(body[pos + 2] as number)) return pos + 2
    if (!isPlainStringByte(body[pos + 3] as number)) return pos + 3
    pos += 4
  }
  while (pos < end && isPlainStringByte(body[pos] as number)) pos++
  return pos
}

/**
 * Whether `c` stands for itself inside a string: anything but the quote, the backslash and the
 * control characters U+0000-U+001F, which JSON.parse refuses unescaped. Bytes of 0x80 and over
 * are plain: invalid UTF-8 becomes U+FFFD when the body is decoded, which JSON.parse accepts, and
 * the decoder never joins an ASCII byte to a multi-byte sequence, so a quote is always one.
 */
const isPlainStringByte = (c: number): boolean => {
  // Letters, the most common bytes of strings, are above the backslash: one comparison.
  return c > BACKSLASH || (c !== QUOTE && c >= 0x20 && c !== BACKSLASH)
}

/** Whether `c` is JSON whitespace. */
const isSpace = (c: number): boolean => {
  // Most bytes after a token are not whitespace: one comparison rules them out.
  return c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)
}

/**
 * The end of a string read up to `pos`, where a byte is not plain (isPlainStringByte): the
 * position after its closing quote, or -1 when the string is not valid. Escapes are the uncommon
 * case, kept out of the main loop.
 */
const escapedStringEnd = (body: Buffer, pos: number, end: number): number => {
  while (pos < end) {
    const c = body[pos] as number
    if (isPlainStringByte(c)) {
      // A byte loop here: the runs between escapes are short.
      pos++
      continue
    }
    if (c === QUOTE) return pos + 1
    // A control character.
    if (c !== BACKSLASH || pos + 1 >= end) return -1
    const e = body[pos + 1] as number
    if (e === 0x75) {
      // \uXXXX: four hex digits
      if (pos + 6 > end) return -1
      for (let i = 2; i < 6; i++) if (!isHex(body[pos + i] as number)) return -1
      pos += 6
    } else if (
      e === QUOTE ||
      e === BACKSLASH ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      pos += 2
    } else {
      return -1
    }
  }
  return -1
}

/**
 * The end of `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` from `pos`, or -1 when the bytes
 * there are not a number.
 */
const numberEnd = (body: Buffer, pos: number, end: number): number => {
  // Reads of the body rather than a byte carried along in a variable: V8 makes faster code of
  // these short loops so.
  if (body[pos] === MINUS) pos++
  if (pos >= end) return -1
  if (body[pos] === DIGIT_0) {
    pos++
  } else {
    if (!isDigit(body[pos] as number)) return -1
    pos = digitsEnd(body, pos + 1, end)
  }
  if (pos < end && body[pos] === 0x2e) {
    // a fraction
    pos++
    if (pos >= end || !isDigit(body[pos] as number)) return -1
    pos = digitsEnd(body, pos + 1, end)
  }
  if (pos < end && (body[pos] === 0x65 || body[pos] === 0x45)) {
    // an exponent
    pos++
    if (pos < end && (body[pos] === 0x2b || body[pos] === MINUS)) pos++
    if (pos >= end || !isDigit(body[pos] as number)) return -1
    pos = digitsEnd(body, pos + 1, end)
  }
  return pos
}

const digitsEnd = (body: Buffer, pos: number, end: number): number => {
  while (pos < end && isDigit(body[pos] as number)) pos++
  return pos
}

/** The end of `true`, `false` or `null` at `pos`, or -1 when none is there. */
const literalEnd = (body: Buffer, pos: number, end: number, c: number): number => {
  const literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : null
  if (literal === null || pos + literal.length > end) return -1
  for (let i = 1; i < literal.length; i++) if (body[pos + i] !== literal.charCodeAt(i)) return -1
  return pos + literal.length
}

const isDigit = (c: number): boolean => {
  return c >= DIGIT_0 && c <= DIGIT_9
}

const isHex = (c: number): boolean => {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}
