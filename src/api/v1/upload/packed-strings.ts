/*
 * Many strings in byte buffers: a worker thread hands tens of thousands of them to the event loop
 * as transferred ArrayBuffers, which cost nothing to receive, where a structured clone of as many
 * strings would block the loop while it is copied in. The writer packs each string as it
 * comes, so that the producer can drop it (and what it was made from) at once.
 */

/** A packed null: a length no string of a buffer below 4 GiB can have. */
const NULL_LENGTH = 0xffffffff

/** The size of a chunk of packed strings (a longer string gets a chunk of its own size). */
const CHUNK_BYTES = 8 * 1024 * 1024

/**
 * Packs strings (or nulls), each as its UTF-8 byte length (uint32, little-endian) and bytes, into
 * chunks of about 8 MiB; a string never straddles two chunks.
 *
 * @example
 * const w = new PackedWriter(); w.add('a'); w.add(null); const chunks = w.done()
 * new PackedReader(chunks).next() // 'a'
 */
export class PackedWriter {
  readonly #chunks: Buffer[] = []
  #chunk: Buffer = Buffer.alloc(0)
  #at = 0

  add(value: string | null): void {
    if (value === null) {
      this.#room(4)
      this.#chunk.writeUInt32LE(NULL_LENGTH, this.#at)
      this.#at += 4
      return
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit: when that fits, no separate measuring pass
    if (this.#chunk.length - this.#at - 4 < value.length * 3) {
      this.#room(4 + Buffer.byteLength(value))
    }
    const written = this.#chunk.write(value, this.#at + 4)
    this.#chunk.writeUInt32LE(written, this.#at)
    this.#at += 4 + written
  }

  /** The chunks, each a buffer of its own (never Node's shared pool), so that it can be transferred. */
  done(): Buffer[] {
    this.#close()
    return this.#chunks
  }

  /** Makes sure `bytes` fit in the current chunk, starting a new one when not. */
  #room(bytes: number): void {
    if (this.#chunk.length - this.#at >= bytes) return
    this.#close()
    this.#chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes))
    this.#at = 0
  }

  /** Keeps the filled part of the current chunk (copied into a buffer of its exact size when small). */
  #close(): void {
    if (this.#at === 0) return
    if (this.#at === this.#chunk.length) {
      this.#chunks.push(this.#chunk)
    } else {
      const exact = Buffer.allocUnsafeSlow(this.#at)
      this.#chunk.copy(exact, 0, 0, this.#at)
      this.#chunks.push(exact)
    }
    this.#chunk = Buffer.alloc(0)
    this.#at = 0
  }
}

/**
 * Packs strings (or nulls) at once: `PackedWriter` for a list in hand.
 *
 * @example
 * new PackedReader(packStrings(['a', null, 'é'])).next() // 'a'
 */
export function packStrings(values: ReadonlyArray<string | null>): Buffer[] {
  const writer = new PackedWriter()
  for (const v of values) writer.add(v)
  return writer.done()
}

/** Reads packed strings back, in order, across the chunks. */
export class PackedReader {
  readonly #chunks: Buffer[]
  #index = 0
  #at = 0

  constructor(chunks: readonly Uint8Array[]) {
    this.#chunks = chunks.map((bytes) =>
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    )
  }

  /** The next string (null for a packed null); throws past the end. */
  next(): string | null {
    return this.bytes()?.toString('utf8') ?? null
  }

  /** The next string's UTF-8 bytes, a view into the packed chunk, not a copy (null for a packed null). */
  bytes(): Buffer | null {
    let chunk = this.#chunks[this.#index]
    if (chunk !== undefined && this.#at >= chunk.length) {
      chunk = this.#chunks[++this.#index]
      this.#at = 0
    }
    if (chunk === undefined) throw new RangeError('read past the end of the packed strings')
    const length = chunk.readUInt32LE(this.#at)
    this.#at += 4
    if (length === NULL_LENGTH) return null
    const value = chunk.subarray(this.#at, this.#at + length)
    this.#at += length
    return value
  }

  /** The next string, which must not be a packed null. */
  text(): string {
    return this.next() ?? ''
  }
}
