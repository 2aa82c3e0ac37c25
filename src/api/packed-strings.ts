/*
 * Many strings in one byte buffer: a worker thread hands tens of thousands of them to the event
 * loop as one transferred ArrayBuffer, which costs nothing to receive, where a structured clone
 * of as many strings would block the loop while it is copied in (issue 8).
 */

/** A packed null: a length no string of a buffer below 4 GiB can have. */
const NULL_LENGTH = 0xffffffff

/**
 * Packs strings (or nulls), each as its UTF-8 byte length (uint32, little-endian) and bytes.
 *
 * @example
 * const packed = packStrings(['a', null, 'é']); new PackedReader(packed).next() // 'a'
 */
export function packStrings (values: ReadonlyArray<string | null>): Buffer {
  let size = 0
  for (const v of values) size += 4 + (v === null ? 0 : Buffer.byteLength(v))
  // allocUnsafeSlow: a buffer of its own (never the shared pool), so that it can be transferred
  const out = Buffer.allocUnsafeSlow(size)
  let at = 0
  for (const v of values) {
    if (v === null) {
      out.writeUInt32LE(NULL_LENGTH, at)
      at += 4
      continue
    }
    const written = out.write(v, at + 4)
    out.writeUInt32LE(written, at)
    at += 4 + written
  }
  return out
}

/** Reads packed strings back, in order. */
export class PackedReader {
  readonly #bytes: Buffer
  #at = 0

  constructor (bytes: Uint8Array) {
    this.#bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  /** The next string (null for a packed null); throws past the end. */
  next (): string | null {
    const length = this.#bytes.readUInt32LE(this.#at)
    this.#at += 4
    if (length === NULL_LENGTH) return null
    const value = this.#bytes.toString('utf8', this.#at, this.#at + length)
    this.#at += length
    return value
  }

  /** The next string, which must not be a packed null. */
  text (): string {
    return this.next() ?? ''
  }
}
