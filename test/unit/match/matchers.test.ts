import { describe, expect, it } from 'vitest'
import type { MatcherInput, MatcherName } from '../../../src/dsl/index.js'
import { prepareMultipart, type MatchRequest } from '../../../src/match/index.js'
import { matchName, multipart, onPart, only, request } from '../fixtures/match.js'

/*
 * Every string matcher, positive and negative, on every request part it applies to
 * (docs/architecture.md#matching). Each part says how to carry a value under the key `thing`, and how to
 * leave it out; the value is always `Hello-42`.
 */

const VALUE = 'Hello-42'
const BOUNDARY = 'XyZ'

interface PartCase {
  label: string
  dslPart: 'headers' | 'queryParams' | 'cookies' | 'body'
  key: string | undefined
  carrying: () => Promise<MatchRequest>
  lacking: () => Promise<MatchRequest>
}

const form = { 'content-type': 'application/x-www-form-urlencoded' }
const multipartType = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }

const parts: PartCase[] = [
  {
    label: 'a header',
    dslPart: 'headers',
    key: 'X-Thing',
    carrying: async () => request('GET', '/', { 'x-thing': VALUE }),
    lacking: async () => request('GET', '/', { 'x-other': VALUE }),
  },
  {
    label: 'a query parameter',
    dslPart: 'queryParams',
    key: 'thing',
    carrying: async () => request('GET', `/?thing=${VALUE}`),
    lacking: async () => request('GET', `/?other=${VALUE}`),
  },
  {
    label: 'a cookie',
    dslPart: 'cookies',
    key: 'thing',
    carrying: async () => request('GET', '/', { cookie: `other=1; thing=${VALUE}` }),
    lacking: async () => request('GET', '/', { cookie: `other=${VALUE}` }),
  },
  {
    label: 'the whole body',
    dslPart: 'body',
    key: undefined,
    carrying: async () => request('POST', '/', {}, VALUE),
    lacking: async () => request('POST', '/', {}, null),
  },
  {
    label: 'a JSONPath selection of the body',
    dslPart: 'body',
    key: '$.thing',
    carrying: async () => request('POST', '/', {}, JSON.stringify({ thing: VALUE, other: 1 })),
    lacking: async () => request('POST', '/', {}, JSON.stringify({ other: VALUE })),
  },
  {
    label: 'an XPath selection of the body',
    dslPart: 'body',
    key: '/doc/thing',
    carrying: async () =>
      request('POST', '/', {}, `<doc><other>1</other><thing>${VALUE}</thing></doc>`),
    lacking: async () => request('POST', '/', {}, `<doc><other>${VALUE}</other></doc>`),
  },
  {
    label: 'an urlencoded form field',
    dslPart: 'body',
    key: 'thing',
    carrying: async () => request('POST', '/', form, `other=1&thing=${VALUE}`),
    lacking: async () => request('POST', '/', form, `other=${VALUE}`),
  },
  {
    label: 'a multipart form field',
    dslPart: 'body',
    key: 'thing',
    carrying: async () => {
      const req = request(
        'POST',
        '/',
        multipartType,
        multipart(BOUNDARY, [
          { name: 'other', value: '1' },
          { name: 'thing', value: VALUE },
        ]),
      )
      await prepareMultipart(req)
      return req
    },
    lacking: async () => {
      const req = request(
        'POST',
        '/',
        multipartType,
        multipart(BOUNDARY, [{ name: 'other', value: VALUE }]),
      )
      await prepareMultipart(req)
      return req
    },
  },
]

interface ValueCase {
  matcherName: MatcherName
  holds: string
  fails: string
}

/** For each string matcher, a matchingValue that holds on `Hello-42` and one that does not. */
const valueCases: ValueCase[] = [
  { matcherName: 'equals', holds: 'Hello-42', fails: 'hello-42' },
  { matcherName: 'equals_insensitive', holds: 'hELLO-42', fails: 'hello-4' },
  { matcherName: 'contains', holds: 'llo-4', fails: 'llo-5' },
  { matcherName: 'matches', holds: 'H[a-z]+-\\d+', fails: 'H[a-z]+' },
  { matcherName: 'matches_url', holds: '(?i)hello-[0-9]{2}', fails: 'hello-[0-9]{2}' },
  { matcherName: 'not_matches', holds: '[a-z]+', fails: 'H.*' },
]

function matcher(
  part: PartCase,
  matcherName: MatcherName,
  matchingValue: string,
  optional?: boolean,
): MatcherInput {
  const out: MatcherInput = { matcherName, matchingValue }
  if (part.key !== undefined) out.key = part.key
  if (optional !== undefined) out.optional = optional
  return out
}

describe.each(parts)('on $label', (part) => {
  it.each(valueCases)(
    '$matcherName holds when the value satisfies it',
    async ({ matcherName, holds }) => {
      const m = onPart(part.dslPart, matcher(part, matcherName, holds))
      expect(matchName(m, await part.carrying())).toBe('it')
    },
  )

  it.each(valueCases)(
    '$matcherName fails when the value does not satisfy it',
    async ({ matcherName, fails }) => {
      const m = onPart(part.dslPart, matcher(part, matcherName, fails))
      expect(matchName(m, await part.carrying())).toBeUndefined()
    },
  )

  it.each(valueCases)(
    '$matcherName fails when the item is missing',
    async ({ matcherName, holds, fails }) => {
      // not_matches included: every matcher but absent requires the item to be present
      const value = matcherName === 'not_matches' ? holds : fails
      const m = onPart(part.dslPart, matcher(part, matcherName, value))
      expect(matchName(m, await part.lacking())).toBeUndefined()
    },
  )

  it.each(valueCases)(
    '$matcherName with optional: true holds when the item is missing',
    async ({ matcherName, holds }) => {
      const m = onPart(part.dslPart, matcher(part, matcherName, holds, true))
      expect(matchName(m, await part.lacking())).toBe('it')
    },
  )

  it.each(valueCases)(
    '$matcherName with optional: true still checks an item that is present',
    async ({ matcherName, fails }) => {
      const m = onPart(part.dslPart, matcher(part, matcherName, fails, true))
      expect(matchName(m, await part.carrying())).toBeUndefined()
    },
  )

  it('absent holds when the item is missing', async () => {
    const absent: MatcherInput =
      part.key === undefined ? { matcherName: 'absent' } : { key: part.key, matcherName: 'absent' }
    expect(matchName(onPart(part.dslPart, absent), await part.lacking())).toBe('it')
  })

  it('absent fails when the item is present', async () => {
    const absent: MatcherInput =
      part.key === undefined ? { matcherName: 'absent' } : { key: part.key, matcherName: 'absent' }
    expect(matchName(onPart(part.dslPart, absent), await part.carrying())).toBeUndefined()
  })
})

describe('absent with an empty key', () => {
  it.each([
    {
      dslPart: 'headers' as const,
      carrying: request('GET', '/', { 'x-thing': '1' }),
      lacking: request('GET', '/'),
    },
    {
      dslPart: 'queryParams' as const,
      carrying: request('GET', '/?X-Thing=1'),
      lacking: request('GET', '/?x-thing=1'),
    },
    {
      dslPart: 'cookies' as const,
      carrying: request('GET', '/', { cookie: 'X-Thing=1' }),
      lacking: request('GET', '/', { cookie: 'x=1' }),
    },
    {
      dslPart: 'body' as const,
      carrying: request('POST', '/', form, 'X-Thing=1'),
      lacking: request('POST', '/', form, 'other=1'),
    },
  ])('names the $dslPart item in matchingValue', ({ dslPart, carrying, lacking }) => {
    const m = onPart(dslPart, { key: '', matcherName: 'absent', matchingValue: 'X-Thing' })
    expect(matchName(m, lacking)).toBe('it')
    expect(matchName(m, carrying)).toBeUndefined()
  })

  it('lets a named key win over matchingValue', () => {
    const m = onPart('headers', { key: 'x-a', matcherName: 'absent', matchingValue: 'x-b' })
    expect(matchName(m, request('GET', '/', { 'x-b': '1' }))).toBe('it')
    expect(matchName(m, request('GET', '/', { 'x-a': '1' }))).toBeUndefined()
  })
})

describe('on the url', () => {
  const path = '/Hello-42'
  it.each([
    { matcherName: 'equals_url' as const, holds: '/Hello-42', fails: '/hello-42' },
    { matcherName: 'equals' as const, holds: '/Hello-42', fails: '/Hello' },
    { matcherName: 'equals_insensitive' as const, holds: '/HELLO-42', fails: '/HELLO' },
    { matcherName: 'contains' as const, holds: 'llo-4', fails: 'llo-5' },
    { matcherName: 'matches' as const, holds: '/H[a-z]+-\\d+', fails: 'H[a-z]+-\\d+' },
    { matcherName: 'matches_url' as const, holds: '(?i)/hello-[0-9]+', fails: '/hello-[0-9]+' },
    { matcherName: 'not_matches' as const, holds: '/[a-z]+', fails: '/H.*' },
  ])(
    '$matcherName holds on a satisfying path and fails on another',
    ({ matcherName, holds, fails }) => {
      expect(
        matchName(
          only({ url: { key: 'url', matcherName, matchingValue: holds } }),
          request('GET', path),
        ),
      ).toBe('it')
      expect(
        matchName(
          only({ url: { key: 'url', matcherName, matchingValue: fails } }),
          request('GET', path),
        ),
      ).toBeUndefined()
    },
  )

  it('matches a regex against the whole path, not a substring of it', () => {
    const m = only({ url: { matcherName: 'matches', matchingValue: '/pets' } })
    expect(matchName(m, request('GET', '/pets'))).toBe('it')
    expect(matchName(m, request('GET', '/pets/1'))).toBeUndefined()
    expect(matchName(m, request('GET', '/api/pets'))).toBeUndefined()
  })

  it('treats a leading (?i) as the case-insensitive flag', () => {
    const m = only({ url: { matcherName: 'matches', matchingValue: '(?i)/PETS/[a-z]+' } })
    expect(matchName(m, request('GET', '/pets/DOG'))).toBe('it')
  })

  it('matches `path` without a url matcher as equals_url', () => {
    const m = only({ path: '/pets/{id}' })
    expect(matchName(m, request('GET', '/pets/7'))).toBe('it')
    expect(matchName(m, request('GET', '/pets'))).toBeUndefined()
  })

  it('lets the url matcher win over `path` when both are given', () => {
    const m = only({ path: '/ignored', url: { matcherName: 'contains', matchingValue: 'pets' } })
    expect(matchName(m, request('GET', '/my/pets'))).toBe('it')
    expect(matchName(m, request('GET', '/ignored'))).toBeUndefined()
  })

  it('matches every path when the transaction has no url condition', () => {
    const m = only({ method: 'GET' })
    expect(matchName(m, request('GET', '/anything/at/all?x=1'))).toBe('it')
  })
})

describe('string comparisons', () => {
  it('equals_insensitive compares non-ASCII values whose lowercase is longer', () => {
    // 'İ'.toLowerCase() is two UTF-16 code units; fixed in value-check.ts
    const m = onPart('headers', {
      key: 'x-name',
      matcherName: 'equals_insensitive',
      matchingValue: 'İSTANBUL',
    })
    expect(matchName(m, request('GET', '/', { 'x-name': 'İstanbul' }))).toBe('it')
    expect(matchName(m, request('GET', '/', { 'x-name': 'Istanbul' }))).toBeUndefined()
  })

  it('contains with an empty matchingValue holds for any present value, and fails for a missing one', () => {
    const m = onPart('headers', { key: 'x-a', matcherName: 'contains', matchingValue: '' })
    expect(matchName(m, request('GET', '/', { 'x-a': '' }))).toBe('it')
    expect(matchName(m, request('GET', '/'))).toBeUndefined()
  })

  it('equals on an empty value holds only for a present empty value', () => {
    const m = onPart('queryParams', { key: 'a', matcherName: 'equals', matchingValue: '' })
    expect(matchName(m, request('GET', '/?a='))).toBe('it')
    expect(matchName(m, request('GET', '/?a'))).toBe('it')
    expect(matchName(m, request('GET', '/?b='))).toBeUndefined()
  })

  it('requires every matcher of a transaction to hold', () => {
    const m = only({
      method: 'POST',
      path: '/orders',
      headers: [{ key: 'Accept', matcherName: 'contains', matchingValue: 'json' }],
      queryParams: [{ key: 'v', matcherName: 'equals', matchingValue: '2' }],
    })
    expect(matchName(m, request('POST', '/orders?v=2', { accept: 'application/json' }))).toBe('it')
    expect(
      matchName(m, request('POST', '/orders?v=1', { accept: 'application/json' })),
    ).toBeUndefined()
    expect(matchName(m, request('POST', '/orders?v=2', { accept: 'text/html' }))).toBeUndefined()
    expect(
      matchName(m, request('GET', '/orders?v=2', { accept: 'application/json' })),
    ).toBeUndefined()
  })
})
