import { describe, expect, it, vi } from 'vitest'
import { JsonPathScanner } from '../../../src/match/json-scan.js'
import { matcherOf, matchName, request, txn } from '../fixtures/match.js'

/** Transactions on one path told apart by an `equals` header: enough for an index (4 or more). */
function tenants(count: number, extra: Array<Record<string, unknown>> = []): unknown[] {
  const out: unknown[] = []
  for (let i = 0; i < count; i++) {
    out.push(
      txn(`tenant-${i}`, {
        method: 'GET',
        path: '/orders',
        headers: [{ key: 'X-Tenant', matcherName: 'equals', matchingValue: `t${i}` }],
      }),
    )
  }
  return [...out, ...extra]
}

describe('the discriminator index', () => {
  it('picks the transaction whose equals header value the request carries', () => {
    const m = matcherOf(tenants(100))
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't1' }))).toBe('tenant-1')
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't99' }))).toBe('tenant-99')
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't100' }))).toBeUndefined()
    expect(matchName(m, request('GET', '/orders'))).toBeUndefined()
  })

  it('still checks every other condition of an indexed transaction', () => {
    const m = matcherOf(
      tenants(5, [
        txn(
          't2-json',
          {
            method: 'GET',
            path: '/orders',
            headers: [
              { key: 'X-Tenant', matcherName: 'equals', matchingValue: 't2' },
              { key: 'Accept', matcherName: 'contains', matchingValue: 'json' },
            ],
          },
          { priority: 1 },
        ),
      ]),
    )
    expect(
      matchName(m, request('GET', '/orders', { 'x-tenant': 't2', accept: 'application/json' })),
    ).toBe('t2-json')
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't2', accept: 'text/html' }))).toBe(
      'tenant-2',
    )
  })

  it('keeps priority order between indexed transactions and those without the field', () => {
    const catchAll = txn('catch-all', { method: 'GET', path: '/orders' }, { priority: 5 })
    const late = txn('late', { method: 'GET', path: '/orders' }, { priority: 20 })
    const m = matcherOf(tenants(6, [catchAll, late]))
    // priority 5 beats the indexed ones (priority 10)
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't3' }))).toBe('catch-all')
    const without = matcherOf(tenants(6, [late]))
    expect(matchName(without, request('GET', '/orders', { 'x-tenant': 't3' }))).toBe('tenant-3')
    expect(matchName(without, request('GET', '/orders', { 'x-tenant': 'unknown' }))).toBe('late')
  })

  it('keeps the newest-wins rule among transactions with the same indexed value', () => {
    const m = matcherOf(
      tenants(5, [
        txn('newer-t1', {
          method: 'GET',
          path: '/orders',
          headers: [{ key: 'X-Tenant', matcherName: 'equals', matchingValue: 't1' }],
        }),
      ]),
    )
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't1' }))).toBe('newer-t1')
  })

  it('does not index an optional equals: a request without the item can still match it', () => {
    const optional = txn(
      'optional',
      {
        method: 'GET',
        path: '/orders',
        headers: [{ key: 'X-Tenant', matcherName: 'equals', matchingValue: 'zz', optional: true }],
      },
      { priority: 1 },
    )
    const m = matcherOf(tenants(5, [optional]))
    expect(matchName(m, request('GET', '/orders'))).toBe('optional')
    expect(matchName(m, request('GET', '/orders', { 'x-tenant': 't4' }))).toBe('tenant-4')
  })

  it('accepts any value of a repeated query parameter', () => {
    const list: unknown[] = []
    for (let i = 0; i < 6; i++) {
      list.push(
        txn(`tag-${i}`, {
          method: 'GET',
          path: '/items',
          queryParams: [{ key: 'tag', matcherName: 'equals', matchingValue: `v${i}` }],
        }),
      )
    }
    const m = matcherOf(list)
    // tag-5 is the newest, so it is tried first among those the request can satisfy
    expect(matchName(m, request('GET', '/items?tag=v2&tag=v5'))).toBe('tag-5')
    expect(matchName(m, request('GET', '/items?tag=v2&tag=nope'))).toBe('tag-2')
  })

  it('indexes a JSONPath body field', () => {
    const kinds = ['standard', 'express', 'overnight', 'pickup', 'drone']
    const m = matcherOf(
      kinds.map((kind) =>
        txn(kind, {
          method: 'POST',
          path: '/orders',
          body: [{ key: '$.shipping.kind', matcherName: 'equals', matchingValue: kind }],
        }),
      ),
    )
    const body = (kind: string): string => JSON.stringify({ items: [1], shipping: { kind } })
    expect(
      matchName(
        m,
        request('POST', '/orders', { 'content-type': 'application/json' }, body('express')),
      ),
    ).toBe('express')
    expect(
      matchName(
        m,
        request('POST', '/orders', { 'content-type': 'application/json' }, body('boat')),
      ),
    ).toBeUndefined()
    expect(matchName(m, request('POST', '/orders', {}, 'not json'))).toBeUndefined()
  })

  it('reads a JSONPath body field once for the index and the candidate, with the same answers', () => {
    const kinds = ['standard', 'express', 'overnight', 'pickup', 'drone']
    const m = matcherOf([
      ...kinds.map((kind) =>
        txn(kind, {
          method: 'POST',
          path: '/orders',
          body: [{ key: '$.shipping.kind', matcherName: 'equals', matchingValue: kind }],
        }),
      ),
      // Another matcher on the same expression and one on another expression, same route.
      txn(
        'express-eu',
        {
          method: 'POST',
          path: '/orders',
          body: [
            { key: '$.shipping.kind', matcherName: 'contains', matchingValue: 'xpr' },
            { key: '$.shipping.zone', matcherName: 'equals', matchingValue: 'eu' },
          ],
        },
        { priority: 1 },
      ),
    ])
    const scans = vi.spyOn(JsonPathScanner.prototype, 'scan')
    try {
      const body = (kind: string, zone = 'us'): string =>
        JSON.stringify({ items: [1], shipping: { kind, zone } })
      const post = (text: string): string | undefined =>
        matchName(m, request('POST', '/orders', { 'content-type': 'application/json' }, text))
      for (const kind of kinds) {
        const before = scans.mock.calls.length
        expect(post(body(kind))).toBe(kind)
        // express: the priority-1 transaction's zone is read too (a second expression)
        expect(scans.mock.calls.length - before, kind).toBe(kind === 'express' ? 2 : 1)
      }
      expect(post(body('express', 'eu'))).toBe('express-eu')
      expect(post(body('boat'))).toBeUndefined()
      expect(post('{"shipping":{"kind":"express"')).toBeUndefined()
    } finally {
      scans.mockRestore()
    }
  })

  it('serves templated and fallback routes through the same index', () => {
    const list: unknown[] = []
    for (let i = 0; i < 5; i++) {
      list.push(
        txn(`v${i}`, {
          method: 'GET',
          path: '/pets/{id}',
          headers: [{ key: 'X-Version', matcherName: 'equals', matchingValue: String(i) }],
        }),
      )
    }
    for (let i = 0; i < 5; i++) {
      list.push(
        txn(`r${i}`, {
          method: 'GET',
          url: { matcherName: 'matches', matchingValue: '/cats/[0-9]+' },
          headers: [{ key: 'X-Version', matcherName: 'equals', matchingValue: String(i) }],
        }),
      )
    }
    const m = matcherOf(list)
    expect(matchName(m, request('GET', '/pets/7', { 'x-version': '3' }))).toBe('v3')
    expect(matchName(m, request('GET', '/cats/7', { 'x-version': '4' }))).toBe('r4')
    expect(matchName(m, request('GET', '/cats/x', { 'x-version': '4' }))).toBeUndefined()
  })
})
