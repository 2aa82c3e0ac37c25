import type { ResponseDslInput } from '../../src/dsl/index.js'
import { isTextType, parseMediaType, type MediaType } from '../shared/index.js'
import { headerValues, valuesOf, type HarResponse } from './har-types.js'

/** A recorded response turned into a responseDsl, or the reason it cannot be replayed. */
type ResponseOutcome =
  | { kind: 'response'; responseDsl: ResponseDslInput; notes: string[] }
  | { kind: 'skip'; reason: string }

// Never replayed as recorded:
// - hop-by-hop headers (RFC 9110 section 7.6.1), which describe one connection, not the resource;
// - content-encoding and content-length: HAR bodies are stored decoded, and the runtime writes
//   the length of the body it actually sends;
// - content-type: carried by `contentType` and `charset` instead, so that it is written once;
// - date: the runtime's HTTP server writes the current one.
const droppedHeaders = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-encoding',
  'content-length',
  'content-type',
  'date',
])

/** RFC 9110 token: what the DSL accepts as a header name. HTTP/2 pseudo-headers (`:status`) are not. */
const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** A value Node's HTTP server will write: no control characters but tab (no CR/LF). */
const valuePattern = /^[\t\x20-\x7e\x80-\xff]*$/
const mediaTypePattern = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/

/**
 * Builds the response side of a transaction from a HAR entry's response: status, status text,
 * headers (minus the dropped ones above), the body from `content.text` (base64-decoded when
 * `encoding` is `base64`), `contentType` from `content.mimeType` (the Content-Type header when
 * the mime type is empty) without its charset, which goes to `charset`. Non-text media types are
 * kept as bytes with `binary: true`. Status 0 (a failed or blocked request) and statuses outside
 * 100-599 are skipped.
 *
 * @example
 * readResponse({ status: 200, headers: [], content: { mimeType: 'text/plain; charset=utf-8', text: 'hi' } })
 * // { kind: 'response', responseDsl: { status: 200, contentType: 'text/plain', charset: 'utf-8', content: 'aGk=' }, notes: [] }
 */
export function readResponse(response: HarResponse): ResponseOutcome {
  const status = response.status
  if (status === 0) {
    return {
      kind: 'skip',
      reason: 'status 0: the request failed or was blocked, so there is no response to replay',
    }
  }
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    return { kind: 'skip', reason: `status ${status} is not an HTTP status code` }
  }
  if (status === 101) {
    return {
      kind: 'skip',
      reason: 'status 101 switches protocols, which a request/response mock cannot replay',
    }
  }
  const notes: string[] = []
  const responseDsl: ResponseDslInput = { status }
  const headers = readHeaders(response, notes)
  if (headers.length > 0) responseDsl.headers = headers
  const statusText = response.statusText
  if (typeof statusText === 'string' && statusText !== '' && valuePattern.test(statusText)) {
    responseDsl.statusMessage = statusText
  }

  const content = response.content ?? {}
  const mediaType = mediaTypeOf(content.mimeType, headerValues(response.headers, 'content-type')[0])
  const text = typeof content.text === 'string' ? content.text : ''
  const encoding = typeof content.encoding === 'string' ? content.encoding.toLowerCase() : ''
  if (encoding !== '' && encoding !== 'base64') {
    notes.push(`its body encoding "${content.encoding ?? ''}" is unknown; the text is used as is`)
  }
  const declared = mediaType?.charset
  const encoded =
    encoding === 'base64'
      ? { bytes: Buffer.from(text, 'base64'), charset: declared }
      : encodeText(text, declared)
  const bytes = encoded.bytes
  const binary =
    mediaType === undefined
      ? encoding === 'base64' && !isUtf8(bytes)
      : !isTextType(mediaType.essence)

  if (mediaType !== undefined) responseDsl.contentType = mediaType.withoutCharset
  if (binary) responseDsl.binary = true
  else if (encoded.charset !== undefined) responseDsl.charset = encoded.charset
  if (bytes.length > 0) responseDsl.content = bytes.toString('base64')
  return { kind: 'response', responseDsl, notes }
}

function readHeaders(
  response: HarResponse,
  notes: string[],
): Array<{ name: string; value: string }> {
  const headers = Array.isArray(response.headers) ? response.headers : []
  // Headers that the Connection header names are hop-by-hop too (RFC 9110 section 7.6.1).
  const named = new Set(
    headerValues(headers, 'connection')
      .flatMap((v) => v.split(','))
      .map((v) => v.trim().toLowerCase()),
  )
  const out: Array<{ name: string; value: string }> = []
  const rejected = new Set<string>()
  for (const h of headers) {
    if (typeof h.name !== 'string') continue
    const lower = h.name.toLowerCase()
    if (
      h.name.startsWith(':') ||
      droppedHeaders.has(lower) ||
      lower.startsWith('proxy-') ||
      named.has(lower)
    ) {
      continue
    }
    if (!tokenPattern.test(h.name)) {
      rejected.add(h.name)
      continue
    }
    // Chrome joins repeated headers (Set-Cookie above all) into one value with newlines.
    const values =
      typeof h.value === 'string' && !h.value.includes('\n')
        ? [h.value]
        : valuesOf(h.value).flatMap((v) => v.split(/\r?\n/))
    for (const value of values) {
      if (value.trim() === '') continue
      if (valuePattern.test(value)) out.push({ name: h.name, value: value.trim() })
      else rejected.add(h.name)
    }
  }
  if (rejected.size > 0) {
    notes.push(
      `values of header(s) ${[...rejected].join(', ')} contain control characters or the name is not a token; they are left out`,
    )
  }
  return out
}

/** The media type of the body: `content.mimeType`, else the Content-Type header; undefined when neither is a type/subtype. */
function mediaTypeOf(
  mimeType: string | undefined,
  header: string | undefined,
): MediaType | undefined {
  for (const candidate of [mimeType, header]) {
    if (typeof candidate !== 'string') continue
    const parsed = parseMediaType(candidate)
    if (!mediaTypePattern.test(parsed.essence)) continue
    // Chrome writes `mimeType` without parameters; the header still carries the charset.
    if (parsed.charset === undefined && typeof header === 'string') {
      const fromHeader = parseMediaType(header)
      if (fromHeader.essence === parsed.essence && fromHeader.charset !== undefined) {
        parsed.charset = fromHeader.charset
      }
    }
    return parsed
  }
  return undefined
}

const latin1Charsets = new Set(['iso-8859-1', 'latin1', 'us-ascii', 'ascii'])

/**
 * HAR stores text bodies decoded into a JavaScript string, so they must be encoded again. They
 * are encoded in the declared charset when Node can (ISO-8859-1 and ASCII, if every character
 * fits) and as UTF-8 otherwise; the charset returned is the one to declare, so that the client
 * decodes the bytes it gets correctly (undefined when the recording declared none).
 */
function encodeText(
  text: string,
  declared: string | undefined,
): { bytes: Buffer; charset: string | undefined } {
  if (declared === undefined) return { bytes: Buffer.from(text, 'utf8'), charset: undefined }
  // eslint-disable-next-line no-control-regex -- the range checks that every character fits in one byte
  if (latin1Charsets.has(declared.toLowerCase()) && /^[\u0000-\u00ff]*$/.test(text)) {
    return { bytes: Buffer.from(text, 'latin1'), charset: declared }
  }
  return {
    bytes: Buffer.from(text, 'utf8'),
    charset: /^utf-?8$/i.test(declared) ? declared : 'utf-8',
  }
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}
