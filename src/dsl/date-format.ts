/**
 * Date-time patterns as Java's `DateTimeFormatter` writes them (WireMock's `actualFormat`),
 * compiled once into a parser: one anchored regular expression and the arithmetic that turns its
 * groups into an instant. Only the common letters are understood; a pattern using another is
 * refused when it is compiled, never read differently.
 */

/** Turns a request's value into epoch milliseconds, or null when it does not fit the pattern. */
type DateParser = (value: string) => number | null

/** A compiled pattern, or why it cannot be. */
type DateFormatResult = { parse: DateParser } | { error: string }

const monthsShort = [
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
]
const monthsLong = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
const daysShort = 'mon|tue|wed|thu|fri|sat|sun'
const daysLong = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday'

/** The fields a pattern can set; what it leaves out is 1970, January, the 1st, midnight, UTC. */
interface Fields {
  year: number
  month: number
  day: number
  hour: number
  hour12: number | null
  pm: boolean | null
  minute: number
  second: number
  millis: number
  /** Minutes east of UTC. */
  offset: number
}

type Assign = (fields: Fields, text: string) => boolean

/** One letter run of a pattern: the regex it reads and how the match sets a field. */
interface Piece {
  source: string
  assign: Assign | null
}

const digits = (min: number, max: number): string =>
  min === max ? `\\d{${min}}` : `\\d{${min},${max}}`

function numeric(
  min: number,
  max: number,
  set: (f: Fields, n: number) => void,
  low: number,
  high: number,
): Piece {
  return {
    source: `(${digits(min, max)})`,
    assign: (f, text) => {
      const n = Number(text)
      if (n < low || n > high) return false
      set(f, n)
      return true
    },
  }
}

/** `+0100`, `+01:00`, `+01`, or `Z` (when `zulu`), as minutes east of UTC. */
function offsetPiece(shape: 'hhmm' | 'hh:mm' | 'hh(mm)?', zulu: boolean): Piece {
  const body =
    shape === 'hhmm'
      ? '[+-]\\d{4}'
      : shape === 'hh:mm'
        ? '[+-]\\d{2}:\\d{2}'
        : '[+-]\\d{2}(?:\\d{2})?'
  return {
    source: `(${zulu ? `Z|${body}` : body})`,
    assign: (f, text) => {
      if (text === 'Z') {
        f.offset = 0
        return true
      }
      const sign = text.startsWith('-') ? -1 : 1
      const plain = text.slice(1).replace(':', '')
      const hours = Number(plain.slice(0, 2))
      const minutes = plain.length > 2 ? Number(plain.slice(2, 4)) : 0
      if (hours > 18 || minutes > 59) return false
      f.offset = sign * (hours * 60 + minutes)
      return true
    },
  }
}

function names(list: readonly string[], set: (f: Fields, index: number) => void): Piece {
  return {
    source: `(${list.join('|')})`,
    assign: (f, text) => {
      set(f, list.indexOf(text.toLowerCase()))
      return true
    },
  }
}

/** The piece a run of one letter stands for; a string when the letter or its width is not understood. */
function pieceOf(letter: string, width: number): Piece | string {
  switch (letter) {
    case 'y':
    case 'u':
      if (width === 2) {
        // Java's two-digit year: 2000 to 2099.
        return numeric(2, 2, (f, n) => (f.year = 2000 + n), 0, 99)
      }
      return numeric(width === 1 ? 1 : width, 9, (f, n) => (f.year = n), 0, 999_999_999)
    case 'M':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.month = n), 1, 12)
      if (width === 3) return names(monthsShort, (f, i) => (f.month = i + 1))
      if (width === 4) return names(monthsLong, (f, i) => (f.month = i + 1))
      break
    case 'd':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.day = n), 1, 31)
      break
    case 'H':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.hour = n), 0, 23)
      break
    case 'h':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.hour12 = n), 1, 12)
      break
    case 'm':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.minute = n), 0, 59)
      break
    case 's':
      if (width <= 2) return numeric(width, 2, (f, n) => (f.second = n), 0, 59)
      break
    case 'S':
      if (width <= 9) {
        return {
          source: `(\\d{${width}})`,
          assign: (f, text) => {
            f.millis = Math.floor(Number(`0.${text}`) * 1000 + 1e-6)
            return true
          },
        }
      }
      break
    case 'a':
      if (width === 1) {
        return {
          source: '(am|pm)',
          assign: (f, text) => {
            f.pm = text.toLowerCase() === 'pm'
            return true
          },
        }
      }
      break
    case 'E':
      // The day's name is read, not checked against the date (the date says which day it is).
      if (width <= 3) return { source: `(?:${daysShort})`, assign: null }
      if (width === 4) return { source: `(?:${daysLong})`, assign: null }
      break
    case 'Z':
      if (width <= 3) return offsetPiece('hhmm', false)
      if (width === 5) return offsetPiece('hh:mm', true)
      break
    case 'X':
      if (width === 1) return offsetPiece('hh(mm)?', true)
      if (width === 2 || width === 4) return offsetPiece('hhmm', true)
      if (width === 3 || width === 5) return offsetPiece('hh:mm', true)
      break
    case 'x':
      if (width === 1) return offsetPiece('hh(mm)?', false)
      if (width === 2 || width === 4) return offsetPiece('hhmm', false)
      if (width === 3 || width === 5) return offsetPiece('hh:mm', false)
      break
    default:
      return `letter "${letter}" is not supported (supported: y u M d H h m s S a E Z X x and 'quoted text')`
  }
  return `"${letter.repeat(width)}" is not supported (a width of ${width} for "${letter}")`
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Compiles a `DateTimeFormatter` pattern (`dd/MM/yyyy`, `yyyy-MM-dd'T'HH:mm:ssXXX`,
 * `EEE, d MMM yyyy HH:mm:ss Z`) into a parser of request values. Without a zone in the pattern
 * the value is read as UTC; without a time, as midnight. Names (months, days, AM/PM) are read
 * in English, in any case.
 *
 * @example
 * const r = compileDateFormat('dd/MM/yyyy'); 'parse' in r && r.parse('31/01/2026') // 1769817600000
 */
export function compileDateFormat(pattern: string): DateFormatResult {
  const pieces: Piece[] = []
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i] ?? ''
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1)
      if (end === -1) return { error: 'has a quote that is not closed' }
      // '' is a quote itself
      const literal = end === i + 1 ? "'" : pattern.slice(i + 1, end)
      pieces.push({ source: escapeRegex(literal), assign: null })
      i = end + 1
      continue
    }
    if (/[A-Za-z]/.test(c)) {
      let width = 1
      while (pattern[i + width] === c) width++
      const piece = pieceOf(c, width)
      if (typeof piece === 'string') return { error: piece }
      pieces.push(piece)
      i += width
      continue
    }
    if (c === '[' || c === ']' || c === '#' || c === '{' || c === '}') {
      return { error: `"${c}" (optional sections and reserved characters) is not supported` }
    }
    pieces.push({ source: escapeRegex(c), assign: null })
    i++
  }
  if (pieces.every((p) => p.assign === null)) return { error: 'reads no date or time field' }
  const regex = new RegExp(`^${pieces.map((p) => p.source).join('')}$`, 'i')
  const assigns = pieces.flatMap((p) => (p.assign === null ? [] : [p.assign]))
  return {
    parse: (value) => {
      const m = regex.exec(value.trim())
      if (m === null) return null
      const f: Fields = {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        hour12: null,
        pm: null,
        minute: 0,
        second: 0,
        millis: 0,
        offset: 0,
      }
      for (let g = 0; g < assigns.length; g++) {
        if (!(assigns[g] as Assign)(f, m[g + 1] ?? '')) return null
      }
      if (f.hour12 !== null) f.hour = (f.hour12 % 12) + (f.pm === true ? 12 : 0)
      // 31 February is not a date (Date.UTC would roll it into March).
      if (f.day > new Date(Date.UTC(f.year, f.month, 0)).getUTCDate()) return null
      const utc = new Date(0)
      utc.setUTCFullYear(f.year, f.month - 1, f.day)
      utc.setUTCHours(f.hour, f.minute, f.second, f.millis)
      return utc.getTime() - f.offset * 60_000
    },
  }
}

/**
 * How a date is truncated before it is compared (WireMock's `truncateExpected`/`truncateActual`),
 * in UTC.
 */
export const dateTruncations = {
  first_second_of_minute: (d: Date) => d.setUTCSeconds(0, 0),
  first_minute_of_hour: (d: Date) => d.setUTCMinutes(0, 0, 0),
  first_hour_of_day: (d: Date) => d.setUTCHours(0, 0, 0, 0),
  first_day_of_month: (d: Date) => d.setUTCDate(1) + d.setUTCHours(0, 0, 0, 0),
  first_day_of_next_month: (d: Date) =>
    d.setUTCMonth(d.getUTCMonth() + 1, 1) + d.setUTCHours(0, 0, 0, 0),
  last_day_of_month: (d: Date) => d.setUTCMonth(d.getUTCMonth() + 1, 0) + d.setUTCHours(0, 0, 0, 0),
  first_day_of_year: (d: Date) => d.setUTCMonth(0, 1) + d.setUTCHours(0, 0, 0, 0),
  first_day_of_next_year: (d: Date) =>
    d.setUTCFullYear(d.getUTCFullYear() + 1, 0, 1) + d.setUTCHours(0, 0, 0, 0),
  last_day_of_year: (d: Date) => d.setUTCMonth(11, 31) + d.setUTCHours(0, 0, 0, 0),
} satisfies Record<string, (d: Date) => number>

export type DateTruncation = keyof typeof dateTruncations

export const dateTruncationNames = Object.keys(dateTruncations) as DateTruncation[]

/**
 * An instant truncated as named.
 *
 * @example
 * truncateInstant(Date.UTC(2026, 0, 31, 12, 30), 'first_day_of_month') // Date.UTC(2026, 0, 1)
 */
export function truncateInstant(ms: number, truncation: DateTruncation): number {
  const d = new Date(ms)
  dateTruncations[truncation](d)
  return d.getTime()
}
