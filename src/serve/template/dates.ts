/**
 * Dates of the `now` and `dateFormat` helpers, as WireMock's templating writes them: a format of
 * Java-style letters (`yyyy-MM-dd'T'HH:mm:ss`), `epoch` (ms) or `unix` (s), and an offset such as
 * `3 days` or `-1 hours`. All in UTC unless `timezone` is `local`.
 */

const unitMs: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
}

/** Applies an offset like `3 days`, `-10 seconds`, `1 months`, `2 years`. Throws on a bad one. */
export function applyOffset(date: Date, offset: string): Date {
  const m = /^\s*([+-]?\d+)\s*([a-zA-Z]+)\s*$/.exec(offset)
  if (m === null) throw new Error(`offset "${offset}" is not like "3 days" or "-1 hours"`)
  const amount = Number(m[1])
  const unit = (m[2] as string).toLowerCase()
  const out = new Date(date.getTime())
  if (unit === 'month' || unit === 'months') out.setUTCMonth(out.getUTCMonth() + amount)
  else if (unit === 'year' || unit === 'years') out.setUTCFullYear(out.getUTCFullYear() + amount)
  else {
    const ms = unitMs[unit]
    if (ms === undefined) throw new Error(`unknown offset unit "${m[2] as string}"`)
    out.setTime(out.getTime() + amount * ms)
  }
  return out
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0')
const monthNames = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
]
const dayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/** Formats a date; without a format, ISO 8601. */
export function formatDate(date: Date, format: string | undefined): string {
  // An offset like `9999999999 years` leaves the range of dates (±275,760 years).
  if (Number.isNaN(date.getTime())) throw new Error('the date is out of range')
  if (format === undefined || format === '') return date.toISOString()
  if (format === 'epoch') return String(date.getTime())
  if (format === 'unix') return String(Math.floor(date.getTime() / 1000))
  // Letters runs are fields, '...' is literal text, and '' a quote, inside a literal too (o''clock).
  return format.replace(
    /'((?:[^']|'')*)'|y+|M+|d+|H+|h+|m+|s+|S+|E+|a|Z|X+/g,
    (token, literal: string | undefined) => {
      if (literal !== undefined) return literal === '' ? "'" : literal.replaceAll("''", "'")
      const c = token[0] ?? ''
      const n = token.length
      switch (c) {
        case 'y':
          return n === 2 ? pad(date.getUTCFullYear() % 100, 2) : pad(date.getUTCFullYear(), 4)
        case 'M':
          return n >= 3
            ? (monthNames[date.getUTCMonth()] as string)
            : pad(date.getUTCMonth() + 1, n)
        case 'd':
          return pad(date.getUTCDate(), n)
        case 'H':
          return pad(date.getUTCHours(), n)
        case 'h':
          return pad(date.getUTCHours() % 12 === 0 ? 12 : date.getUTCHours() % 12, n)
        case 'm':
          return pad(date.getUTCMinutes(), n)
        case 's':
          return pad(date.getUTCSeconds(), n)
        case 'S':
          return pad(date.getUTCMilliseconds(), 3).slice(0, n)
        case 'E':
          return dayNames[date.getUTCDay()] as string
        case 'a':
          return date.getUTCHours() < 12 ? 'AM' : 'PM'
        case 'Z':
          return '+0000'
        default:
          return 'Z'
      }
    },
  )
}

/** Parses a date given as ISO text, epoch milliseconds, or a Date. Throws when it is none. */
export function parseDate(value: unknown): Date {
  if (value instanceof Date) return value
  const date =
    typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))
      ? new Date(Number(value))
      : new Date(String(value))
  if (Number.isNaN(date.getTime())) throw new Error(`"${String(value)}" is not a date`)
  return date
}
