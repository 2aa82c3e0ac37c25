import { parseText, type ParsedText } from '../../src/dsl/index.js'
import { isUnderstudyError } from '../../src/errors/index.js'
import { createError } from '../../src/errors/index.js'
import type { ImportInput } from '../types.js'
import { decodeText } from './text.js'

// Detection parses a file to look at its shape; the importer it dispatches to reads the same
// bytes again. Keyed by the byte array, so the cache lives exactly as long as the input.
const cache = new WeakMap<Uint8Array, ParsedText>()

/**
 * Parses a JSON or YAML input (BOM and UTF-16 tolerated), once per byte array. Throws
 * ERR_IMPORT_INVALID naming the file, the line and column and the parser's reason.
 *
 * @example
 * parseStructured({ bytes: Buffer.from('{"a":1}'), fileName: 'a.json' }).value // { a: 1 }
 */
export function parseStructured (input: ImportInput): ParsedText {
  const cached = cache.get(input.bytes)
  if (cached !== undefined) return cached
  let parsed: ParsedText
  try {
    parsed = parseText(decodeText(input.bytes), input.fileName)
  } catch (err) {
    if (!isUnderstudyError(err)) throw err
    const detail = err.details?.[0]
    const kind = /\.ya?ml$/i.test(input.fileName) ? 'YAML' : 'JSON or YAML'
    const reason = detail?.message ?? err.message
    const at = detail?.line === undefined ? '' : ` at line ${detail.line} column ${detail.column ?? 0}`
    throw createError('ERR_IMPORT_INVALID', [input.fileName, `expected ${kind}${at}: ${reason}`], {
      cause: err,
      details: err.details ?? [],
    })
  }
  cache.set(input.bytes, parsed)
  return parsed
}

/** A plain object (not an array, not null). */
export type Loose = Record<string, unknown>

/**
 * True for a plain JSON object.
 *
 * @example
 * isObject({}) // true; isObject([]) // false
 */
export function isObject (v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The string value, or undefined for anything else.
 *
 * @example
 * str(1) // undefined
 */
export function str (v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}
