import { createError, isUnderstudyError } from '../../src/errors/index.js'
import type { ImportFormat, ImportInput } from '../types.js'
import { importInvalid } from './errors.js'
import { harLayoutOf } from './har-layout.js'
import { isObject, parseStructured, type Loose } from './structured.js'
import { decodeText } from './text.js'

/**
 * What `importFile` accepts, for messages.
 *
 * @example
 * `expected ${acceptedDescription}`
 */
const acceptedDescription =
  'a zip archive; transaction DSL (JSON/YAML: transactions, dsl, requestDsl); exported transactions ({apiVersion, result}); ' +
  'HAR (log.entries); OpenAPI 2/3 (openapi or swagger); WireMock mappings (request+response, or mappings); ' +
  'Postman collection v2 (info+item); Mockoon environment (lastMigration+routes); RR pair (NAME-req.txt / NAME-rsp.txt with raw HTTP)'

const REQUEST_LINE = /^[A-Z]+ +\S+ +HTTP\/\d(?:\.\d)?\r?$/
const STATUS_LINE = /^HTTP\/\d(?:\.\d)? +\d{3}\b/

/**
 * Detects the format of an input by its content (the name is only a hint for JSON versus YAML):
 * zip magic, raw HTTP text, then the shape of the JSON/YAML value. Throws ERR_IMPORT_INVALID for a
 * `.json`/`.yaml`/`.har` file that does not parse (naming line and column), and
 * ERR_IMPORT_FORMAT_UNKNOWN naming the file, what it looks like when known, and what is accepted.
 *
 * @example
 * detectFormat({ bytes: Buffer.from('{"request":{},"response":{}}'), fileName: 'a.json' }) // 'wiremock'
 */
export function detectFormat(input: ImportInput): ImportFormat | 'zip' {
  const b = input.bytes
  if (isZip(b)) return 'zip'
  const head = decodeText(b.subarray(0, 4096)).replace(/^[\s]+/, '')
  if (head === '' && decodeText(b).trim() === '') throw importInvalid(input.fileName, 'is empty')
  const firstLine = head.split('\n')[0] ?? ''
  if (REQUEST_LINE.test(firstLine) || STATUS_LINE.test(firstLine)) return 'rr'
  // a large HAR is found without parsing it whole: its importer reads it an entry at a time
  if (harLayoutOf(input) !== null) return 'har'
  let value: unknown
  try {
    value = parseStructured(input).value
  } catch (err) {
    // A file that claims to be JSON or YAML is broken; any other file is simply not ours.
    if (/\.(json|ya?ml|har)$/i.test(input.fileName) || !isUnderstudyError(err)) throw err
    throw unknownFormat(input.fileName, 'it is neither JSON nor YAML nor raw HTTP')
  }
  const format = classify(value)
  if (format !== undefined) return format
  throw unknownFormat(input.fileName, lookalike(value))
}

/**
 * True for zip bytes: a local file header, or the end-of-central-directory record that is all an
 * empty archive holds.
 *
 * @example
 * isZip(new Uint8Array([0x50, 0x4b, 3, 4])) // true
 */
export function isZip(b: Uint8Array): boolean {
  return (
    b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6))
  )
}

/**
 * ERR_IMPORT_FORMAT_UNKNOWN naming the file, why, and everything accepted.
 *
 * @example
 * throw unknownFormat('x.bin', 'it is binary')
 */
function unknownFormat(fileName: string, why: string) {
  return createError(
    'ERR_IMPORT_FORMAT_UNKNOWN',
    [`${fileName}: ${why}; expected ${acceptedDescription}`],
    {
      details: [{ path: '', message: why, file: fileName }],
    },
  )
}

/**
 * The format of a parsed JSON/YAML value, or undefined.
 *
 * @example
 * classify({ mappings: [] }) // 'wiremock'
 */
function classify(value: unknown): ImportFormat | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return 'dsl'
    const kinds = value.map(classifyItem)
    if (kinds.some((k) => k === undefined)) return undefined
    return kinds.includes('transactions') ? 'transactions' : 'dsl'
  }
  if (!isObject(value)) return undefined
  // a `log` with creator or version but no entries is a broken HAR: its importer says what is missing
  const log = value['log']
  if (isObject(log) && (Array.isArray(log['entries']) || 'creator' in log || 'version' in log)) {
    return 'har'
  }
  if (typeof value['openapi'] === 'string' || value['swagger'] !== undefined) return 'openapi'
  if (isPostman(value)) return 'postman'
  if (isMockoonEnvironment(value)) return 'mockoon'
  if (
    Array.isArray(value['mappings']) ||
    (isObject(value['request']) &&
      (isObject(value['response']) || value['response'] === undefined) &&
      !('dsl' in value))
  ) {
    return 'wiremock'
  }
  if ('apiVersion' in value && ('result' in value || 'error' in value)) return 'transactions'
  if (Array.isArray(value['transactions'])) return 'dsl'
  return classifyItem(value)
}

/**
 * True for a Mockoon environment (what Mockoon saves and `mockoon-cli start --data` serves).
 *
 * @example
 * isMockoonEnvironment({ lastMigration: 33, routes: [] }) // true
 */
export function isMockoonEnvironment(value: Loose): boolean {
  return 'lastMigration' in value && Array.isArray(value['routes'])
}

function isPostman(value: Loose): boolean {
  const info = value['info']
  if (isObject(info)) {
    if (typeof info['schema'] === 'string' && /getpostman|postman\.com/i.test(info['schema'])) {
      return true
    }
    if (Array.isArray(value['item'])) return true
  }
  // Collection v1: detected so that the Postman importer can say how to convert it
  return (
    Array.isArray(value['requests']) &&
    (Array.isArray(value['order']) || Array.isArray(value['folders']))
  )
}

/** One transaction-like object: an exported record or convert result, or our DSL. */
function classifyItem(value: unknown): 'dsl' | 'transactions' | undefined {
  if (!isObject(value)) return undefined
  if ('requestDsl' in value) return 'nativeId' in value ? 'transactions' : 'dsl'
  if (!isObject(value['dsl'])) return undefined
  // a record read back from the API carries its id and where it belongs
  const exported =
    typeof value['id'] === 'number' &&
    ['serviceId', 'serviceName', 'link', 'created', 'updated'].some((k) => k in value)
  return exported ? 'transactions' : 'dsl'
}

/** A description of well-known formats that are not imported, to make the error useful. */
function lookalike(value: unknown): string {
  if (!isObject(value)) {
    return Array.isArray(value)
      ? 'it is a JSON/YAML list of something else'
      : 'it is a plain value, not a document'
  }
  if (Array.isArray(value['steps']) || typeof value['trigger_url'] === 'string') {
    return 'it looks like an API-monitoring (Runscope) test, which is not a mock definition'
  }
  if ('data' in value && 'meta' in value) {
    return 'it looks like an API-monitoring response envelope {data, meta, error}, not a mock definition'
  }
  if ('api_version' in value && 'result' in value) {
    return 'it looks like an administration (v4) API response envelope, not transactions'
  }
  if (Array.isArray(value['values']) && '_postman_variable_scope' in value) {
    return 'it looks like a Postman environment; import the collection instead'
  }
  const keys = Object.keys(value).slice(0, 6)
  return keys.length === 0
    ? 'it is an empty object'
    : `its top-level keys (${keys.join(', ')}) match no supported format`
}
