import type { IncomingHttpHeaders } from 'node:http'
import type { InspectionRecord } from '../../inspect/index.js'
import { MatchRequest } from '../../match/index.js'
import type { WireMockHost } from './host.js'
import type { StubLayer } from './stubs.js'

/**
 * The inspection ring seen as WireMock's request journal: serve events with UUID ids (the Java
 * client parses them as UUIDs; the ring's id is the last 12 hex digits), newest first, minus the
 * events removed one by one (the ring only forgets in order, so those are remembered here until
 * the journal is reset).
 */
export class Journal {
  private readonly removed = new Set<number>()

  constructor(
    private readonly host: WireMockHost,
    private readonly stubs: StubLayer,
  ) {}

  /** False with `--no-inspection`: WireMock's `requestJournalDisabled`. */
  get enabled(): boolean {
    return this.host.journalEnabled
  }

  /** Every record still in the journal, newest first. */
  async records(): Promise<InspectionRecord[]> {
    const all = await this.host.records()
    return this.removed.size === 0 ? all : all.filter((r) => !this.removed.has(r.id))
  }

  async get(uuid: string): Promise<InspectionRecord | undefined> {
    const id = ringIdOf(uuid)
    if (id === undefined || this.removed.has(id)) return undefined
    return (await this.host.records()).find((r) => r.id === id)
  }

  remove(records: readonly InspectionRecord[]): void {
    for (const r of records) this.removed.add(r.id)
  }

  async clear(): Promise<void> {
    await this.host.clearJournal()
    this.removed.clear()
  }

  /** WireMock's `ServeEvent`. */
  serveEvent(record: InspectionRecord): Record<string, unknown> {
    const stub = this.stubs.byTransaction(record.transactionId, record.respondingTxn)
    const response: Record<string, unknown> = {
      status: record.statusCode,
      headers: headerMap(record.responseHeaders),
    }
    putBody(response, record.responseBody)
    const event: Record<string, unknown> = {
      id: uuidOf(record.id),
      request: loggedRequest(record),
      responseDefinition: {
        status: record.statusCode,
        ...(record.respondingTxn === null ? {} : { fromConfiguredStub: record.matched }),
      },
      response,
      wasMatched: record.matched,
      timing: {
        addedDelay: 0,
        processTime: 0,
        responseSendTime: 0,
        serveTime: record.durationMs,
        totalTime: record.durationMs,
      },
      subEvents: [],
    }
    if (stub !== undefined) event['stubMapping'] = stub.json
    return event
  }
}

/**
 * WireMock's `LoggedRequest` of a record.
 *
 * @example
 * loggedRequest(record).url // '/orders?limit=2'
 */
export function loggedRequest(record: InspectionRecord): Record<string, unknown> {
  const headers = headerMap(record.requestHeaders)
  const host = firstValue(headers['Host'] ?? headers['host']) ?? 'localhost'
  const query = record.url.indexOf('?')
  const out: Record<string, unknown> = {
    url: record.url,
    absoluteUrl: `http://${host}${record.url}`,
    method: record.method,
    clientIp: '127.0.0.1',
    headers,
    cookies: cookiesOf(headers),
    browserProxyRequest: false,
    loggedDate: record.timestamp,
    loggedDateString: new Date(record.timestamp).toISOString(),
    queryParams: query === -1 ? {} : queryParamsOf(record.url.slice(query + 1)),
    protocol: 'HTTP/1.1',
    scheme: 'http',
    host: host.replace(/:\d+$/, ''),
    port: Number(/:(\d+)$/.exec(host)?.[1] ?? 80),
  }
  putBody(out, record.requestBody)
  return out
}

/** The request a matcher sees for a journal record (for patterns and near misses). */
export function matchRequestOf(
  record: Pick<InspectionRecord, 'method' | 'url' | 'requestHeaders' | 'requestBody'>,
): MatchRequest {
  const headers: IncomingHttpHeaders = {}
  const raw = record.requestHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase()
    const value = raw[i + 1] ?? ''
    const held = headers[name]
    if (held === undefined) headers[name] = value
    else if (name === 'cookie') headers[name] = `${String(held)}; ${value}`
    else headers[name] = Array.isArray(held) ? [...held, value] : [String(held), value]
  }
  return new MatchRequest(record.method.toUpperCase(), record.url, headers, record.requestBody)
}

/**
 * A `LoggedRequest` given in a body (`/__admin/near-misses/request`) as a record-like request:
 * `url`, `method`, `headers` (`{name: value | [values]}`), `body` or `bodyAsBase64`.
 */
export function requestOfLogged(
  input: Record<string, unknown>,
): Pick<InspectionRecord, 'method' | 'url' | 'requestHeaders' | 'requestBody'> {
  const rawHeaders: string[] = []
  const headers = input['headers']
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers)) {
      for (const v of Array.isArray(value) ? value : [value]) rawHeaders.push(name, String(v))
    }
  }
  const body =
    typeof input['bodyAsBase64'] === 'string'
      ? Buffer.from(input['bodyAsBase64'], 'base64')
      : typeof input['body'] === 'string' && input['body'] !== ''
        ? Buffer.from(input['body'])
        : null
  return {
    method: typeof input['method'] === 'string' ? input['method'] : 'GET',
    url: typeof input['url'] === 'string' ? input['url'] : '/',
    requestHeaders: rawHeaders,
    requestBody: body,
  }
}

/** `00000000-0000-4000-8000-<12 hex digits of the ring id>`. */
function uuidOf(id: number): string {
  return `00000000-0000-4000-8000-${id.toString(16).padStart(12, '0')}`
}

function ringIdOf(uuid: string): number | undefined {
  const m = /^00000000-0000-4000-8000-([0-9a-f]{12})$/i.exec(uuid)
  return m === null ? undefined : parseInt(m[1] ?? '', 16)
}

/** `{Name: value}`, or `{Name: [values]}` for a repeated header, as WireMock writes headers. */
function headerMap(raw: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? ''
    const value = raw[i + 1] ?? ''
    const held = out[name]
    out[name] = held === undefined ? value : Array.isArray(held) ? [...held, value] : [held, value]
  }
  return out
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function cookiesOf(headers: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'cookie') continue
    for (const line of Array.isArray(value) ? value : [value]) {
      for (const pair of line.split(';')) {
        const eq = pair.indexOf('=')
        if (eq > 0) out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim()
      }
    }
  }
  return out
}

function queryParamsOf(query: string): Record<string, { key: string; values: string[] }> {
  const out: Record<string, { key: string; values: string[] }> = {}
  for (const [key, value] of new URLSearchParams(query)) {
    const held = out[key] ?? { key, values: [] }
    held.values.push(value)
    out[key] = held
  }
  return out
}

/** `body` as text (UTF-8) and always `bodyAsBase64`, as WireMock logs bodies. */
function putBody(out: Record<string, unknown>, body: Buffer | null): void {
  out['body'] = body === null ? '' : body.toString('utf8')
  out['bodyAsBase64'] = body === null ? '' : body.toString('base64')
}
