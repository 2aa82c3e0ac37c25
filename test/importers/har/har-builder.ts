/*
 * Builds small HAR 1.2 documents for tests: every entry is valid against the HAR schema unless a
 * test overrides a field on purpose.
 */

interface EntryOptions {
  method?: string
  url?: string
  requestHeaders?: Array<{ name: string; value: unknown }>
  postData?: {
    mimeType: string
    text?: string
    params?: Array<{ name: string; value?: string; fileName?: string }>
  }
  status?: number
  statusText?: string
  headers?: Array<{ name: string; value: unknown }>
  mimeType?: string
  text?: string
  encoding?: string
  extra?: Record<string, unknown>
}

/** One HAR entry: GET http://api.example.com/ answering 200 with an empty body, unless told otherwise. */
export function harEntry(o: EntryOptions = {}): Record<string, unknown> {
  const request: Record<string, unknown> = {
    method: o.method ?? 'GET',
    url: o.url ?? 'http://api.example.com/',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: o.requestHeaders ?? [],
    queryString: [],
    headersSize: -1,
    bodySize: -1,
  }
  if (o.postData !== undefined) request['postData'] = o.postData
  const content: Record<string, unknown> = { size: o.text?.length ?? 0, mimeType: o.mimeType ?? '' }
  if (o.text !== undefined) content['text'] = o.text
  if (o.encoding !== undefined) content['encoding'] = o.encoding
  return {
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 1,
    request,
    response: {
      status: o.status ?? 200,
      statusText: o.statusText ?? 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: o.headers ?? [],
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
    ...o.extra,
  }
}

/** A HAR document around `entries`. */
export function harDocument(entries: unknown[]): Record<string, unknown> {
  return { log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }
}

/** The import input for a HAR document. */
export function harInput(
  doc: unknown,
  fileName = 'test.har',
): { bytes: Uint8Array; fileName: string } {
  return { bytes: Buffer.from(JSON.stringify(doc, null, 2)), fileName }
}
