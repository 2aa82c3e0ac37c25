import type { IncomingHttpHeaders } from 'node:http'
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring'
import type { JsonPathScanner } from './json-scan.js'
import { jsonTextDepth } from '../dsl/index.js'
import { parseXml, type XmlDocument } from './xml.js'
import { normalizePath } from './path.js'
import type { XsdOutcome } from './xsd/xmllint-pool.js'

/**
 * How deep a JSON or XML request body may nest for the matchers that walk the whole parsed
 * document (JSONPath with wildcards or filters, `matches_json`, `equals_json`, XPath, `equals_xml`):
 * a deeper body counts as not JSON (not XML) for them, so that recursive libraries never run out
 * of stack or spend seconds on a hostile body. Simple JSONPath keys (`$.a.b`) scan any depth.
 */
const MAX_BODY_DEPTH = 512

/** A value of a header, parameter, cookie or form field: one string or several. */
export type FieldValue = string | string[]

/** Marks a facet not computed yet, distinct from a computed `undefined`/`null`. */
const NOT_YET: unique symbol = Symbol('not computed')
type Lazy<T> = T | typeof NOT_YET

/**
 * What matchers read of one request. Cheap parts are taken at construction; every other facet
 * (query, cookies, body text, parsed JSON, parsed XML, form, credentials) is computed on first use
 * and at most once (issue: "computed lazily, at most once per request").
 *
 * @example
 * const req = new MatchRequest('GET', '/pets?limit=2', { accept: 'application/json' }, null)
 * req.path            // '/pets'
 * req.query()['limit'] // '2'
 */
export class MatchRequest {
  readonly method: string
  /** The path as url matchers see it (see path.ts). */
  readonly path: string
  /** The raw target, path and query as received. */
  readonly url: string
  /** The raw query string, without `?`; '' when there is none. */
  readonly rawQuery: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer | null

  #query: Lazy<ParsedUrlQuery> = NOT_YET
  #cookies: Lazy<Record<string, FieldValue>> = NOT_YET
  #text: Lazy<string> = NOT_YET
  #json: Lazy<unknown> = NOT_YET
  #jsonValid = false
  // The last two answers of jsonText, by scanner: the newest first.
  #scanner: JsonPathScanner | null = null
  #scanned: string | undefined = undefined
  #scannerBefore: JsonPathScanner | null = null
  #scannedBefore: string | undefined = undefined
  #xml: Lazy<XmlDocument | null> = NOT_YET
  #form: Lazy<Record<string, FieldValue> | null> = NOT_YET
  #credentials: Lazy<{ username: string; password: string } | null> = NOT_YET
  /** Asynchronous validations (matches_xml_schema) by key, run before matching (prepare.ts). */
  #validations: Map<string, Promise<XsdOutcome> | XsdOutcome> | null = null

  // HOT PATH: one per request.
  constructor(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer | null) {
    this.method = method
    this.url = url
    const q = url.indexOf('?')
    this.path = normalizePath(q === -1 ? url : url.slice(0, q))
    this.rawQuery = q === -1 ? '' : url.slice(q + 1)
    this.headers = headers
    this.body = body
  }

  /** One header, by lowercase name. */
  header(name: string): FieldValue | undefined {
    return this.headers[name]
  }

  /** Query parameters; repeated names give arrays. */
  query(): ParsedUrlQuery {
    if (this.#query === NOT_YET) this.#query = this.rawQuery === '' ? {} : parseQuery(this.rawQuery)
    return this.#query
  }

  /** Cookies of the `Cookie` header(s); a repeated name gives several values. */
  cookies(): Record<string, FieldValue> {
    if (this.#cookies === NOT_YET) this.#cookies = parseCookieHeader(this.headers.cookie)
    return this.#cookies
  }

  /** The body as UTF-8 text ('' without a body). */
  text(): string {
    if (this.#text === NOT_YET) this.#text = this.body === null ? '' : this.body.toString('utf8')
    return this.#text
  }

  /** The body parsed as JSON; `hasJson()` tells whether it parsed. */
  json(): unknown {
    if (this.#json === NOT_YET) {
      const text = this.text()
      this.#json = undefined
      // Only a long body can nest deeper than the bound: short ones skip the depth scan.
      if (
        text.length <= 2 * MAX_BODY_DEPTH ||
        jsonTextDepth(text, MAX_BODY_DEPTH) <= MAX_BODY_DEPTH
      ) {
        try {
          this.#json = JSON.parse(text)
          this.#jsonValid = true
        } catch {
          // Not JSON.
        }
      }
    }
    return this.#json
  }

  /**
   * The text of the value a simple JSONPath selects (see json-scan.ts); undefined when the body is
   * not JSON or the path selects nothing. The body is scanned rather than parsed, unless another
   * matcher parsed it already. The last two answers are kept, by scanner (one per expression
   * within a compiled mock, json-scanners.ts): the transactions of one route usually test the same
   * path, a discriminator reads it before the candidate's own predicate does, and a transaction
   * that also tests a second path must not make the next candidate scan the first one again.
   */
  jsonText(scanner: JsonPathScanner): string | undefined {
    if (this.#scanner === scanner) return this.#scanned
    if (this.#scannerBefore === scanner) return this.#scannedBefore
    let text: string | undefined
    if (this.#json !== NOT_YET && this.#jsonValid) {
      const found = scanner.fromParsed(this.#json)
      text = typeof found === 'string' ? found : undefined
    } else if (this.body !== null) {
      const found = scanner.scan(this.body)
      text = typeof found === 'string' ? found : undefined
    }
    this.#scannerBefore = this.#scanner
    this.#scannedBefore = this.#scanned
    this.#scanner = scanner
    this.#scanned = text
    return text
  }

  /** True when the body is valid JSON. */
  hasJson(): boolean {
    this.json()
    return this.#jsonValid
  }

  /** The body parsed as XML, or null when it is not well-formed XML. */
  xml(): XmlDocument | null {
    if (this.#xml === NOT_YET) {
      this.#xml = this.body === null ? null : parseXml(this.text(), MAX_BODY_DEPTH)
    }
    return this.#xml
  }

  /** Form fields of an urlencoded body (multipart ones are set by `setMultipartForm`). */
  form(): Record<string, FieldValue> | null {
    if (this.#form === NOT_YET) {
      const type = this.headers['content-type'] ?? ''
      this.#form = type.startsWith('application/x-www-form-urlencoded')
        ? toFieldRecord(parseQuery(this.text()))
        : null
    }
    return this.#form
  }

  /** Multipart fields are parsed asynchronously before matching (see prepareMultipart in prepare.ts). */
  setMultipartForm(fields: Record<string, FieldValue>): void {
    this.#form = fields
  }

  /**
   * Starts the validation stored under `key` unless one is stored already (a schema used by several
   * matchers is validated once per request); resolves when it is done.
   */
  async validate(key: string, start: () => Promise<XsdOutcome>): Promise<void> {
    this.#validations ??= new Map()
    const known = this.#validations.get(key)
    if (known !== undefined) {
      await known
      return
    }
    const running = start()
    this.#validations.set(key, running)
    this.#validations.set(key, await running)
  }

  /** The outcome stored under `key`, once settled; undefined when not validated (yet). */
  validation(key: string): XsdOutcome | undefined {
    const known = this.#validations?.get(key)
    return known === undefined || known instanceof Promise ? undefined : known
  }

  /** Username and password of an `Authorization: Basic` header, or null. */
  credentials(): { username: string; password: string } | null {
    if (this.#credentials === NOT_YET) this.#credentials = parseBasic(this.headers.authorization)
    return this.#credentials
  }
}

function toFieldRecord(query: ParsedUrlQuery): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = Object.create(null) as Record<string, FieldValue>
  for (const key of Object.keys(query)) {
    const value = query[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/**
 * `name=value; name=value` (RFC 6265 section 5.4) into values by name, keeping every value of a
 * repeated name (the `cookie` package keeps only the first, so matchers could not see the rest).
 * Values are percent-decoded when that is valid, and unquoted.
 */
function parseCookieHeader(header: string | undefined): Record<string, FieldValue> {
  const out = Object.create(null) as Record<string, FieldValue>
  if (header === undefined) return out
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=')
    if (eq === -1) continue
    const name = pair.slice(0, eq).trim()
    if (name === '') continue
    let value = pair.slice(eq + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1)
    }
    if (value.includes('%')) {
      try {
        value = decodeURIComponent(value)
      } catch {
        // Not percent-encoding after all: keep it as sent.
      }
    }
    const existing = out[name]
    out[name] =
      existing === undefined
        ? value
        : typeof existing === 'string'
          ? [existing, value]
          : [...existing, value]
  }
  return out
}

function parseBasic(header: string | undefined): { username: string; password: string } | null {
  if (header === undefined || !/^basic /i.test(header)) return null
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon === -1) return { username: decoded, password: '' }
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}
