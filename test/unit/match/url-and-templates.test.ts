import { describe, expect, it } from 'vitest'
import { matchName, matcherOf, only, request, txn } from '../fixtures/match.js'

/*
 * The url part (docs/architecture.md#matching): every url matcher sees the normalized path (percent-decoded,
 * `//` collapsed, one trailing `/` dropped, no query); `{name}` in equals_url matches exactly one
 * non-empty segment or part of one.
 */

describe('path normalization as url matchers see it', () => {
  it('percent-decodes the request path for equals_url', () => {
    const m = only({ path: '/files/a b' })
    expect(matchName(m, request('GET', '/files/a%20b'))).toBe('it')
  })

  it('percent-decodes an equals_url value written encoded', () => {
    const m = only({ path: '/files/a%20b' })
    expect(matchName(m, request('GET', '/files/a%20b'))).toBe('it')
    expect(matchName(m, request('GET', '/files/a b'))).toBe('it')
  })

  it('collapses repeated slashes', () => {
    const m = only({ path: '/a/b' })
    expect(matchName(m, request('GET', '//a///b'))).toBe('it')
  })

  it('drops one trailing slash, on the request and on the equals_url value', () => {
    expect(matchName(only({ path: '/a/b' }), request('GET', '/a/b/'))).toBe('it')
    expect(matchName(only({ path: '/a/b/' }), request('GET', '/a/b'))).toBe('it')
  })

  it('keeps the root as /', () => {
    const m = only({ path: '/' })
    expect(matchName(m, request('GET', '/'))).toBe('it')
    expect(matchName(m, request('GET', '/?x=1'))).toBe('it')
    expect(matchName(m, request('GET', '/a'))).toBeUndefined()
  })

  it('ignores the query string for equals_url, on the request and on the value', () => {
    expect(matchName(only({ path: '/a' }), request('GET', '/a?x=1&y=2'))).toBe('it')
    expect(matchName(only({ path: '/a?x=1' }), request('GET', '/a?x=2'))).toBe('it')
  })

  it('gives matches, contains and equals the normalized path without the query', () => {
    const req = request('GET', '/a%20b//c/?q=1')
    expect(matchName(only({ url: { matcherName: 'matches', matchingValue: '/a b/c' } }), req)).toBe(
      'it',
    )
    expect(matchName(only({ url: { matcherName: 'equals', matchingValue: '/a b/c' } }), req)).toBe(
      'it',
    )
    expect(
      matchName(only({ url: { matcherName: 'contains', matchingValue: 'q=1' } }), req),
    ).toBeUndefined()
    expect(
      matchName(only({ url: { matcherName: 'not_matches', matchingValue: '.*\\?.*' } }), req),
    ).toBe('it')
  })

  it('leaves a malformed percent escape as it is', () => {
    const m = only({ url: { matcherName: 'equals', matchingValue: '/a%zz' } })
    expect(matchName(m, request('GET', '/a%zz'))).toBe('it')
  })

  it('compares paths case-sensitively', () => {
    expect(matchName(only({ path: '/Pets' }), request('GET', '/pets'))).toBeUndefined()
  })
})

describe('equals_url templates', () => {
  it('match one segment for {name}', () => {
    const m = only({ path: '/pets/{id}' })
    expect(matchName(m, request('GET', '/pets/42'))).toBe('it')
    expect(matchName(m, request('GET', '/pets/a%2Fb'))).toBeUndefined() // decoded to two segments
  })

  it('do not match an empty segment or more segments', () => {
    const m = only({ path: '/pets/{id}' })
    expect(matchName(m, request('GET', '/pets'))).toBeUndefined()
    expect(matchName(m, request('GET', '/pets/'))).toBeUndefined()
    expect(matchName(m, request('GET', '/pets/1/toys'))).toBeUndefined()
  })

  it('match several placeholders', () => {
    const m = only({ path: '/owners/{owner}/pets/{pet}' })
    expect(matchName(m, request('GET', '/owners/ann/pets/rex'))).toBe('it')
    expect(matchName(m, request('GET', '/owners/ann/cats/rex'))).toBeUndefined()
  })

  it('match a placeholder that is part of a segment', () => {
    const m = only({ path: '/files/{name}.json' })
    expect(matchName(m, request('GET', '/files/report.json'))).toBe('it')
    expect(matchName(m, request('GET', '/files/report.xml'))).toBeUndefined()
    expect(matchName(m, request('GET', '/files/a/report.json'))).toBeUndefined()
  })

  it('do not match an empty partial segment', () => {
    expect(
      matchName(only({ path: '/files/{name}.json' }), request('GET', '/files/.json')),
    ).toBeUndefined()
    expect(matchName(only({ path: '/{a}-{b}' }), request('GET', '/x-'))).toBeUndefined()
  })

  it('match a placeholder that is part of a segment when the route also has other routes', () => {
    const m = matcherOf([
      txn('json', { path: '/files/{name}.json' }),
      txn('any', { path: '/files/{name}' }, { priority: 20 }),
    ])
    expect(matchName(m, request('GET', '/files/a.json'))).toBe('json')
    expect(matchName(m, request('GET', '/files/a.xml'))).toBe('any')
  })

  it('match templates with characters find-my-way treats specially in literal parts', () => {
    const m = only({ path: '/v1:batch/{id}' })
    expect(matchName(m, request('GET', '/v1:batch/7'))).toBe('it')
    expect(matchName(m, request('GET', '/v1:batch'))).toBeUndefined()
    expect(matchName(m, request('GET', '/v1xbatch/7'))).toBeUndefined()
  })

  it('match a percent-decoded value in a placeholder segment', () => {
    const m = only({ path: '/tags/{tag}' })
    expect(matchName(m, request('GET', '/tags/c%23'))).toBe('it')
    expect(matchName(m, request('GET', '/tags/50%25'))).toBe('it')
    expect(matchName(m, request('GET', '/tags/a%3Fb'))).toBe('it')
  })

  it('treat templates with different parameter names but the same shape as one route', () => {
    const m = matcherOf([
      txn('by-id', {
        path: '/pets/{id}',
        queryParams: [{ key: 'v', matcherName: 'equals', matchingValue: '1' }],
      }),
      txn('by-pet', {
        path: '/pets/{petId}',
        queryParams: [{ key: 'v', matcherName: 'equals', matchingValue: '2' }],
      }),
    ])
    expect(matchName(m, request('GET', '/pets/3?v=1'))).toBe('by-id')
    expect(matchName(m, request('GET', '/pets/3?v=2'))).toBe('by-pet')
    expect(matchName(m, request('GET', '/pets/3?v=3'))).toBeUndefined()
  })

  it('fall through to an overlapping template whose other conditions hold', () => {
    const m = matcherOf([
      txn('generic', { path: '/{kind}/{id}' }),
      txn('pets', {
        path: '/pets/{id}',
        headers: [{ key: 'x-v', matcherName: 'equals', matchingValue: '2' }],
      }),
    ])
    expect(matchName(m, request('GET', '/pets/1', { 'x-v': '2' }))).toBe('pets')
    expect(matchName(m, request('GET', '/pets/1'))).toBe('generic')
    expect(matchName(m, request('GET', '/cats/1'))).toBe('generic')
  })

  it('fall through from a literal path to a template when the literal transaction fails', () => {
    const m = matcherOf([
      txn('template', { path: '/pets/{id}' }, { priority: 20 }),
      txn('literal', { path: '/pets/mine', headers: [{ key: 'x-a', matcherName: 'absent' }] }),
    ])
    expect(matchName(m, request('GET', '/pets/mine'))).toBe('literal')
    expect(matchName(m, request('GET', '/pets/mine', { 'x-a': '1' }))).toBe('template')
  })
})
