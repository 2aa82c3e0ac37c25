import { describe, expect, it } from 'vitest'
import { MatchRequest } from '../../../src/match/index.js'

describe('MatchRequest', () => {
  it('splits the path, normalized, from the raw query', () => {
    const req = new MatchRequest('GET', '/a//b/?x=1&y=%20', {}, null)
    expect(req).toMatchObject({
      method: 'GET',
      path: '/a/b',
      url: '/a//b/?x=1&y=%20',
      rawQuery: 'x=1&y=%20',
    })
    expect(req.query()).toEqual({ x: '1', y: ' ' })
  })

  it('gives repeated query parameters as arrays and no parameters for no query', () => {
    expect(new MatchRequest('GET', '/?a=1&a=2', {}, null).query()['a']).toEqual(['1', '2'])
    expect(new MatchRequest('GET', '/', {}, null).query()).toEqual({})
  })

  it('parses cookies, decoding their values', () => {
    const req = new MatchRequest('GET', '/', { cookie: 'a=1; b=x%20y' }, null)
    expect(req.cookies()).toMatchObject({ a: '1', b: 'x y' })
    expect(new MatchRequest('GET', '/', {}, null).cookies()).toEqual({})
  })

  it('reads the body as text, JSON and XML, remembering what does not parse', () => {
    const json = new MatchRequest('POST', '/', {}, Buffer.from('{"a":1}'))
    expect(json.text()).toBe('{"a":1}')
    expect(json.hasJson()).toBe(true)
    expect(json.json()).toEqual({ a: 1 })
    expect(json.xml()).toBeNull()
    const xml = new MatchRequest('POST', '/', {}, Buffer.from('<a/>'))
    expect(xml.hasJson()).toBe(false)
    expect(xml.xml()).not.toBeNull()
    const none = new MatchRequest('POST', '/', {}, null)
    expect(none.text()).toBe('')
    expect(none.hasJson()).toBe(false)
    expect(none.xml()).toBeNull()
  })

  it('accepts JSON scalars, null included, as JSON bodies', () => {
    const req = new MatchRequest('POST', '/', {}, Buffer.from('null'))
    expect(req.hasJson()).toBe(true)
    expect(req.json()).toBeNull()
  })

  it('reads urlencoded form fields only with a form content type', () => {
    const form = new MatchRequest(
      'POST',
      '/',
      { 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.from('a=1&a=2&b=x+y'),
    )
    expect(form.form()).toEqual({ a: ['1', '2'], b: 'x y' })
    expect(
      new MatchRequest('POST', '/', { 'content-type': 'text/plain' }, Buffer.from('a=1')).form(),
    ).toBeNull()
  })

  it('decodes Basic credentials, keeping colons in the password', () => {
    const header = `Basic ${Buffer.from('u:p:q').toString('base64')}`
    expect(new MatchRequest('GET', '/', { authorization: header }, null).credentials()).toEqual({
      username: 'u',
      password: 'p:q',
    })
    expect(
      new MatchRequest('GET', '/', { authorization: 'Bearer t' }, null).credentials(),
    ).toBeNull()
    expect(new MatchRequest('GET', '/', {}, null).credentials()).toBeNull()
  })
})
