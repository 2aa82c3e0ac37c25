import {
  compileDateFormat,
  truncateInstant,
  type DateTruncation,
  type Matcher,
} from '../dsl/index.js'

/** Units of a relative expected date (`now +3 days`), as WireMock names them. */
const units: Record<string, (date: Date, n: number) => void> = {
  milliseconds: (d, n) => d.setTime(d.getTime() + n),
  seconds: (d, n) => d.setTime(d.getTime() + n * 1000),
  minutes: (d, n) => d.setTime(d.getTime() + n * 60_000),
  hours: (d, n) => d.setTime(d.getTime() + n * 3_600_000),
  days: (d, n) => d.setTime(d.getTime() + n * 86_400_000),
  months: (d, n) => d.setUTCMonth(d.getUTCMonth() + n),
  years: (d, n) => d.setUTCFullYear(d.getUTCFullYear() + n),
}

const relative = /^now(?:\s*([+-])\s*(\d+)\s*([a-z]+?)s?)?$/i

/** When an expected date is, in epoch milliseconds: fixed, or relative to the request's arrival. */
type ExpectedInstant = () => number

/**
 * The expected value of `before_date`, `after_date` and `equals_date`, read once at load: an
 * ISO-8601 date-time (without a zone it is UTC; a date alone is its midnight UTC), or `now`
 * optionally shifted (`now +3 days`, `now -15 minutes`; seconds to years, singular or plural),
 * which is evaluated per request. An error message when it is neither.
 *
 * @example
 * const at = expectedInstant('now -1 hours'); if (typeof at !== 'string') at() // an hour ago
 */
export function expectedInstant(
  text: string,
  truncation?: DateTruncation,
): ExpectedInstant | string {
  const rel = relative.exec(text.trim())
  if (rel !== null) {
    if (rel[1] === undefined) {
      return truncation === undefined
        ? () => Date.now()
        : () => truncateInstant(Date.now(), truncation)
    }
    const shift = units[`${(rel[3] ?? '').toLowerCase()}s`]
    if (shift === undefined) {
      return `unknown unit "${rel[3] ?? ''}" (seconds, minutes, hours, days, months, years)`
    }
    const n = Number(rel[2]) * (rel[1] === '-' ? -1 : 1)
    // As WireMock does by default: truncated first, then shifted.
    return () => {
      const d = new Date(
        truncation === undefined ? Date.now() : truncateInstant(Date.now(), truncation),
      )
      shift(d, n)
      return d.getTime()
    }
  }
  const given = instantOf(text)
  if (given === null) {
    return 'must be an ISO-8601 date-time (2026-01-31T12:00:00Z) or "now" with an optional offset ("now +3 days")'
  }
  const fixed = truncation === undefined ? given : truncateInstant(given, truncation)
  return () => fixed
}

/**
 * How a request's value becomes an instant: read as ISO-8601 or an HTTP date, or with the
 * matcher's `dateFormat` (compiled here, once), then truncated as `truncateActual` asks. An
 * error message when the format cannot be read.
 *
 * @example
 * const read = actualInstant({ dateFormat: 'dd/MM/yyyy' }); typeof read !== 'string' && read('31/01/2026')
 */
export function actualInstant(
  options: Pick<Matcher, 'dateFormat' | 'truncateActual'>,
): ((value: string) => number | null) | string {
  let read: (value: string) => number | null = instantOf
  if (options.dateFormat !== undefined) {
    const format = compileDateFormat(options.dateFormat)
    if ('error' in format) return `dateFormat ${format.error}`
    read = format.parse
  }
  const truncation = options.truncateActual
  if (truncation === undefined) return read
  return (value) => {
    const ms = read(value)
    return ms === null ? null : truncateInstant(ms, truncation)
  }
}

const isoDate = /^\d{4}-\d{2}-\d{2}$/
const isoLocal = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/

/**
 * A request's date-time value in epoch milliseconds, or null when it is not one: ISO-8601 (without
 * a zone: UTC) or an HTTP date (RFC 1123, as in `If-Modified-Since`).
 */
function instantOf(value: string): number | null {
  const text = value.trim()
  if (text === '' || text.length > 64) return null
  const normalized = isoDate.test(text)
    ? `${text}T00:00:00Z`
    : isoLocal.test(text)
      ? `${text}Z`
      : text
  // Date.parse reads more than ISO and HTTP dates (`1`, `March 7`): accept only strings that
  // look like one of the two, so that a number is never read as a year.
  if (
    !/^\d{4}-\d{2}-\d{2}T/.test(normalized) &&
    !/^[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} /.test(normalized)
  ) {
    return null
  }
  const ms = Date.parse(normalized)
  return Number.isNaN(ms) ? null : ms
}
