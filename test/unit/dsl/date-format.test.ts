import { describe, expect, it } from 'vitest'
import {
  compileDateFormat,
  readDefinition,
  truncateInstant,
  type DateTruncation,
} from '../../../src/dsl/index.js'
import { thrown } from '../fixtures/match.js'

/*
 * The date matchers' options: `dateFormat` (a Java DateTimeFormatter pattern, WireMock's
 * `actualFormat`) compiled once into a parser, and the truncations of `truncateExpected` /
 * `truncateActual` (WireMock's names), in UTC.
 */

function parse(pattern: string, value: string): string | null {
  const format = compileDateFormat(pattern)
  if ('error' in format) throw new Error(format.error)
  const ms = format.parse(value)
  return ms === null ? null : new Date(ms).toISOString()
}

describe('dateFormat', () => {
  it.each([
    ['yyyy-MM-dd', '2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['dd/MM/yyyy', '31/01/2026', '2026-01-31T00:00:00.000Z'],
    ['d/M/yy', '5/1/26', '2026-01-05T00:00:00.000Z'],
    ['dd MMM yyyy', '31 jan 2026', '2026-01-31T00:00:00.000Z'],
    ['MMMM d, yyyy', 'February 3, 2026', '2026-02-03T00:00:00.000Z'],
    ["yyyy-MM-dd'T'HH:mm:ss", '2026-01-31T12:30:15', '2026-01-31T12:30:15.000Z'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", '2026-01-31T12:30:15.250+02:00', '2026-01-31T10:30:15.250Z'],
    ["yyyy-MM-dd'T'HH:mm:ssX", '2026-01-31T12:30:15Z', '2026-01-31T12:30:15.000Z'],
    ["yyyy-MM-dd'T'HH:mm:ssX", '2026-01-31T12:30:15-05', '2026-01-31T17:30:15.000Z'],
    ['EEE, d MMM yyyy HH:mm:ss Z', 'Sat, 31 Jan 2026 12:00:00 +0100', '2026-01-31T11:00:00.000Z'],
    ['hh:mm a dd.MM.yyyy', '02:30 PM 31.01.2026', '2026-01-31T14:30:00.000Z'],
    ['hh:mm a dd.MM.yyyy', '12:05 am 31.01.2026', '2026-01-31T00:05:00.000Z'],
    ['H:mm yyyyMMdd', '7:05 20260131', '2026-01-31T07:05:00.000Z'],
    ["'day' dd 'of' MM yyyy", 'day 31 of 01 2026', '2026-01-31T00:00:00.000Z'],
    ["dd''MM''yyyy", "31'01'2026", '2026-01-31T00:00:00.000Z'],
  ])('%s reads %s', (pattern, value, iso) => {
    expect(parse(pattern, value)).toBe(iso)
  })

  it.each([
    ['dd/MM/yyyy', '2026-01-31'],
    ['dd/MM/yyyy', '31/13/2026'],
    ['dd/MM/yyyy', '30/02/2026'],
    ['dd/MM/yyyy', '31/01/2026 extra'],
    ['HH:mm yyyy', '24:00 2026'],
    ['MMM yyyy', 'Foo 2026'],
  ])('%s does not read %s', (pattern, value) => {
    expect(parse(pattern, value)).toBeNull()
  })

  it.each([
    ['dd/MM/yyyy G', /letter "G" is not supported/],
    ['yyyy-MM-dd VV', /letter "V" is not supported/],
    ['yyyy[-MM]', /optional sections/],
    ["yyyy 'open", /quote that is not closed/],
    ['MMMMM yyyy', /"MMMMM" is not supported/],
    ['--', /reads no date or time field/],
  ])('refuses %s', (pattern, error) => {
    const format = compileDateFormat(pattern)
    expect('error' in format && format.error).toMatch(error)
  })
})

describe('truncations', () => {
  const at = Date.UTC(2024, 1, 17, 13, 45, 30, 500) // 2024-02-17T13:45:30.500Z, a leap year
  it.each<[DateTruncation, string]>([
    ['first_second_of_minute', '2024-02-17T13:45:00.000Z'],
    ['first_minute_of_hour', '2024-02-17T13:00:00.000Z'],
    ['first_hour_of_day', '2024-02-17T00:00:00.000Z'],
    ['first_day_of_month', '2024-02-01T00:00:00.000Z'],
    ['first_day_of_next_month', '2024-03-01T00:00:00.000Z'],
    ['last_day_of_month', '2024-02-29T00:00:00.000Z'],
    ['first_day_of_year', '2024-01-01T00:00:00.000Z'],
    ['first_day_of_next_year', '2025-01-01T00:00:00.000Z'],
    ['last_day_of_year', '2024-12-31T00:00:00.000Z'],
  ])('%s', (truncation, iso) => {
    expect(new Date(truncateInstant(at, truncation)).toISOString()).toBe(iso)
  })

  it('last_day_of_month from the 31st of a month followed by a shorter one', () => {
    const jan31 = Date.UTC(2026, 0, 31, 10)
    expect(new Date(truncateInstant(jan31, 'last_day_of_month')).toISOString()).toBe(
      '2026-01-31T00:00:00.000Z',
    )
    expect(new Date(truncateInstant(jan31, 'first_day_of_next_month')).toISOString()).toBe(
      '2026-02-01T00:00:00.000Z',
    )
  })
})

describe('the DSL options of the date matchers', () => {
  const headerMatcher = (extra: Record<string, unknown>, name = 'before_date'): unknown => ({
    requestDsl: {
      headers: [{ key: 'X-When', matcherName: name, matchingValue: 'now', ...extra }],
    },
    responseDsl: {},
  })

  it('are read', () => {
    const read = readDefinition(
      headerMatcher({
        dateFormat: 'dd/MM/yyyy',
        truncateExpected: 'first_day_of_month',
        truncateActual: 'first_hour_of_day',
      }),
    )
    expect(JSON.stringify(read)).toContain('"dateFormat":"dd/MM/yyyy"')
  })

  it('refuse a pattern with letters not read, a truncation not known, and options on other matchers', () => {
    const paths = (value: unknown): string[] =>
      (thrown(() => readDefinition(value)).details as Array<{ path: string }>).map((d) => d.path)
    expect(paths(headerMatcher({ dateFormat: 'yyyy G' }))).toEqual([
      '/requestDsl/headers/0/dateFormat',
    ])
    expect(paths(headerMatcher({ truncateActual: 'first_week' }))).toEqual([
      '/requestDsl/headers/0/truncateActual',
    ])
    expect(paths(headerMatcher({ dateFormat: 'yyyy' }, 'equals'))).toEqual([
      '/requestDsl/headers/0/dateFormat',
    ])
  })
})
