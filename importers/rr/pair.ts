import { STATUS_CODES } from 'node:http'
import {
  type DslInput,
  type MatcherInput,
  type RequestDslInput,
  type ResponseDslInput,
} from '../../src/dsl/index.js'
import { isJsonType, parseMediaType } from '../shared/mime.js'
import { setBody } from '../shared/content-type.js'
import { utf8Text } from '../shared/text.js'
import { literalPathMatcher, queryMatchers } from '../shared/url.js'
import { headerValue, MessageError, parseHttpMessage, type HttpMessage } from './http-message.js'

/** One request/response pair read into DSL shapes, or why it could not be. */
type PairOutcome =
  { dsl: DslInput; notes: string[] } | { error: string; file: string; line: number }

/**
 * Response headers that describe the saved exchange rather than the answer: hop-by-hop headers,
 * the length and framing (the runtime computes them; the body is stored de-chunked) and Date (the
 * runtime writes its own). Content-Encoding stays: the body is kept exactly as it was on the wire.
 */
const droppedResponseHeaders = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'date',
])

/**
 * Turns the two files of a pair into a transaction dsl: method, path (`equals_url`), each query
 * parameter (`equals`) and the body are matched (`equals_json` for JSON, one `equals` per field of
 * a urlencoded form, else `equals` on the text; multipart and binary bodies are not matched);
 * headers are not (they carry volatile values such as dates, tokens and trace ids).
 *
 * @example
 * readPair(reqBytes, 'a-req.txt', rspBytes, 'a-rsp.txt')
 */
export function readPair(
  reqBytes: Uint8Array,
  reqFile: string,
  rspBytes: Uint8Array,
  rspFile: string,
): PairOutcome {
  const req = parseHttpMessage(reqBytes, 'request')
  if (req instanceof MessageError) return { error: req.message, file: reqFile, line: req.line }
  const rsp = parseHttpMessage(rspBytes, 'response')
  if (rsp instanceof MessageError) return { error: rsp.message, file: rspFile, line: rsp.line }
  const notes = [...req.notes.map((n) => `request ${n}`), ...rsp.notes.map((n) => `response ${n}`)]
  const requestDsl = requestOf(req, notes)
  return { dsl: { requestDsl, responseDsl: responseOf(rsp) }, notes }
}

function requestOf(msg: HttpMessage, notes: string[]): RequestDslInput {
  const [method, target] = msg.start
  const out: RequestDslInput = { method: method.toUpperCase() }
  let pathAndQuery = target
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/i.exec(target)
  if (absolute !== null) {
    // absolute-form (a request saved by a proxy): the authority is where it was sent
    out.host = absolute[1] ?? ''
    pathAndQuery = absolute[2] ?? ''
  } else {
    const host = headerValue(msg.headers, 'host')
    if (host !== undefined && host !== '') out.host = host
  }
  pathAndQuery = pathAndQuery.split('#')[0] ?? ''
  const q = pathAndQuery.indexOf('?')
  const path = (q === -1 ? pathAndQuery : pathAndQuery.slice(0, q)) || '/'
  out.url = literalPathMatcher(path)
  out.path = path
  const params = q === -1 ? [] : queryMatchers(pathAndQuery.slice(q + 1))
  if (params.length > 0) out.queryParams = params
  const body = bodyMatchers(msg, notes)
  if (body.length > 0) out.body = body
  return out
}

function bodyMatchers(msg: HttpMessage, notes: string[]): MatcherInput[] {
  if (msg.body.length === 0) return []
  const text = utf8Text(msg.body)
  if (text === undefined) {
    notes.push('request body is binary (not UTF-8) and is not matched')
    return []
  }
  const essence = parseMediaType(headerValue(msg.headers, 'content-type') ?? '').essence
  if (essence === 'multipart/form-data') {
    // the boundary changes with every request, so the recorded text can never match again
    notes.push(
      'request body is multipart/form-data, whose boundary changes on every request; it is not matched',
    )
    return []
  }
  if (essence === 'application/x-www-form-urlencoded') {
    const fields = [...new URLSearchParams(text)]
    // a field named like a JSONPath or XPath would be read as one by the runtime
    if (
      fields.length > 0 &&
      fields.every(([k]) => k !== '' && !k.startsWith('$') && !k.startsWith('/'))
    ) {
      return fields.map(([key, value]) => ({ key, matcherName: 'equals', matchingValue: value }))
    }
  }
  // JSON by media type, or any body that is a JSON object or array (clients mislabel JSON often)
  if (isJsonType(essence) || /^\s*[[{]/.test(text)) {
    try {
      JSON.parse(text)
      return [{ matcherName: 'equals_json', matchingValue: text }]
    } catch {
      if (isJsonType(essence)) {
        notes.push('request body is declared JSON but does not parse; it is matched as text')
      }
    }
  }
  return [{ matcherName: 'equals', matchingValue: text }]
}

function responseOf(msg: HttpMessage): ResponseDslInput {
  const [, statusText, reason] = msg.start
  const status = Number(statusText)
  const out: ResponseDslInput = { status }
  if (reason !== '' && reason !== STATUS_CODES[status]) out.statusMessage = reason
  const headers = msg.headers.filter(([name]) => !droppedResponseHeaders.has(name.toLowerCase()))
  setBody(
    out,
    headers.map(([name, value]) => ({ name, value })),
    msg.body,
  )
  return out
}
