import type { IncomingMessage, ServerResponse } from 'node:http'
import { createError } from '../errors/index.js'
import { readBodyWithin } from '../net/index.js'

/** The content type of every JSON answer of the product's APIs. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** What writeJson needs of a response: HTTP/1.1 and HTTP/2 compatibility responses both have it. */
interface JsonResponse {
  writeHead: (status: number, headers: Record<string, string | number>) => unknown
  end: (body: Buffer) => unknown
}

/**
 * A JSON answer with its length. `headers` add to (or, for `content-type`, replace) the defaults.
 *
 * @example
 * writeJson(res, 404, v1Envelope(error, null, requestId), { allow: 'GET' })
 */
export function writeJson(
  res: JsonResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = Buffer.from(JSON.stringify(body))
  res.writeHead(status, { 'content-type': JSON_TYPE, ...headers, 'content-length': text.length })
  res.end(text)
}

/** The media type of a request, lowercase, without parameters ('' when absent). */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

/** True for application/json and any `+json` type. */
function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json')
}

/**
 * The body as JSON. An empty body is refused like a malformed one: every JSON endpoint needs one.
 * Errors: 415 ERR_API_UNSUPPORTED_MEDIA_TYPE, 413 ERR_API_PAYLOAD_TOO_LARGE, 400 ERR_API_BAD_REQUEST.
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = mediaTypeOf(req)
  if (type !== '' && !isJsonType(type)) {
    throw createError('ERR_API_UNSUPPORTED_MEDIA_TYPE', [type, 'application/json'])
  }
  const body = await readBodyWithin(req, limit)
  const text = body.toString('utf8').replace(/^\uFEFF/, '')
  if (text.trim() === '') {
    throw createError('ERR_API_BAD_REQUEST', ['The request body must be a JSON document'], {
      details: [{ path: '', message: 'is empty' }],
    })
  }
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw createError('ERR_API_BAD_REQUEST', [`The request body is not valid JSON: ${message}`], {
      details: [{ path: '', message: `is not valid JSON: ${message}` }],
    })
  }
}

/**
 * A small JSON object body (a sign-in form), or null when it is larger than `limit`, not JSON or
 * not an object: for endpoints that answer every such body the same way.
 */
export async function readSmallJson(
  req: IncomingMessage,
  limit: number,
): Promise<Record<string, unknown> | null> {
  let body: Buffer
  try {
    body = await readBodyWithin(req, limit)
  } catch {
    return null
  }
  try {
    const value: unknown = JSON.parse(body.toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/** A body written as is with its length (none for null, as a 204 has). */
export function writeRaw(
  res: ServerResponse,
  status: number,
  raw: Buffer | string | null,
  headers: Record<string, string> = {},
): void {
  const body = raw === null ? null : Buffer.isBuffer(raw) ? raw : Buffer.from(raw)
  const all: Record<string, string | number> = { ...headers }
  if (body !== null) all['content-length'] = body.length
  res.writeHead(status, all)
  res.end(body ?? undefined)
}
