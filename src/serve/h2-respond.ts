import type { OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2'
import { httpDate } from './http-date.js'

/** The part of an HTTP/2 compatibility response this module uses: its stream. */
export interface StreamOfResponse {
  readonly stream?: ServerHttp2Stream | undefined
}

/**
 * Answers an HTTP/2 request with a prebuilt response directly on its stream, and returns false
 * (having done nothing) when the compatibility API must answer instead: a HEAD request (the
 * compatibility response tracks it to close itself), or a stream already gone.
 *
 * Why not `res.writeHead` + `res.end`: the compatibility response validates and copies every
 * header into an object of its own, then responds asking for trailers, so that every answer costs
 * a `wantTrailers` event and a call to send none. A compiled response's headers were validated
 * when compiled (compile-mock.ts) and it has no trailers. The compatibility response still closes
 * itself (`finish`, `close`) when the stream closes.
 *
 * `headers` is flat `[name, value, ...]` with lower-case names and no connection-specific header
 * (a compiled response's `headers2`); a name given twice is sent twice.
 *
 * @example
 * respondOnStream(res, 'GET', 200, ['content-type', 'application/json'], body) // true
 */
export function respondOnStream(
  res: StreamOfResponse,
  method: string | undefined,
  status: number,
  headers: readonly string[],
  body: Buffer,
): boolean {
  const stream = res.stream
  if (stream === undefined || method === 'HEAD' || stream.destroyed || stream.closed) return false
  // Given here, Node's own `date` is not added to the copy it makes of these headers: adding it
  // missed V8's inline cache on every answer in this process.
  const out: OutgoingHttpHeaders = { ':status': status, date: httpDate() }
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] as string
    const value = headers[i + 1] as string
    const seen = out[name]
    out[name] =
      seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [String(seen), value]
  }
  // No DATA frame after these: `respond` ends the stream itself, and writing would be an error.
  const bodyless = body.length === 0 || status === 204 || status === 205 || status === 304
  // Trailers as the compatibility response asks for them (its listener sends none): without, the
  // stream can close before the body's write completes, and Node then makes an
  // ERR_STREAM_DESTROYED, stack trace and all, for every answer.
  stream.respond(out, { endStream: bodyless, waitForTrailers: true })
  if (!bodyless) stream.end(body)
  return true
}
