import type { IncomingMessage } from 'node:http'
import { createError } from '../errors/index.js'

/**
 * Reads a whole request body, refusing with 413 ERR_API_PAYLOAD_TOO_LARGE past `limit` bytes,
 * whether the client announced the size (refused before reading) or not (refused at the chunk that
 * crosses it). Either way the rest of the body is drained (`resume`), so that the connection can
 * carry the 413 and stay usable instead of stalling with a full socket buffer.
 *
 * @example
 * const bytes = await readBodyWithin(req, 1 << 20)
 */
export async function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) {
    req.resume()
    throw createError('ERR_API_PAYLOAD_TOO_LARGE', [limit])
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) {
      req.resume()
      throw createError('ERR_API_PAYLOAD_TOO_LARGE', [limit])
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
