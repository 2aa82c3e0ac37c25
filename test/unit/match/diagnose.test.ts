import { describe, expect, it } from 'vitest'
import { basic, matcherOf, request, txn } from '../fixtures/match.js'

/*
 * Near-miss diagnosis: the transactions closest to an unmatched request, best first, each with the
 * conditions it failed as {part, key?, matcherName, expected, actual}. Passwords never appear.
 */

const m = matcherOf([
  txn(
    'pets',
    {
      method: 'GET',
      path: '/pets/{id}',
      headers: [{ key: 'Accept', matcherName: 'contains', matchingValue: 'json' }],
      queryParams: [{ key: 'v', matcherName: 'equals', matchingValue: '2' }],
    },
    { id: 1 },
  ),
  txn('login', {
    method: 'POST',
    path: '/login',
    credentials: { username: 'al', password: 'hunter2' },
    body: [{ key: '$.remember', matcherName: 'equals', matchingValue: 'true' }],
  }),
  txn('delete', { method: 'DELETE', path: '/x' }, { priority: 1 }),
])

describe('diagnose', () => {
  it('lists the closest transaction first with each failed condition', () => {
    const [first] = m.diagnose(request('GET', '/pets/1?v=1', { accept: 'text/html' }))
    expect(first).toEqual({
      transactionId: 1,
      name: 'pets',
      priority: 10,
      matched: 2,
      total: 4,
      failed: [
        { part: 'queryParams', key: 'v', matcherName: 'equals', expected: '2', actual: '1' },
        {
          part: 'headers',
          key: 'accept',
          matcherName: 'contains',
          expected: 'json',
          actual: 'text/html',
        },
      ],
    })
  })

  it('orders by fewest failed conditions, then most matched', () => {
    const misses = m.diagnose(request('GET', '/pets/1?v=1', { accept: 'text/html' }), 3)
    expect(misses.map((n) => n.name)).toEqual(['pets', 'delete', 'login'])
    expect(misses.map((n) => n.failed.length)).toEqual([2, 2, 4])
  })

  it('reports a wrong method and a wrong url without a key', () => {
    const [miss] = m.diagnose(request('PUT', '/y'), 3).filter((n) => n.name === 'delete')
    expect(miss?.failed).toEqual([
      { part: 'method', matcherName: 'equals', expected: 'DELETE', actual: 'PUT' },
      { part: 'url', matcherName: 'equals_url', expected: '/x', actual: '/y' },
    ])
  })

  it('reports null as the actual value of a missing item', () => {
    const [miss] = m.diagnose(request('GET', '/pets/1'), 1)
    expect(miss?.failed).toContainEqual({
      part: 'headers',
      key: 'accept',
      matcherName: 'contains',
      expected: 'json',
      actual: null,
    })
    expect(miss?.failed).toContainEqual({
      part: 'queryParams',
      key: 'v',
      matcherName: 'equals',
      expected: '2',
      actual: null,
    })
  })

  it('reports the JSONPath key and the selected value of a failed body matcher', () => {
    const [miss] = m.diagnose(
      request('POST', '/login', { authorization: basic('al', 'hunter2') }, '{"remember": false}'),
      1,
    )
    expect(miss?.name).toBe('login')
    expect(miss?.failed).toEqual([
      { part: 'body', key: '$.remember', matcherName: 'equals', expected: 'true', actual: 'false' },
    ])
  })

  it('never shows a password, expected or given', () => {
    const req = request(
      'POST',
      '/login',
      { authorization: basic('al', 'wrongpass') },
      '{"remember": true}',
    )
    const [miss] = m.diagnose(req, 1)
    expect(miss?.failed).toEqual([
      { part: 'credentials', matcherName: 'equals', expected: 'al:***', actual: 'al:***' },
    ])
    const text = JSON.stringify(m.diagnose(req, 3))
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('wrongpass')
  })

  it('never shows the credentials of an Authorization header matcher (fixed in field.ts)', () => {
    const expected = basic('al', 'hunter2')
    const given = basic('al', 'wrongpass')
    const h = matcherOf([
      txn('h', {
        headers: [{ key: 'Authorization', matcherName: 'equals', matchingValue: expected }],
      }),
    ])
    const misses = h.diagnose(request('GET', '/', { authorization: given }))
    expect(misses[0]?.failed).toEqual([
      {
        part: 'headers',
        key: 'authorization',
        matcherName: 'equals',
        expected: 'Basic ***',
        actual: 'Basic ***',
      },
    ])
    const text = JSON.stringify(misses)
    expect(text).not.toContain(expected.slice(6))
    expect(text).not.toContain(given.slice(6))
  })

  it('shortens long actual values', () => {
    const long = 'x'.repeat(1000)
    const b = matcherOf([txn('b', { body: [{ matcherName: 'equals', matchingValue: 'y' }] })])
    const actual = b.diagnose(request('POST', '/', {}, long))[0]?.failed[0]?.actual ?? ''
    expect(actual.length).toBeLessThan(300)
    expect(long.startsWith(actual.slice(0, 200))).toBe(true)
  })

  it('respects the limit, defaulting to 3', () => {
    const many = matcherOf(Array.from({ length: 10 }, (_, i) => txn(`t${i}`, { path: `/t${i}` })))
    expect(many.diagnose(request('GET', '/none'))).toHaveLength(3)
    expect(many.diagnose(request('GET', '/none'), 5)).toHaveLength(5)
    expect(many.diagnose(request('GET', '/none'), 0)).toEqual([])
    expect(matcherOf([]).diagnose(request('GET', '/none'))).toEqual([])
  })

  it('considers only active transactions', () => {
    const doc = {
      transactions: [txn('on', { path: '/a' }, { id: 1 }), txn('off', { path: '/b' }, { id: 2 })],
      mockServiceTransactions: [1],
    }
    expect(
      matcherOf(doc)
        .diagnose(request('GET', '/b'), 5)
        .map((n) => n.name),
    ).toEqual(['on'])
  })

  it('finds the close transaction among many', () => {
    const many = matcherOf([
      ...Array.from({ length: 200 }, (_, i) => txn(`t${i}`, { method: 'POST', path: `/t${i}` })),
      txn('close', {
        method: 'GET',
        path: '/orders',
        headers: [{ key: 'x-v', matcherName: 'equals', matchingValue: '2' }],
      }),
    ])
    const [first] = many.diagnose(request('GET', '/orders', { 'x-v': '1' }))
    expect(first?.name).toBe('close')
    expect(first?.failed).toEqual([
      { part: 'headers', key: 'x-v', matcherName: 'equals', expected: '2', actual: '1' },
    ])
  })
})

describe('the same path with another method', () => {
  it('is always among the candidates, even behind many paths one character away', () => {
    const orders = Array.from({ length: 1000 }, (_, i) =>
      txn(`GET /v1/orders/${i + 100}`, { method: 'GET', path: `/v1/orders/${i + 100}` }),
    )
    const m = matcherOf([
      ...orders,
      txn('PUT /v1/orders/10', { method: 'PUT', path: '/v1/orders/10' }),
    ])
    expect(m.match(request('GET', '/v1/orders/10'))).toBeNull()
    const names = m.diagnose(request('GET', '/v1/orders/10'), 3).map((miss) => miss.name)
    expect(names).toHaveLength(3)
    expect(names).toContain('PUT /v1/orders/10')
  })
})
