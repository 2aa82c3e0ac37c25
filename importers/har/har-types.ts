/*
 * The parts of a HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/) that the
 * importer reads. Fields are optional or `unknown` where real captures deviate from the spec;
 * checkHar has already rejected documents whose essential fields have the wrong type.
 */

export interface HarNameValue {
  name: string
  value?: unknown
  fileName?: string
}

export interface HarPostData {
  mimeType?: string
  text?: string
  params?: HarNameValue[]
}

export interface HarRequest {
  method: string
  url: string
  headers?: HarNameValue[]
  postData?: HarPostData
}

export interface HarContent {
  mimeType?: string
  text?: string
  encoding?: string
}

export interface HarResponse {
  status: number
  statusText?: string
  headers?: HarNameValue[]
  content?: HarContent
}

export interface HarEntry {
  request: HarRequest
  response?: HarResponse | null
  /** Chrome and Charles: the frames of a WebSocket connection. */
  _webSocketMessages?: unknown
  /** Chrome: `websocket`, `xhr`, `document`, ... */
  _resourceType?: unknown
}

/**
 * Values of the headers called `name` (case-insensitive); array values count one each.
 *
 * @example
 * headerValues([{ name: 'Set-Cookie', value: ['a=1', 'b=2'] }], 'set-cookie') // ['a=1', 'b=2']
 */
export function headerValues(headers: HarNameValue[] | undefined, name: string): string[] {
  const out: string[] = []
  const wanted = name.toLowerCase()
  for (const h of headers ?? []) {
    if (typeof h.name === 'string' && h.name.toLowerCase() === wanted) {
      out.push(...valuesOf(h.value))
    }
  }
  return out
}

/**
 * A header value as strings: Polly.JS writes arrays; numbers and booleans are stringified.
 *
 * @example
 * valuesOf(['gzip', 3]) // ['gzip', '3']
 */
export function valuesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(valuesOf)
  if (typeof value === 'string') return [value]
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)]
  return []
}
