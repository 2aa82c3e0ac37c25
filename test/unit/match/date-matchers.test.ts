import { describe, expect, it } from 'vitest'
import { matchName, only, onPart, request, thrown } from '../fixtures/match.js'

// before_date, after_date, equals_date (WireMock's before, after, equalToDateTime): the value, an
// ISO-8601 or HTTP date, compared with a fixed instant or one relative to the request's arrival.

const header = (value: string): ReturnType<typeof request> =>
  request('GET', '/', { 'x-when': value })

describe('date matchers', () => {
  it('compare with a fixed instant, ISO-8601 with or without a zone, or an HTTP date', () => {
    const before = onPart('headers', {
      key: 'X-When',
      matcherName: 'before_date',
      matchingValue: '2026-06-01T00:00:00Z',
    })
    expect(matchName(before, header('2026-05-31T23:59:59Z'))).toBe('it')
    expect(matchName(before, header('2026-06-01T00:00:00Z'))).toBeUndefined()
    expect(matchName(before, header('2026-06-01T01:00:00+02:00'))).toBe('it')
    expect(matchName(before, header('Sun, 31 May 2026 10:00:00 GMT'))).toBe('it')
    expect(matchName(before, header('2026-05-31'))).toBe('it')
    expect(matchName(before, header('not a date'))).toBeUndefined()
    expect(matchName(before, header('1'))).toBeUndefined()
    const after = onPart('headers', {
      key: 'X-When',
      matcherName: 'after_date',
      matchingValue: '2026-06-01T00:00:00',
    })
    expect(matchName(after, header('2026-06-01T00:00:01Z'))).toBe('it')
    expect(matchName(after, header('2026-05-01T00:00:00Z'))).toBeUndefined()
    const equal = onPart('headers', {
      key: 'X-When',
      matcherName: 'equals_date',
      matchingValue: '2026-06-01T02:00:00+02:00',
    })
    expect(matchName(equal, header('2026-06-01T00:00:00.000Z'))).toBe('it')
    expect(matchName(equal, header('2026-06-01T00:00:00.001Z'))).toBeUndefined()
  })

  it('compare with now, shifted by an offset, when the request arrives', () => {
    const future = onPart('headers', {
      key: 'X-When',
      matcherName: 'after_date',
      matchingValue: 'now +1 days',
    })
    const iso = (ms: number): string => new Date(ms).toISOString()
    expect(matchName(future, header(iso(Date.now() + 2 * 86_400_000)))).toBe('it')
    expect(matchName(future, header(iso(Date.now() + 3_600_000)))).toBeUndefined()
    const recent = onPart('headers', {
      key: 'X-When',
      matcherName: 'after_date',
      matchingValue: 'now -15 minutes',
    })
    expect(matchName(recent, header(iso(Date.now() - 60_000)))).toBe('it')
    expect(matchName(recent, header(iso(Date.now() - 3_600_000)))).toBeUndefined()
    const past = onPart('body', {
      key: '$.dob',
      matcherName: 'before_date',
      matchingValue: 'now -18 years',
    })
    expect(
      matchName(
        past,
        request('POST', '/', { 'content-type': 'application/json' }, '{"dob":"1990-01-01"}'),
      ),
    ).toBe('it')
    expect(
      matchName(
        past,
        request(
          'POST',
          '/',
          { 'content-type': 'application/json' },
          `{"dob":"${new Date().getUTCFullYear() - 1}-01-01"}`,
        ),
      ),
    ).toBeUndefined()
  })

  it('refuse at load an expected value that is no date', () => {
    for (const value of ['tomorrow', 'now +3 fortnights', '']) {
      const error = thrown(() =>
        onPart('headers', { key: 'X-When', matcherName: 'before_date', matchingValue: value }),
      )
      expect(error.code).toBe('ERR_DSL_INVALID')
      expect(JSON.stringify(error.details)).toContain('matchingValue')
    }
  })
})

describe('date matchers on the URL', () => {
  it('are refused: a path is no date', () => {
    const onUrl = thrown(() => only({ url: { matcherName: 'before_date', matchingValue: 'now' } }))
    expect(onUrl.code).toBe('ERR_DSL_INVALID')
    expect(JSON.stringify(onUrl.details)).toContain('cannot apply to the URL')
  })
})
