import { isUtf8 } from 'node:buffer'
import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'
import type { Document } from 'yaml'
import { createError } from '../errors/index.js'
import { MAX_DEFINITION_DEPTH } from './depth.js'
import { jsonValueOffset, positionAt } from './json-locate.js'
import { elementText, locateArraySteps } from './array-layout.js'
import { transactionCountError } from './transaction-limit.js'

type YamlModule = typeof Yaml
let yamlModule: YamlModule | null = null

/** yaml (CommonJS), loaded for the first YAML text or error position: JSON input never needs it. */
function yaml(): YamlModule {
  yamlModule ??= createRequire(import.meta.url)('yaml') as YamlModule
  return yamlModule
}

/** A position in a source text, 1-based. */
export interface SourcePosition {
  line: number
  column: number
}

/** Parsed text, and a way back from a JSON pointer to where it was written. */
export interface ParsedText {
  value: unknown
  /** Line and column of the value at `pointer`, when the text is available. */
  locate: (pointer: string) => SourcePosition | undefined
}

const BOM = '\uFEFF'

/**
 * How far YAML aliases (`*name`) may expand: for each anchor, its uses times the aliases nested in
 * it (the yaml package's `maxAliasCount`). Nine nested anchors of ten aliases each (a "billion
 * laughs") would otherwise expand to a billion values; real files use a handful. docs/limits.md.
 */
const MAX_YAML_ALIASES = 1000

/** Splits a JSON pointer (`/a/0/b~1c`) into its unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** Appends a segment to a JSON pointer, escaping it. */
export function joinPointer(pointer: string, segment: string | number): string {
  return `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`
}

/** True when a file name or content looks like YAML rather than JSON. */
function looksLikeYaml(text: string, fileName: string): boolean {
  if (/\.ya?ml$/i.test(fileName)) return true
  if (/\.json$/i.test(fileName)) return false
  const first = text.trimStart()[0]
  return first !== '{' && first !== '['
}

/**
 * Parses a JSON or YAML definition. JSON goes through the fast `JSON.parse`; positions are found
 * only when an error needs them, by one iterative scan of the text (json-locate.ts). Throws
 * ERR_DSL_PARSE naming the file, line and column.
 *
 * @example
 * parseText('{"a": 1}', 'mock.json').value // { a: 1 }
 */
export function parseText(input: string, fileName: string): ParsedText {
  const text = input.startsWith(BOM) ? input.slice(1) : input
  if (!looksLikeYaml(text, fileName)) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      throw jsonParseError(err, text, fileName)
    }
    return { value, locate: (pointer) => jsonLocate(text, pointer) }
  }
  const lineCounter = new (yaml().LineCounter)()
  const doc = yaml().parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false })
  const first = doc.errors[0]
  if (first !== undefined) {
    const pos = lineCounter.linePos(first.pos[0])
    const said = first.message.split('\n')[0] ?? 'invalid YAML'
    // The parser is recursive: a text nested thousands deep reports the stack overflow it caught.
    const message = /call stack/i.test(said)
      ? `nests too deeply to read (definitions may nest ${MAX_DEFINITION_DEPTH} levels)`
      : said
    throw createError('ERR_DSL_PARSE', [fileName, message], {
      details: [{ path: '', message, file: fileName, line: pos.line, column: pos.col }],
    })
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES })
  } catch (err) {
    // yaml throws a bare ReferenceError ("Excessive alias count ...") when the count is passed.
    if (!(err instanceof ReferenceError) || !/alias/i.test(err.message)) throw err
    const message = `expands YAML aliases (*name) past the limit of ${MAX_YAML_ALIASES} (uses of an anchor times the aliases inside it), which guards against alias bombs`
    throw createError('ERR_DSL_PARSE', [fileName, message], {
      details: [{ path: '', message, file: fileName }],
    })
  }
  return { value, locate: locatorOf(doc, lineCounter) }
}

/**
 * parseText for a file's bytes (`run --mock`): the text is decoded for the parser and dropped with
 * it, so that no second full copy of the file (15 MB at 100,000 transactions) lives while the
 * document is validated and compiled; positions for error messages decode the bytes again, only
 * when asked. A byte order mark is skipped. Bytes that are not UTF-8 are refused with
 * ERR_DSL_PARSE naming the first bad byte's line and column (utf8Error), where decoding would
 * have replaced them with U+FFFD silently.
 *
 * @example
 * parseBytes(Buffer.from('{"a": 1}'), 'mock.json').value // { a: 1 }
 */
export function parseBytes(bytes: Buffer, fileName: string): ParsedText {
  const notUtf8 = utf8Error(bytes, fileName)
  if (notUtf8 !== null) throw notUtf8
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  // A YAML document keeps its own source positions: nothing to save by dropping the text.
  if (looksLikeYaml(firstCharacter(bytes, start), fileName)) {
    return parseText(bytes.toString('utf8', start), fileName)
  }
  let value: unknown
  {
    const text = bytes.toString('utf8', start)
    try {
      value = JSON.parse(text)
    } catch (err) {
      throw jsonParseError(err, text, fileName)
    }
  }
  // Decoded again only when an error asks where something is.
  let decoded: string | null = null
  return {
    value,
    locate: (pointer) => {
      decoded ??= bytes.toString('utf8', start)
      return jsonLocate(decoded, pointer)
    },
  }
}

/** The first character of `bytes` from `start` that is not JSON whitespace ('' when none). */
function firstCharacter(bytes: Buffer, start: number): string {
  let i = start
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)
  ) {
    i++
  }
  return i < bytes.length ? String.fromCharCode(bytes[i] ?? 0) : ''
}

/**
 * ERR_DSL_PARSE for bytes that are not UTF-8 text, naming the first bad byte's line and column
 * (1-based, the column counted in bytes); null for UTF-8 text.
 *
 * @example
 * utf8Error(Buffer.from([0x7b, 0xff, 0x7d]), 'mock.json')?.message // 'Cannot parse mock.json: is not UTF-8 text: byte 0xFF at line 1, column 2 ...'
 */
export function utf8Error(bytes: Buffer, fileName: string) {
  if (isUtf8(bytes)) return null
  const offset = firstInvalidUtf8(bytes)
  const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1
  let line = 1
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++
  const column = offset - lineStart + 1
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0')
  const message = `is not UTF-8 text: byte 0x${byte} at line ${line}, column ${column} cannot start or continue a character; save the file as UTF-8`
  return createError('ERR_DSL_PARSE', [fileName, message], {
    details: [{ path: '', message, file: fileName, line, column }],
  })
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0
    if (lead < 0x80) {
      i++
      continue
    }
    // Continuation bytes after the lead, and the range of the first of them (no overlong forms,
    // no surrogates, nothing past U+10FFFF).
    let count: number
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) count = 1
    else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2
      if (lead === 0xe0) low = 0xa0
      if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3
      if (lead === 0xf0) low = 0x90
      if (lead === 0xf4) high = 0x8f
    } else return i
    for (let k = 1; k <= count; k++) {
      const next = bytes[i + k]
      if (next === undefined) return i
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf]
      if (next < min || next > max) return i
    }
    i += count + 1
  }
  return bytes.length
}

/**
 * parseText for a large JSON document read while serving (`PUT /config`): the elements of its
 * `transactions` (or of a bare array) are found by one scan of the bytes (array-layout.ts) and
 * parsed one at a time, `pause` (a time slicer) awaited between them, instead of one JSON.parse
 * of the whole text holding the event loop (about 2 s for 250,000 transactions). The value is
 * the one JSON.parse gives; a document past MAX_TRANSACTIONS is refused before any element is
 * parsed. A document the scan cannot lay out (another shape, a syntax error) is parsed whole, for
 * the usual value or message. Positions for error messages decode the text only when asked.
 *
 * @example
 * const parsed = await parseJsonSliced(body, 'config.json', timeSlicer())
 */
export async function parseJsonSliced(
  bytes: Buffer,
  fileName: string,
  pause: () => Promise<void>,
): Promise<ParsedText> {
  let text: string | null = null
  const whole = (): string => {
    text ??= bytes.toString('utf8').replace(/^\uFEFF/, '')
    return text
  }
  const value = await elementwise(bytes, pause)
  if (value === undefined) return parseText(whole(), fileName)
  return { value: value.parsed, locate: (pointer) => jsonLocate(whole(), pointer) }
}

const BARE_ARRAY_OPEN = Buffer.from('{"transactions":')
const BARE_ARRAY_CLOSE = Buffer.from('}')

/** The value of `bytes` parsed an element at a time, or undefined when the scan cannot lay it out. */
async function elementwise(
  bytes: Buffer,
  pause: () => Promise<void>,
): Promise<{ parsed: unknown } | undefined> {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let first = start
  while (
    first < bytes.length &&
    (bytes[first] === 0x20 ||
      bytes[first] === 0x0a ||
      bytes[first] === 0x0d ||
      bytes[first] === 0x09)
  ) {
    first++
  }
  // A bare array is laid out as the `transactions` of an object around it.
  const bare = bytes[first] === 0x5b
  const framed = bare
    ? Buffer.concat([BARE_ARRAY_OPEN, bytes.subarray(start), BARE_ARRAY_CLOSE])
    : bytes
  const scan = locateArraySteps(framed, ['transactions'])
  let step = scan.next()
  while (step.done !== true) {
    await pause()
    step = scan.next()
  }
  const layout = step.value
  if (layout === null) return undefined
  const count = layout.bounds.length / 2
  const tooMany = transactionCountError(count, bare ? '' : '/transactions')
  if (tooMany !== null) throw tooMany
  await pause()
  const transactions: unknown[] = []
  let skeleton: Record<string, unknown>
  try {
    skeleton = JSON.parse(layout.skeleton) as Record<string, unknown>
    for (let i = 0; i < count; i++) {
      transactions.push(JSON.parse(elementText(framed, layout.bounds, i)))
      await pause()
    }
  } catch {
    return undefined
  }
  if (bare) return { parsed: transactions }
  skeleton['transactions'] = transactions
  return { parsed: skeleton }
}

/** Where the value at `pointer` (or its deepest existing ancestor) is written in JSON text. */
function jsonLocate(text: string, pointer: string): SourcePosition | undefined {
  const offset = jsonValueOffset(text, pointerSegments(pointer))
  return offset === undefined ? undefined : positionAt(text, offset)
}

function locatorOf(
  doc: Document,
  lineCounter: InstanceType<YamlModule['LineCounter']>,
): (pointer: string) => SourcePosition | undefined {
  return (pointer) => {
    const segments: unknown[] = pointerSegments(pointer).map((s) =>
      /^\d+$/.test(s) ? Number(s) : s,
    )
    // Walk up until a node exists: an error about a missing member points at its parent.
    for (let n = segments.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(segments.slice(0, n), true)
      if (yaml().isNode(node) && node.range !== undefined && node.range !== null) {
        const pos = lineCounter.linePos(node.range[0])
        return { line: pos.line, column: pos.col }
      }
    }
    return undefined
  }
}

function jsonParseError(err: unknown, text: string, fileName: string) {
  const message = err instanceof Error ? err.message : String(err)
  const match = /position (\d+)/.exec(message)
  let line: number | undefined
  let column: number | undefined
  // Node 20's V8 names no position for an unexpected token (`{"a": }`, `[1,]`): find it ourselves.
  const offset =
    match?.[1] !== undefined
      ? Number(match[1])
      : (jsonErrorOffset(text) ??
        (/Unexpected end of JSON input/.test(message) ? text.length : undefined))
  if (offset !== undefined) {
    const before = text.slice(0, offset)
    line = before.split('\n').length
    column = offset - before.lastIndexOf('\n')
  }
  const detail = {
    path: '',
    message: message.replace(/ in JSON at position \d+.*$/, ''),
    file: fileName,
  }
  return createError(
    'ERR_DSL_PARSE',
    [
      fileName,
      line === undefined ? message : `${detail.message} (line ${line}, column ${column ?? 0})`,
    ],
    {
      details: [line === undefined ? detail : { ...detail, line, column: column ?? 0 }],
    },
  )
}

const JSON_SCALAR =
  /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|"(?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y

/**
 * Offset of the first JSON syntax error in `text` (its end when the input stops short). Runs only
 * after JSON.parse has failed, whose message names control characters in strings itself; undefined
 * if the text nests too deeply to scan.
 */
function jsonErrorOffset(text: string): number | undefined {
  let i = 0
  const skip = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++
  }
  const scalar = (): boolean => {
    JSON_SCALAR.lastIndex = i
    const found = JSON_SCALAR.exec(text)
    if (found === null) return false
    i += found[0].length
    return true
  }
  const value = (): boolean => {
    skip()
    const open = text.charAt(i)
    if (open !== '{' && open !== '[') return scalar()
    const close = open === '{' ? '}' : ']'
    i++
    skip()
    if (text.charAt(i) === close) {
      i++
      return true
    }
    for (;;) {
      if (open === '{') {
        skip()
        if (text.charAt(i) !== '"' || !scalar()) return false
        skip()
        if (text.charAt(i) !== ':') return false
        i++
      }
      if (!value()) return false
      skip()
      const next = text.charAt(i)
      i++
      if (next === close) return true
      if (next !== ',') {
        i--
        return false
      }
    }
  }
  try {
    if (value()) skip()
  } catch {
    return undefined
  }
  return i
}
