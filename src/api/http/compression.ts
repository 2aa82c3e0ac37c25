import type { IncomingMessage, ServerResponse } from 'node:http'
import { promisify } from 'node:util'
import { constants, createGzip, gzip } from 'node:zlib'

/*
 * JSON answers of the control plane compressed for clients that accept gzip (the dashboard, curl
 * --compressed, most HTTP clients): a 10,000-transaction export or list is mostly repeated keys.
 * Small answers go as they are (gzip's header and the CPU are not worth it under 1 KiB).
 * Compression runs in libuv's thread pool (zlib's async API), never on the event loop.
 */

const gzipAsync = promisify(gzip)
/** Answers smaller than this are sent as they are. */
const COMPRESS_MIN_BYTES = 1024
// Level 4: most of the saving at a fraction of the default level's CPU on JSON.
const LEVEL = 4

/** Whether `Accept-Encoding` takes gzip (a `q=0` refuses it; `*` accepts it). */
function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding']
  if (header === undefined || header === '') return false
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    if (name !== 'gzip' && name !== '*') continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  }
  return false
}

/** Writes a JSON body, gzipped when the client takes it and it is worth it. */
export async function writeJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: Buffer,
  headers: Record<string, string>,
): Promise<void> {
  if (text.length < COMPRESS_MIN_BYTES || !acceptsGzip(req)) {
    res.writeHead(status, { ...headers, vary: 'accept-encoding', 'content-length': text.length })
    res.end(text)
    return
  }
  const zipped = await gzipAsync(text, { level: LEVEL })
  res.writeHead(status, {
    ...headers,
    vary: 'accept-encoding',
    'content-encoding': 'gzip',
    'content-length': zipped.length,
  })
  res.end(zipped)
}

/**
 * A stream to write a large answer's pieces into: the response itself, or a gzip stream piped into
 * it (then without a content-length, chunked). `end()` finishes either.
 */
export function bodyStream(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  length: number,
  headers: Record<string, string>,
): NodeJS.WritableStream & { write: (chunk: Buffer) => boolean; end: () => unknown } {
  if (length < COMPRESS_MIN_BYTES || !acceptsGzip(req)) {
    res.writeHead(status, { ...headers, vary: 'accept-encoding', 'content-length': length })
    return res
  }
  res.writeHead(status, { ...headers, vary: 'accept-encoding', 'content-encoding': 'gzip' })
  const zip = createGzip({ level: LEVEL, flush: constants.Z_NO_FLUSH })
  zip.pipe(res)
  res.once('close', () => zip.destroy())
  return zip
}
