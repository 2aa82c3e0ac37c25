import { utf8Error } from '../../src/dsl/index.js'
import { createError } from '../../src/errors/index.js'
import type { ImportContext, ImportInput } from '../types.js'

/**
 * Bytes to text for importers. Exports from Windows tools start with a byte order mark (Fiddler,
 * some Postman versions), and a few write UTF-16: decode those instead of failing on `\uFEFF`.
 */

const utf8 = new TextDecoder('utf-8')
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Decodes a file's bytes as text: UTF-8 by default, UTF-16 when a UTF-16 byte order mark says so;
 * the byte order mark itself is dropped.
 *
 * @example
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])) // '{}'
 */
export function decodeText(bytes: Uint8Array): string {
  const utf16 = utf16Encoding(bytes)
  if (utf16 !== null) return new TextDecoder(utf16).decode(bytes.subarray(2))
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return utf8.decode(start === 0 ? bytes : bytes.subarray(start))
}

/** The UTF-16 encoding a byte order mark at the start of `bytes` names, or null. */
function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  return null
}

/**
 * A DSL file's text, as decodeText reads it, but refused when it has no UTF-16 byte order mark and
 * is not UTF-8: served with U+FFFD in place of its bytes, a Latin-1 file would answer other text
 * than its author wrote (`understudy run --mock` refuses it the same way).
 *
 * @example
 * dslText(new Uint8Array([0x7b, 0x7d]), 'mock.json') // '{}'
 */
export function dslText(bytes: Uint8Array, fileName: string): string {
  if (utf16Encoding(bytes) === null) {
    const notUtf8 = utf8Error(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      fileName,
    )
    if (notUtf8 !== null) throw notUtf8
  }
  return decodeText(bytes)
}

/**
 * The bytes as UTF-8 text, or undefined when they are not valid UTF-8 (a binary body).
 *
 * @example
 * utf8Text(new Uint8Array([0xff])) // undefined
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * True when the text is made of printable characters, tabs and line breaks only: used to tell a
 * base64-encoded text from base64-encoded binary.
 *
 * @example
 * isPrintable('a\tb\n') // true
 */
export function isPrintable(text: string): boolean {
  // C0 controls other than \t \n \r, DEL, and the C1 controls.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c <= 0x9f)) return false
  }
  return true
}

/** Largest input accepted when the context sets no limit: 100 MiB (importers/types.ts). */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024

/**
 * Throws ERR_IMPORT_TOO_LARGE when the input is larger than `ctx.maxBytes` (default 100 MiB),
 * before any parsing spends memory on it.
 *
 * @example
 * checkSize({ bytes: new Uint8Array(10), fileName: 'a.har' }, { maxBytes: 5 }) // throws ERR_IMPORT_TOO_LARGE
 */
export function checkSize(input: ImportInput, ctx: ImportContext = {}): void {
  const max = ctx.maxBytes ?? DEFAULT_MAX_BYTES
  if (input.bytes.byteLength > max) throw tooLarge(input.fileName, max)
}

/**
 * ERR_IMPORT_TOO_LARGE for `what`, its limit said in MiB as people think of file sizes (in bytes
 * below 0.01 MiB).
 *
 * @example
 * tooLarge('big.har', 100 * 1024 * 1024).message // 'File big.har is larger than the limit of 100 MiB'
 */
export function tooLarge(what: string, maxBytes: number) {
  const mib = Math.round((maxBytes / (1024 * 1024)) * 100) / 100
  return createError('ERR_IMPORT_TOO_LARGE', [
    what,
    mib >= 0.01 ? `${mib} MiB` : `${maxBytes} bytes`,
  ])
}
