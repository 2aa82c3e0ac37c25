/** A BLOB/bytea value as either driver hands it back (a Buffer, or a Uint8Array), as a Buffer without a copy. */
export function bytesOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) {
    return value
  }
  if (value instanceof Uint8Array) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  }
  return Buffer.from(String(value))
}
