import { createError } from '../../src/errors/index.js'
import type { ImportContext, ImportInput } from '../types.js'

/** Largest input accepted when the context sets no limit: 100 MiB (importers/types.ts). */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024

/**
 * Turns a file's bytes into text. A UTF-8 byte-order mark is dropped (Fiddler and Chrome write
 * one), and UTF-16 files, marked by their own BOM, are decoded as such. Bytes that are not valid
 * UTF-8 become U+FFFD rather than an error: the parser that runs next reports any damage with a
 * position, which is more useful than a decoder failure with none.
 *
 * @example
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])) // '{}'
 */
export function decodeText (bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  // TextDecoder drops a leading UTF-8 BOM by default (ignoreBOM: false).
  return new TextDecoder('utf-8').decode(bytes)
}

/**
 * Throws ERR_IMPORT_TOO_LARGE when the input is larger than `ctx.maxBytes` (default 100 MiB),
 * before any parsing spends memory on it.
 *
 * @example
 * checkSize({ bytes: new Uint8Array(10), fileName: 'a.har' }, { maxBytes: 5 }) // throws ERR_IMPORT_TOO_LARGE
 */
export function checkSize (input: ImportInput, ctx: ImportContext = {}): void {
  const max = ctx.maxBytes ?? DEFAULT_MAX_BYTES
  if (input.bytes.byteLength > max) throw createError('ERR_IMPORT_TOO_LARGE', [input.fileName, max])
}
