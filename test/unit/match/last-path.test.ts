import { describe, expect, it } from 'vitest'
import { matchName, matcherOf, request, txn } from '../fixtures/match.js'

/*
 * Each method's routes remember the path of their last lookup and its candidates, for requests
 * that come in runs to one path. Whatever the order of the paths, every request must get what a
 * lookup of its own path gives.
 */
describe('routes remembered from the last lookup', () => {
  const matcher = matcherOf([
    txn('list', { method: 'GET', path: '/pets' }),
    txn('one', { method: 'GET', path: '/pets/{id}' }),
    txn('toys', { method: 'GET', path: '/pets/{id}/toys' }),
    txn('any-img', { method: 'GET', url: { matcherName: 'matches', matchingValue: '^/img/.*' } }),
    txn('root', { method: 'GET', path: '/' }),
    txn('create', { method: 'POST', path: '/pets' }),
  ])
  const expected: ReadonlyArray<[string, string, string | undefined]> = [
    ['GET', '/pets', 'list'],
    ['GET', '/pets/7', 'one'],
    ['GET', '/pets/8', 'one'],
    ['GET', '/pets/7/toys', 'toys'],
    ['GET', '/img/a.png', 'any-img'],
    ['GET', '/', 'root'],
    ['GET', '/nowhere', undefined],
    ['POST', '/pets', 'create'],
    ['POST', '/pets/7', undefined],
    ['GET', '/pets/', 'list'],
  ]

  it('answers each path as a fresh lookup does, in runs, alternating and in a scrambled order', () => {
    const orders = [
      expected.flatMap((e) => [e, e, e]),
      expected.flatMap((e) => [e, expected[0] as (typeof expected)[number]]),
      [...expected].reverse(),
      Array.from({ length: 200 }, (_v, i) => expected[(i * 7) % expected.length]),
    ]
    for (const order of orders) {
      for (const entry of order) {
        const [method, path, name] = entry as (typeof expected)[number]
        expect(matchName(matcher, request(method, path)), `${method} ${path}`).toBe(name)
      }
    }
  })

  it('keeps methods apart: the same path under another method is looked up in its own routes', () => {
    expect(matchName(matcher, request('GET', '/pets'))).toBe('list')
    expect(matchName(matcher, request('POST', '/pets'))).toBe('create')
    expect(matchName(matcher, request('GET', '/pets'))).toBe('list')
    expect(matchName(matcher, request('DELETE', '/pets'))).toBeUndefined()
  })
})
