import picomatch from 'picomatch'
import { createError } from '../errors/index.js'
import type { InspectionRecord } from './record.js'

/**
 * Which inspection records a query or a verification is about. Every field is optional; an empty
 * filter selects every record. `path` is a glob (picomatch: `*` within a segment, `**` across
 * segments) on the path without its query string; `status` is a code (`404`) or a class (`4xx`);
 * `transaction` is a transaction's name or id; `from` and `to` are epoch milliseconds or ISO
 * times, both inclusive.
 */
export interface InspectionFilter {
  method?: string
  path?: string
  matched?: boolean
  status?: number | string
  transaction?: string | number
  from?: number | string
  to?: number | string
}

/** A filter compiled once for a scan: one test per record. */
type RecordTest = (record: InspectionRecord) => boolean

/** The query parameters `filterFromQuery` reads. */
export const filterParams = [
  'method',
  'path',
  'matched',
  'status',
  'transaction',
  'from',
  'to',
] as const

/**
 * Reads a filter from query parameters (`?method=GET&path=/pets/*&matched=false`). Throws
 * ERR_API_VALIDATION naming the parameter when one is malformed.
 *
 * @example
 * filterFromQuery(new URLSearchParams('matched=false&status=4xx')) // { matched: false, status: '4xx' }
 */
export function filterFromQuery(query: URLSearchParams): InspectionFilter {
  const filter: InspectionFilter = {}
  const method = query.get('method')
  if (method !== null && method !== '') filter.method = method
  const path = query.get('path')
  if (path !== null && path !== '') filter.path = path
  const matched = query.get('matched')
  if (matched !== null && matched !== '') {
    if (matched !== 'true' && matched !== 'false') throw invalid('matched', 'must be true or false')
    filter.matched = matched === 'true'
  }
  const status = query.get('status')
  if (status !== null && status !== '') filter.status = status
  const transaction = query.get('transaction')
  if (transaction !== null && transaction !== '') filter.transaction = transaction
  const from = query.get('from')
  if (from !== null && from !== '') filter.from = from
  const to = query.get('to')
  if (to !== null && to !== '') filter.to = to
  compileFilter(filter) // refuses malformed values now, with the parameter's name
  return filter
}

/**
 * Compiles a filter into one test (globs and times parsed once). Throws ERR_API_VALIDATION naming
 * the field when a value is malformed.
 *
 * @example
 * compileFilter({ method: 'post', path: '/orders/**' })(record) // true for POST /orders/1/items
 */
export function compileFilter(filter: InspectionFilter): RecordTest {
  const tests: RecordTest[] = []
  if (filter.method !== undefined) {
    if (typeof filter.method !== 'string') throw invalid('method', 'must be a string')
    const method = filter.method.toUpperCase()
    tests.push((r) => r.method === method)
  }
  if (filter.path !== undefined) {
    if (typeof filter.path !== 'string' || filter.path === '') {
      throw invalid('path', 'must be a non-empty glob')
    }
    const glob = picomatch(filter.path, { dot: true })
    tests.push((r) => glob(pathOf(r.url)))
  }
  if (filter.matched !== undefined) {
    if (typeof filter.matched !== 'boolean') throw invalid('matched', 'must be true or false')
    const matched = filter.matched
    tests.push((r) => r.matched === matched)
  }
  if (filter.status !== undefined) tests.push(statusTest(filter.status))
  if (filter.transaction !== undefined) {
    const wanted = String(filter.transaction)
    if (wanted === '') throw invalid('transaction', 'must be a transaction name or id')
    tests.push(
      (r) =>
        r.respondingTxn === wanted ||
        (r.transactionId !== null && String(r.transactionId) === wanted),
    )
  }
  if (filter.from !== undefined) {
    const from = timeOf('from', filter.from)
    tests.push((r) => r.timestamp >= from)
  }
  if (filter.to !== undefined) {
    const to = timeOf('to', filter.to)
    tests.push((r) => r.timestamp <= to)
  }
  if (tests.length === 0) return () => true
  return (r) => {
    for (const test of tests) if (!test(r)) return false
    return true
  }
}

/**
 * Which fields of a filter a record fails, for a verification's "what did not match".
 *
 * @example
 * failedFields({ method: 'POST' }, getRecord) // ['method']
 */
export function failedFields(filter: InspectionFilter, record: InspectionRecord): string[] {
  const failed: string[] = []
  for (const field of filterParams) {
    if (filter[field] === undefined) continue
    if (!compileFilter({ [field]: filter[field] })(record)) failed.push(field)
  }
  return failed
}

function statusTest(status: number | string): RecordTest {
  const text = String(status).toLowerCase()
  if (/^[1-5]xx$/.test(text)) {
    const hundred = Number(text[0]) * 100
    return (r) => r.statusCode >= hundred && r.statusCode < hundred + 100
  }
  if (/^[1-5]\d\d$/.test(text)) {
    const code = Number(text)
    return (r) => r.statusCode === code
  }
  throw invalid('status', 'must be a status code such as 404 or a class such as 4xx')
}

function timeOf(field: string, value: number | string): number {
  const time = typeof value === 'number' || /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(time)) throw invalid(field, 'must be epoch milliseconds or an ISO 8601 time')
  return time
}

function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

function invalid(field: string, message: string) {
  return createError('ERR_API_VALIDATION', [`${field} ${message}`], {
    details: [{ path: `/${field}`, message }],
  })
}
