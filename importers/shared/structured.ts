import { parseText, type ParsedText } from '../../src/dsl/index.js'
import { isUnderstudyError } from '../../src/errors/index.js'
import type { ImportInput } from '../types.js'
import { importInvalid } from './errors.js'
import { decodeText } from './text.js'

// Detection parses a file to look at its shape; the importer it dispatches to reads the same
// bytes again. Keyed by the byte array, so the cache lives exactly as long as the input.
const cache = new WeakMap<Uint8Array, ParsedText>()

/** What `parseStructured` may be told beyond the input. */
interface ParseOptions {
  /** What the file should have been, for the message: 'JSON' for a HAR; default by file name. */
  what?: string
  /** The input's text, when the caller has already decoded it (saves a second decode). */
  text?: string
}

/**
 * Parses a JSON or YAML input (BOM and UTF-16 tolerated), once per byte array, into a value and a
 * locator from JSON pointers back to line:column. It reuses the DSL parser, so JSON is read by the
 * fast `JSON.parse` and positions are computed only when an error needs one. A syntax error
 * becomes ERR_IMPORT_INVALID naming the file, line and column, never a raw SyntaxError.
 *
 * @example
 * parseStructured({ bytes: Buffer.from('{"a":1}'), fileName: 'a.json' }).value // { a: 1 }
 * parseStructured({ bytes: Buffer.from('{"log": '), fileName: 'broken.har' }, { what: 'JSON' })
 * // throws ERR_IMPORT_INVALID: Cannot import broken.har: not valid JSON: ... (line 1, column 9)
 */
export function parseStructured(input: ImportInput, options: ParseOptions = {}): ParsedText {
  const cached = cache.get(input.bytes)
  if (cached !== undefined) return cached
  let parsed: ParsedText
  try {
    parsed = parseText(options.text ?? decodeText(input.bytes), input.fileName)
  } catch (err) {
    if (!isUnderstudyError(err, 'ERR_DSL_PARSE')) throw err
    const detail = err.details?.[0]
    const what = options.what ?? 'JSON or YAML'
    const reason = detail?.message ?? err.message
    throw importInvalid(
      input.fileName,
      `not valid ${what}: ${reason}`,
      detail === undefined ? [] : [{ ...detail, file: input.fileName }],
      err,
    )
  }
  cache.set(input.bytes, parsed)
  return parsed
}

/**
 * Forgets the parsed value of an input, for an importer that reads it once and drops its parts as
 * it goes: otherwise the whole value (and the text its locator keeps) lives as long as the bytes.
 *
 * @example
 * const { value } = parseStructured(input); forgetStructured(input.bytes)
 */
export function forgetStructured(bytes: Uint8Array): void {
  cache.delete(bytes)
}

/** A plain object (not an array, not null). */
export type Loose = Record<string, unknown>

/**
 * True for a plain JSON object.
 *
 * @example
 * isObject({}) // true; isObject([]) // false
 */
export function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The string value, or undefined for anything else.
 *
 * @example
 * str(1) // undefined
 */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}
