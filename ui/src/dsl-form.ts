/**
 * The form editor's model of a transaction: what a person edits (decoded body, header rows,
 * matcher rows, think time) mapped to and from the DSL the API stores. Fields the form does not
 * show are carried over untouched, so saving a form never drops what another tool wrote.
 */

export type MatcherPart = 'headers' | 'queryParams' | 'cookies' | 'body'
export const MATCHER_PARTS: readonly MatcherPart[] = ['headers', 'queryParams', 'cookies', 'body']
export const PART_LABELS: Record<MatcherPart, string> = {
  headers: 'Header',
  queryParams: 'Query parameter',
  cookies: 'Cookie',
  body: 'Body',
}

/** The DSL's matcher names (docs/dsl.md "Request"), in the order a person looks for them. */
export const MATCHER_NAMES = [
  'equals',
  'equals_insensitive',
  'contains',
  'matches',
  'not_matches',
  'absent',
  'equals_json',
  'matches_json',
  'equals_xml',
  'matches_xml',
  'matches_xml_schema',
  'matches_xml_cdata',
] as const

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'] as const
export const DELAY_TYPES = ['none', 'fixed', 'uniform', 'lognormal'] as const
export type DelayType = (typeof DELAY_TYPES)[number]

/** Status codes offered by the picker; any other code the transaction has is added to it. */
export const COMMON_STATUSES: ReadonlyArray<readonly [number, string]> = [
  [200, 'OK'],
  [201, 'Created'],
  [202, 'Accepted'],
  [204, 'No Content'],
  [301, 'Moved Permanently'],
  [302, 'Found'],
  [304, 'Not Modified'],
  [400, 'Bad Request'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'Not Found'],
  [405, 'Method Not Allowed'],
  [409, 'Conflict'],
  [410, 'Gone'],
  [415, 'Unsupported Media Type'],
  [422, 'Unprocessable Content'],
  [429, 'Too Many Requests'],
  [500, 'Internal Server Error'],
  [501, 'Not Implemented'],
  [502, 'Bad Gateway'],
  [503, 'Service Unavailable'],
  [504, 'Gateway Timeout'],
]

export interface MatcherRow {
  part: MatcherPart
  key: string
  matcherName: string
  value: string
  optional: boolean
  /** Members of the matcher the form does not show (namespaces, flags, sampleBody): kept as they are. */
  rest: Record<string, unknown>
}
export interface HeaderRow {
  name: string
  value: string
}
export interface DelayForm {
  type: DelayType
  duration: string
  lower: string
  upper: string
  median: string
  sigma: string
}

export interface TransactionForm {
  method: string
  urlMatcher: string
  urlValue: string
  matchers: MatcherRow[]
  status: string
  headers: HeaderRow[]
  contentType: string
  /** `text`: `body` is the decoded text; `binary`: `body` is base64, since the bytes are not UTF-8. */
  bodyMode: 'text' | 'binary'
  body: string
  delay: DelayForm
}

export interface Dsl {
  requestDsl: Record<string, unknown>
  responseDsl: Record<string, unknown>
  [member: string]: unknown
}

type Rec = Record<string, unknown>
const isRecord = (value: unknown): value is Rec =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value)

/** UTF-8 text as base64 (the DSL's `content`). */
export function encodeBase64(value: string): string {
  const bytes = new TextEncoder().encode(value)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

/** base64 as UTF-8 text, or undefined when the bytes are not text. */
function decodeBase64Text(value: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0))
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** Whether a content type (DSL shorthand or MIME type) says JSON. */
function isJsonType(contentType: string): boolean {
  const type = contentType.trim().toLowerCase()
  return type === 'json' || /^application\/([\w.+-]+\+)?json\b/.test(type) || type.endsWith('+json')
}

function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

function bodyOf(res: Rec): Pick<TransactionForm, 'bodyMode' | 'body' | 'contentType'> {
  const contentType = text(res['contentType'])
  if (res['json'] !== undefined) {
    return {
      bodyMode: 'text',
      body: JSON.stringify(res['json'], null, 2),
      contentType: contentType === '' ? 'json' : contentType,
    }
  }
  if (typeof res['text'] === 'string') return { bodyMode: 'text', body: res['text'], contentType }
  const content = typeof res['content'] === 'string' ? res['content'] : ''
  if (content === '') {
    return { bodyMode: res['binary'] === true ? 'binary' : 'text', body: '', contentType }
  }
  const decoded = res['binary'] === true ? undefined : decodeBase64Text(content)
  if (decoded === undefined) return { bodyMode: 'binary', body: content, contentType }
  return {
    bodyMode: 'text',
    body: isJsonType(contentType) ? prettyJson(decoded) : decoded,
    contentType,
  }
}

function delayOf(value: unknown): DelayForm {
  const d = isRecord(value) ? value : {}
  const type = text(d['type']).toLowerCase()
  const num = (k: string): string => (typeof d[k] === 'number' ? String(d[k]) : '')
  return {
    type: (DELAY_TYPES as readonly string[]).includes(type) ? (type as DelayType) : 'none',
    duration: num('duration'),
    lower: num('lower'),
    upper: num('upper'),
    median: num('median'),
    sigma: num('sigma'),
  }
}

function matchersOf(req: Rec): MatcherRow[] {
  const rows: MatcherRow[] = []
  for (const part of MATCHER_PARTS) {
    const list = req[part]
    if (!Array.isArray(list)) continue
    for (const m of list) {
      if (!isRecord(m)) continue
      const { key, matcherName, matchingValue, optional, ...rest } = m
      rows.push({
        part,
        key: text(key),
        matcherName: text(matcherName) || 'equals',
        value: text(matchingValue),
        optional: optional === true,
        rest,
      })
    }
  }
  return rows
}

/** The form a stored DSL opens as. */
export function formOf(dsl: Dsl): TransactionForm {
  const req = isRecord(dsl.requestDsl) ? dsl.requestDsl : {}
  const res = isRecord(dsl.responseDsl) ? dsl.responseDsl : {}
  const url = isRecord(req['url']) ? req['url'] : undefined
  const headers = Array.isArray(res['headers'])
    ? res['headers']
        .filter(isRecord)
        .map((h) => ({ name: text(h['name']), value: text(h['value']) }))
    : []
  return {
    method: text(req['method']).toUpperCase() || 'ANY',
    urlMatcher: url === undefined ? 'equals_url' : text(url['matcherName']) || 'equals_url',
    urlValue: url === undefined ? text(req['path']) : text(url['matchingValue']),
    matchers: matchersOf(req),
    status: String(typeof res['status'] === 'number' ? res['status'] : 200),
    headers,
    ...bodyOf(res),
    delay: delayOf(res['responseDelay']),
  }
}

/** Field errors of a form, keyed by the form's field names (`status`, `body`, `headers.2.name`, `matchers.0.key`). */
export type FormErrors = Record<string, string>

function delayDsl(form: DelayForm, previous: unknown, errors: FormErrors): Rec | undefined {
  const kept = isRecord(previous) ? previous : {}
  const { type: _t, duration: _d, lower: _l, upper: _u, median: _m, sigma: _s, ...others } = kept
  if (form.type === 'none') {
    return Object.keys(others).length > 0 ? { type: 'NONE', ...others } : undefined
  }
  const out: Rec = { type: form.type.toUpperCase(), ...others }
  const need =
    form.type === 'fixed'
      ? ['duration']
      : form.type === 'uniform'
        ? ['lower', 'upper']
        : ['median', 'sigma']
  const allowed = form.type === 'lognormal' ? [...need, 'upper'] : need
  for (const k of allowed) {
    const raw = form[k as keyof DelayForm].trim()
    if (raw === '') {
      if (need.includes(k)) errors[`delay.${k}`] = `${k} is required for ${form.type} think time`
      continue
    }
    const n = Number(raw)
    if (!Number.isFinite(n) || n < 0) {
      errors[`delay.${k}`] = `${k} must be a number of milliseconds, 0 or more`
    } else out[k] = n
  }
  return out
}

/**
 * The DSL a form saves: the original DSL with the form's fields written over it. `errors` names
 * each field the form refuses before anything is sent (the API checks the rest).
 */
export function dslOf(form: TransactionForm, original: Dsl): { dsl: Dsl; errors: FormErrors } {
  const errors: FormErrors = {}
  const req: Rec = { ...(isRecord(original.requestDsl) ? original.requestDsl : {}) }
  const res: Rec = { ...(isRecord(original.responseDsl) ? original.responseDsl : {}) }

  req['method'] = form.method
  if (form.urlValue.trim() === '') errors['urlValue'] = 'The path is required'
  req['url'] = {
    ...(isRecord(req['url']) ? req['url'] : {}),
    matcherName: form.urlMatcher,
    matchingValue: form.urlValue.trim(),
  }
  delete req['path']
  for (const part of MATCHER_PARTS) delete req[part]
  form.matchers.forEach((row, i) => {
    if (row.part !== 'body' && row.key.trim() === '' && row.matcherName !== 'absent') {
      errors[`matchers.${i}.key`] =
        `A ${PART_LABELS[row.part].toLowerCase()} matcher needs the name it matches`
    }
    const list = (req[row.part] ??= []) as Rec[]
    list.push({
      ...row.rest,
      key: row.key.trim(),
      matcherName: row.matcherName,
      matchingValue: row.value,
      ...(row.optional ? { optional: true } : {}),
    })
  })

  const status = Number(form.status)
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    errors['status'] = 'The status must be a whole number from 100 to 599'
  } else res['status'] = status
  res['headers'] = form.headers
    .filter((h, i) => {
      if (h.name.trim() === '' && h.value === '') return false
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.name.trim())) {
        errors[`headers.${i}.name`] = "A header name is letters, digits and !#$%&'*+.^_`|~-"
      }
      return true
    })
    .map((h) => ({ name: h.name.trim(), value: h.value }))

  delete res['text']
  delete res['json']
  if (form.contentType.trim() === '') delete res['contentType']
  else res['contentType'] = form.contentType.trim()
  if (form.bodyMode === 'binary') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(form.body.replace(/\s+/g, ''))) {
      errors['body'] = 'A binary body is base64 (A-Z, a-z, 0-9, +, /, =)'
    }
    res['content'] = form.body.replace(/\s+/g, '')
    res['binary'] = true
  } else {
    if (isJsonType(form.contentType) && form.body.trim() !== '') {
      try {
        JSON.parse(form.body)
      } catch (err) {
        errors['body'] = `The body is not valid JSON: ${(err as Error).message}`
      }
    }
    res['content'] = encodeBase64(form.body)
    delete res['binary']
  }
  const delay = delayDsl(form.delay, res['responseDelay'], errors)
  if (delay === undefined) delete res['responseDelay']
  else res['responseDelay'] = delay

  return { dsl: { ...original, requestDsl: req, responseDsl: res }, errors }
}

/** The request line a row shows: method and path, once each. */
export function requestLine(dsl: Dsl): { method: string; path: string } {
  const req = isRecord(dsl.requestDsl) ? dsl.requestDsl : {}
  const url = isRecord(req['url']) ? req['url'] : undefined
  return {
    method: text(req['method']).toUpperCase() || 'ANY',
    path: url === undefined ? text(req['path']) : text(url['matchingValue']),
  }
}

/** The status a row shows. */
export function statusOf(dsl: Dsl): number {
  const status = isRecord(dsl.responseDsl) ? dsl.responseDsl['status'] : undefined
  return typeof status === 'number' ? status : 200
}
