import { describe, expect, it } from 'vitest'
import { prepareMultipart } from '../../../src/match/index.js'
import { basic, matchName, multipart, onPart, only, request } from '../fixtures/match.js'

/*
 * Repeated items (docs/architecture.md#matching): headers are seen as Node joins them (`, `); any value of a
 * repeated query parameter, cookie or form field may satisfy a matcher, and not_matches holds only
 * when no value matches.
 */

describe('repeated headers', () => {
  // Node joins repeated request headers (other than set-cookie and cookie) with ', '.
  const req = request('GET', '/', { 'x-tag': 'one, two' })

  it('see the joined value with equals', () => {
    expect(
      matchName(
        onPart('headers', { key: 'X-Tag', matcherName: 'equals', matchingValue: 'one, two' }),
        req,
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('headers', { key: 'X-Tag', matcherName: 'equals', matchingValue: 'two' }),
        req,
      ),
    ).toBeUndefined()
  })

  it('see the joined value with contains and matches', () => {
    expect(
      matchName(
        onPart('headers', { key: 'x-tag', matcherName: 'contains', matchingValue: 'two' }),
        req,
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('headers', { key: 'x-tag', matcherName: 'matches', matchingValue: 'one, t.o' }),
        req,
      ),
    ).toBe('it')
  })

  it('match header names case-insensitively', () => {
    const m = onPart('headers', {
      key: 'CONTENT-Type',
      matcherName: 'equals',
      matchingValue: 'text/plain',
    })
    expect(matchName(m, request('GET', '/', { 'content-type': 'text/plain' }))).toBe('it')
  })

  it('compare header values case-sensitively with equals', () => {
    const m = onPart('headers', {
      key: 'content-type',
      matcherName: 'equals',
      matchingValue: 'text/plain',
    })
    expect(matchName(m, request('GET', '/', { 'content-type': 'Text/Plain' }))).toBeUndefined()
  })
})

describe('repeated query parameters', () => {
  const req = request('GET', '/search?tag=a&tag=b&tag=c')

  it('satisfy equals when any value is equal', () => {
    expect(
      matchName(
        onPart('queryParams', { key: 'tag', matcherName: 'equals', matchingValue: 'b' }),
        req,
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('queryParams', { key: 'tag', matcherName: 'equals', matchingValue: 'd' }),
        req,
      ),
    ).toBeUndefined()
  })

  it('satisfy not_matches only when no value matches', () => {
    expect(
      matchName(
        onPart('queryParams', { key: 'tag', matcherName: 'not_matches', matchingValue: 'b' }),
        req,
      ),
    ).toBeUndefined()
    expect(
      matchName(
        onPart('queryParams', { key: 'tag', matcherName: 'not_matches', matchingValue: '[d-z]' }),
        req,
      ),
    ).toBe('it')
  })

  it('are percent-decoded, `+` being a space', () => {
    const m = onPart('queryParams', { key: 'q', matcherName: 'equals', matchingValue: 'a b&c' })
    expect(matchName(m, request('GET', '/?q=a%20b%26c'))).toBe('it')
    expect(matchName(m, request('GET', '/?q=a+b%26c'))).toBe('it')
  })

  it('match parameter names case-sensitively', () => {
    const m = onPart('queryParams', { key: 'Tag', matcherName: 'equals', matchingValue: 'a' })
    expect(matchName(m, request('GET', '/?tag=a'))).toBeUndefined()
  })
})

describe('repeated cookies', () => {
  it('let the single value of a cookie be matched', () => {
    const m = onPart('cookies', { key: 'session', matcherName: 'equals', matchingValue: 'abc def' })
    expect(matchName(m, request('GET', '/', { cookie: 'theme=dark; session=abc%20def' }))).toBe(
      'it',
    )
  })

  it('satisfy equals when any value of a repeated cookie is equal', () => {
    const m = onPart('cookies', { key: 'a', matcherName: 'equals', matchingValue: '2' })
    expect(matchName(m, request('GET', '/', { cookie: 'a=1; a=2' }))).toBe('it')
  })

  it('satisfy not_matches only when no value of a repeated cookie matches', () => {
    const m = onPart('cookies', { key: 'a', matcherName: 'not_matches', matchingValue: '2' })
    expect(matchName(m, request('GET', '/', { cookie: 'a=1; a=2' }))).toBeUndefined()
  })
})

describe('repeated form fields', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }

  it('satisfy equals when any urlencoded value is equal', () => {
    const m = onPart('body', { key: 'tag', matcherName: 'equals', matchingValue: 'b' })
    expect(matchName(m, request('POST', '/', form, 'tag=a&tag=b'))).toBe('it')
    expect(matchName(m, request('POST', '/', form, 'tag=a&tag=c'))).toBeUndefined()
  })

  it('satisfy not_matches only when no urlencoded value matches', () => {
    const m = onPart('body', { key: 'tag', matcherName: 'not_matches', matchingValue: 'b' })
    expect(matchName(m, request('POST', '/', form, 'tag=a&tag=b'))).toBeUndefined()
    expect(matchName(m, request('POST', '/', form, 'tag=a&tag=c'))).toBe('it')
  })

  it('satisfy equals when any multipart value is equal, file parts included', async () => {
    const req = request(
      'POST',
      '/',
      { 'content-type': 'multipart/form-data; boundary=b1' },
      multipart('b1', [
        { name: 'tag', value: 'a' },
        { name: 'tag', value: 'b', filename: 'b.txt' },
      ]),
    )
    await prepareMultipart(req)
    expect(
      matchName(onPart('body', { key: 'tag', matcherName: 'equals', matchingValue: 'b' }), req),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { key: 'tag', matcherName: 'not_matches', matchingValue: 'a' }),
        req,
      ),
    ).toBeUndefined()
  })

  it('read no urlencoded field when the content type is not a form', () => {
    const m = onPart('body', { key: 'tag', matcherName: 'equals', matchingValue: 'a' })
    expect(
      matchName(m, request('POST', '/', { 'content-type': 'text/plain' }, 'tag=a')),
    ).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, 'tag=a'))).toBeUndefined()
  })

  it('read no multipart field until prepareMultipart has run', () => {
    const req = request(
      'POST',
      '/',
      { 'content-type': 'multipart/form-data; boundary=b1' },
      multipart('b1', [{ name: 'tag', value: 'a' }]),
    )
    expect(
      matchName(onPart('body', { key: 'tag', matcherName: 'equals', matchingValue: 'a' }), req),
    ).toBeUndefined()
  })

  it('leave the form empty for a malformed multipart body, failing the matcher without throwing', async () => {
    const req = request('POST', '/', { 'content-type': 'multipart/form-data' }, 'garbage')
    await prepareMultipart(req)
    expect(
      matchName(onPart('body', { key: 'tag', matcherName: 'equals', matchingValue: 'a' }), req),
    ).toBeUndefined()
  })
})

describe('repeated body selections', () => {
  it('satisfy a JSONPath matcher when any selected value satisfies it', () => {
    const body = JSON.stringify({ items: [{ id: 1 }, { id: 2 }, { id: 3 }] })
    expect(
      matchName(
        onPart('body', { key: '$.items[*].id', matcherName: 'equals', matchingValue: '2' }),
        request('POST', '/', {}, body),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { key: '$.items[*].id', matcherName: 'equals', matchingValue: '4' }),
        request('POST', '/', {}, body),
      ),
    ).toBeUndefined()
  })

  it('satisfy a JSONPath not_matches only when no selected value matches', () => {
    const body = JSON.stringify({ items: [{ id: 1 }, { id: 2 }] })
    expect(
      matchName(
        onPart('body', { key: '$..id', matcherName: 'not_matches', matchingValue: '2' }),
        request('POST', '/', {}, body),
      ),
    ).toBeUndefined()
    expect(
      matchName(
        onPart('body', { key: '$..id', matcherName: 'not_matches', matchingValue: '[3-9]' }),
        request('POST', '/', {}, body),
      ),
    ).toBe('it')
  })

  it('satisfy an XPath matcher when any selected node satisfies it', () => {
    const body = '<order><item>pen</item><item>ink</item></order>'
    expect(
      matchName(
        onPart('body', { key: '/order/item', matcherName: 'equals', matchingValue: 'ink' }),
        request('POST', '/', {}, body),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { key: '/order/item', matcherName: 'not_matches', matchingValue: 'ink' }),
        request('POST', '/', {}, body),
      ),
    ).toBeUndefined()
  })
})

describe('credentials', () => {
  const m = only({ credentials: { username: 'alice', password: 's3:cret' } })

  it('hold when the Basic username and password are equal', () => {
    expect(matchName(m, request('GET', '/', { authorization: basic('alice', 's3:cret') }))).toBe(
      'it',
    )
  })

  it('accept the scheme name in any case', () => {
    const value = basic('alice', 's3:cret').replace('Basic', 'bASIC')
    expect(matchName(m, request('GET', '/', { authorization: value }))).toBe('it')
  })

  it('fail on a wrong password or username', () => {
    expect(
      matchName(m, request('GET', '/', { authorization: basic('alice', 'wrong') })),
    ).toBeUndefined()
    expect(
      matchName(m, request('GET', '/', { authorization: basic('Alice', 's3:cret') })),
    ).toBeUndefined()
  })

  it('fail without an Authorization header or with another scheme', () => {
    expect(matchName(m, request('GET', '/'))).toBeUndefined()
    expect(
      matchName(m, request('GET', '/', { authorization: 'Bearer alice:s3:cret' })),
    ).toBeUndefined()
  })

  it('are not a condition when both are empty or null', () => {
    expect(
      matchName(only({ credentials: { username: '', password: '' } }), request('GET', '/')),
    ).toBe('it')
    expect(
      matchName(only({ credentials: { username: null, password: null } }), request('GET', '/')),
    ).toBe('it')
    expect(matchName(only({ credentials: null }), request('GET', '/'))).toBe('it')
  })

  it('with only a username require that username and an empty password', () => {
    const userOnly = only({ credentials: { username: 'bob' } })
    expect(matchName(userOnly, request('GET', '/', { authorization: basic('bob', '') }))).toBe('it')
    expect(
      matchName(
        userOnly,
        request('GET', '/', { authorization: `Basic ${Buffer.from('bob').toString('base64')}` }),
      ),
    ).toBe('it')
    expect(
      matchName(userOnly, request('GET', '/', { authorization: basic('bob', 'x') })),
    ).toBeUndefined()
  })
})
