import { describe, expect, it } from 'vitest'
import { urlMatchersOf } from '../../../importers/postman/url.js'

// Postman writes a request URL as a string or as the v2 object (host, port, path, query,
// variable), and collections in the wild leave parts of either out or malformed.
const scope = new Map([
  ['base', 'https://api.example.com:8443/v2'],
  ['id', '42'],
])

describe('Postman URLs as matchers', () => {
  it('matches only the root path when the URL is missing or has no path', () => {
    for (const url of [null, { host: [], path: [] }, '{{unknownHost}}']) {
      const out = urlMatchersOf(url, scope)
      expect(out.url).toEqual({ key: 'url', matcherName: 'equals_url', matchingValue: '/' })
      expect(out.host).toBeUndefined()
      expect(out.wildcard).toBe(false)
    }
  })

  it('reads the raw form when the object has no host or path, dropping the fragment', () => {
    const out = urlMatchersOf({ raw: '{{base}}/users/{{id}}?q=a+b#frag' }, scope)
    expect(out.host).toBe('api.example.com:8443')
    expect(out.url.matchingValue).toBe('/v2/users/42')
    expect(out.queryParams).toEqual([{ key: 'q', matcherName: 'equals', matchingValue: 'a b' }])
  })

  it('joins the structured form: host parts, a numeric port, path items and path variables', () => {
    const out = urlMatchersOf(
      {
        host: ['api', 'example', 'com'],
        port: 8443,
        path: [{ value: 'users' }, 'a/b', ':uid'],
        variable: [{ id: 'uid', value: 7 }, 'not an object', { key: 'noValue' }],
        query: [
          { key: 'a', value: null },
          { key: 'off', value: '1', disabled: true },
          { value: 'no key' },
          'not an object',
        ],
      },
      scope,
    )
    expect(out.host).toBe('api.example.com:8443')
    expect(out.url.matchingValue).toBe('/users/a/b/7')
    // only the enabled parameter with a key is matched, its missing value as the empty string
    expect(out.queryParams).toEqual([{ key: 'a', matcherName: 'equals', matchingValue: '' }])
  })

  it('takes a path written as one string, and ignores an empty port or a path of another type', () => {
    expect(urlMatchersOf({ host: 'h', port: '', path: 'x/y' }, scope)).toMatchObject({
      host: 'h',
      url: { matchingValue: '/x/y' },
    })
    expect(urlMatchersOf({ host: 'h', path: 5 }, scope)).toMatchObject({
      host: 'h',
      url: { matchingValue: '/' },
    })
  })

  it('turns unknown variables into wildcards, and braces in the text into a regex', () => {
    const out = urlMatchersOf('/{{who}}/{a}?{{unk}}=1&=2&&z={{id}}-{{nope}}&k%20y=v%2', scope)
    expect(out.wildcard).toBe(true)
    expect(out.display).toBe('/{who}/{a}')
    // literal braces would read as equals_url placeholders: a regex keeps them literal
    expect(out.url).toEqual({ key: 'url', matcherName: 'matches', matchingValue: '/[^/]+/\\{a\\}' })
    expect(out.queryParams).toEqual([
      { key: 'z', matcherName: 'matches', matchingValue: '42-.*' },
      { key: 'k y', matcherName: 'equals', matchingValue: 'v%2' },
    ])
    expect(out.notes).toEqual([
      'query parameter "{{unk}}" has an unknown variable in its name; not matched',
    ])
  })

  it('keeps a host without a path, a query key without a value, and undecodable escapes', () => {
    expect(urlMatchersOf('host.only?x', scope)).toMatchObject({
      host: 'host.only',
      url: { matchingValue: '/' },
      queryParams: [{ key: 'x', matchingValue: '' }],
    })
    expect(urlMatchersOf('/caf%E9/%C3%A9', scope).url.matchingValue).toBe('/caf%E9/é')
  })

  it('matches any one segment for a path variable without a value', () => {
    const out = urlMatchersOf({ raw: '/items/:id' }, scope)
    expect(out.url).toEqual({ key: 'url', matcherName: 'equals_url', matchingValue: '/items/{id}' })
    expect(out.wildcard).toBe(true)
  })
})
