import { compileJsonPath, compileXPath, parseXml, type XmlDocument } from '../match/index.js'

/** A received response, with its JSON and XML parsed at most once, on first use. */
export class ResponseData {
  #json: { value: unknown } | null | undefined
  #xml: XmlDocument | null | undefined

  constructor(
    readonly status: number,
    readonly reason: string,
    /** Header names lowercased, values in order. */
    readonly headers: Record<string, string[]>,
    readonly body: string,
    readonly sizeBytes: number,
    readonly timeMs: number,
  ) {}

  /** The parsed JSON body, or null when the body is not JSON. */
  json(): { value: unknown } | null {
    if (this.#json === undefined) {
      try {
        this.#json = { value: JSON.parse(this.body) as unknown }
      } catch {
        this.#json = null
      }
    }
    return this.#json
  }

  xml(): XmlDocument | null {
    if (this.#xml === undefined) this.#xml = parseXml(this.body)
    return this.#xml
  }

  header(name: string): string | undefined {
    const values = this.headers[name.toLowerCase()]
    return values === undefined ? undefined : values.join(', ')
  }
}

/** The result of reading a source: the value, or why there is none. */
type Read = { value: unknown } | { error: string }

/** The source names of assertions and variables (the product's and its aliases) to one canonical name. */
const SOURCES: Readonly<
  Record<string, 'status' | 'header' | 'json' | 'xml' | 'text' | 'time' | 'size'>
> = {
  response_status: 'status',
  status_code: 'status',
  response_status_code: 'status',
  response_headers: 'header',
  response_header: 'header',
  headers: 'header',
  response_json: 'json',
  json: 'json',
  response_xml: 'xml',
  xml: 'xml',
  response_text: 'text',
  text: 'text',
  response_body: 'text',
  response_time: 'time',
  response_time_ms: 'time',
  response_size: 'size',
  response_size_bytes: 'size',
}

/**
 * A product JSON property (`args.u1`, `items[0].name`, `data["a b"]`, or a JSONPath `$...`) as a
 * JSONPath; empty = the whole document.
 */
function jsonPathOf(property: string): string {
  const p = property.trim()
  if (p === '' || p === '$') return '$'
  if (p.startsWith('$')) return p
  if (p.startsWith('[')) return `$${p}`
  // Dotted members whose names are not identifiers (`a.b-c`, `a.0`) become bracket members.
  const parts = p.split('.').map((part) => {
    const m = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(part)
    if (m === null) return `.${part}`
    const [, name = '', indexes = ''] = m
    if (name === '') return indexes
    const member = /^[A-Za-z_$][\w$]*$/.test(name)
      ? `.${name}`
      : /^\d+$/.test(name)
        ? `[${name}]`
        : `[${JSON.stringify(name)}]`
    return member + indexes
  })
  return `$${parts.join('')}`
}

/**
 * Compiled selectors by property: every run of a scheduled test reads the same few properties,
 * and compiling one (the product syntax to JSONPath, then the path) cost more than reading it.
 * Cleared when full: a bound against tests that substitute variables into their properties.
 */
const selectors = new Map<string, ReturnType<typeof compileJsonPath> | string>()
const MAX_SELECTORS = 2048

function selectorOf(property: string): ReturnType<typeof compileJsonPath> | string {
  let selector = selectors.get(property)
  if (selector === undefined) {
    try {
      selector = compileJsonPath(jsonPathOf(property))
    } catch (err) {
      selector = `the property "${property}" is not a valid path: ${err instanceof Error ? err.message : String(err)}`
    }
    if (selectors.size >= MAX_SELECTORS) selectors.clear()
    selectors.set(property, selector)
  }
  return selector
}

function readJson(response: ResponseData, property: string): Read {
  const doc = response.json()
  if (doc === null) return { error: 'the response body is not JSON' }
  const selector = selectorOf(property)
  if (typeof selector === 'string') return { error: selector }
  const selected = selector(doc.value)
  if (selected.length === 0) return { value: undefined }
  return { value: selected.length === 1 ? selected[0] : selected }
}

function readXml(response: ResponseData, property: string): Read {
  const doc = response.xml()
  if (doc === null) return { error: 'the response body is not XML' }
  if (property.trim() === '') return { value: response.body }
  let xpath
  try {
    xpath = compileXPath(property)
  } catch (err) {
    return {
      error: `the property "${property}" is not a valid XPath: ${err instanceof Error ? err.message : String(err)}`,
    }
  }
  const values = xpath.values(doc)
  if (values.length === 0) return { value: undefined }
  return { value: values.length === 1 ? values[0] : values }
}

/** Reads what an assertion or variable looks at. */
export function readSource(response: ResponseData, source: string, property: string): Read {
  const kind: (typeof SOURCES)[string] | undefined = Object.hasOwn(SOURCES, source)
    ? SOURCES[source]
    : undefined
  switch (kind) {
    case 'status':
      return { value: response.status }
    case 'time':
      return { value: response.timeMs }
    case 'size':
      return { value: response.sizeBytes }
    case 'text':
      return { value: response.body }
    case 'header':
      if (property.trim() === '') return { value: response.headers }
      return { value: response.header(property.trim()) }
    case 'json':
      return readJson(response, property)
    case 'xml':
      return readXml(response, property)
    case undefined:
      return { error: `unknown source "${source}"` }
  }
}
