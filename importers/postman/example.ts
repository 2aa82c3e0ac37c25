import { STATUS_CODES } from 'node:http'
import type { RequestDslInput, ResponseDslInput } from '../../src/dsl/index.js'
import { setBody } from '../shared/content-type.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { urlMatchersOf } from './url.js'
import { resolveText, type Scope } from './variables.js'

/**
 * Response headers of a saved example that described the original exchange: Postman stores the
 * body already decoded (so Content-Encoding would lie), and the runtime computes length, framing
 * and Date itself.
 */
const droppedHeaders = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
])

/** `_postman_previewlanguage` values that name a body type the DSL knows. */
const previewTypes: Record<string, string> = {
  json: 'json',
  xml: 'xml',
  html: 'html',
  text: 'text',
}

/** The request side of an example, and what a reader should know about it. */
interface RequestOutcome {
  requestDsl: RequestDslInput
  display: string
  wildcard: boolean
  notes: string[]
}

/**
 * Maps a Postman request (an item's `request`, or an example's `originalRequest`): method, path
 * and enabled query parameters are matched. Like Postman's own mock servers (without the
 * x-mock-match-request-* headers), headers and body are not; a raw or urlencoded body is kept as
 * `sampleBody`.
 *
 * @example
 * requestOfPostman({ method: 'GET', url: '{{base}}/pets?limit=10' }, new Map()).requestDsl
 * // { method: 'GET', url: { matcherName: 'equals_url', matchingValue: '/pets', ... }, queryParams: [{ key: 'limit', ... }] }
 */
export function requestOfPostman(request: unknown, scope: Scope): RequestOutcome {
  const req: Loose =
    typeof request === 'string' ? { url: request } : isObject(request) ? request : {}
  const url = urlMatchersOf(req['url'], scope)
  const requestDsl: RequestDslInput = {
    method: (str(req['method']) ?? 'GET').toUpperCase(),
    url: url.url,
  }
  if (url.host !== undefined) requestDsl.host = url.host
  if (url.queryParams.length > 0) requestDsl.queryParams = url.queryParams
  const sample = sampleBodyOf(req['body'], scope)
  if (sample !== undefined) requestDsl.sampleBody = sample
  return { requestDsl, display: url.display, wildcard: url.wildcard, notes: url.notes }
}

function sampleBodyOf(body: unknown, scope: Scope): string | undefined {
  if (!isObject(body)) return undefined
  const mode = str(body['mode'])
  if (mode === 'raw') {
    const raw = str(body['raw'])
    return raw === undefined || raw === '' ? undefined : resolveText(raw, scope)
  }
  if (mode === 'urlencoded' && Array.isArray(body['urlencoded'])) {
    const params = new URLSearchParams()
    for (const p of body['urlencoded']) {
      if (isObject(p) && p['disabled'] !== true && typeof p['key'] === 'string') {
        params.append(p['key'], resolveText(String(p['value'] ?? ''), scope))
      }
    }
    const text = params.toString()
    return text === '' ? undefined : text
  }
  return undefined
}

/**
 * Maps a saved example response: status (`code`), reason (`status`, when it is not the standard
 * one), headers, body. Known collection variables in header values and body are substituted.
 *
 * @example
 * responseOfExample({ code: 201, status: 'Created', body: '{}', _postman_previewlanguage: 'json' }, new Map(), notes)
 * // { status: 201, contentType: 'json', content: 'e30=' }
 */
export function responseOfExample(example: Loose, scope: Scope, notes: string[]): ResponseDslInput {
  const out: ResponseDslInput = {}
  const code = typeof example['code'] === 'number' ? example['code'] : Number(example['code'])
  if (Number.isInteger(code) && code > 0) out.status = code
  const reason = str(example['status'])
  if (reason !== undefined && reason !== '' && reason !== STATUS_CODES[out.status ?? 200]) {
    out.statusMessage = reason
  }
  const headers = headersOf(example['header'], scope)
  const body = str(example['body']) ?? ''
  const text = resolveText(body, scope)
  if (/\{\{[^{}]+\}\}/.test(text)) {
    notes.push(
      'response body contains {{variables}} that the collection does not define; they are served verbatim',
    )
  }
  setBody(
    out,
    headers,
    Buffer.from(text, 'utf8'),
    previewTypes[str(example['_postman_previewlanguage']) ?? ''],
  )
  return out
}

function headersOf(value: unknown, scope: Scope): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = []
  const add = (name: string, v: string): void => {
    if (!droppedHeaders.has(name.toLowerCase())) out.push({ name, value: resolveText(v, scope) })
  }
  if (Array.isArray(value)) {
    for (const h of value) {
      if (!isObject(h) || h['disabled'] === true) continue
      const name = str(h['key'])
      if (name !== undefined && name !== '') add(name, String(h['value'] ?? ''))
    }
  } else if (typeof value === 'string') {
    // v1-style "Name: value" lines
    for (const line of value.split(/\r?\n/)) {
      const colon = line.indexOf(':')
      if (colon > 0) add(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
    }
  }
  return out
}
