import { describe, expect, it } from 'vitest'
import type { RequestDslInput } from '../../../src/dsl/index.js'
import { matchName, matcherOf, request, txn } from '../fixtures/match.js'

/*
 * Order (docs/decisions.md#priority-order): ascending priority (1 first, default 10); among equal priorities
 * the later transaction in the document wins; mockServiceTransactions selects the active
 * transactions and overrides their priority. How a url is indexed (literal, template, regex)
 * never decides: only priority and age do.
 */

const kinds: Record<string, RequestDslInput> = {
  literal: { path: '/pets/1' },
  template: { path: '/pets/{id}' },
  'wide template': { path: '/{kind}/{id}' },
  regex: { url: { key: 'url', matcherName: 'matches', matchingValue: '/pets/[0-9]+' } },
  contains: { url: { matcherName: 'contains', matchingValue: 'pets' } },
  'no url': { method: 'GET' },
}
const names = Object.keys(kinds)
const pairs = names.flatMap((a) => names.filter((b) => b !== a).map((b) => ({ a, b })))

describe('precedence between url kinds for a path both match', () => {
  it.each(pairs)('$a with priority 1 beats $b with priority 10', ({ a, b }) => {
    const m = matcherOf([
      txn(a, kinds[a] ?? {}, { priority: 1 }),
      txn(b, kinds[b] ?? {}, { priority: 10 }),
    ])
    expect(matchName(m, request('GET', '/pets/1'))).toBe(a)
    const reversed = matcherOf([
      txn(b, kinds[b] ?? {}, { priority: 10 }),
      txn(a, kinds[a] ?? {}, { priority: 1 }),
    ])
    expect(matchName(reversed, request('GET', '/pets/1'))).toBe(a)
  })

  it.each(pairs)('$a loses to a later $b with the same priority', ({ a, b }) => {
    const m = matcherOf([
      txn(a, kinds[a] ?? {}, { priority: 5 }),
      txn(b, kinds[b] ?? {}, { priority: 5 }),
    ])
    expect(matchName(m, request('GET', '/pets/1'))).toBe(b)
  })

  it('lets a regex with priority 1 beat a literal path with priority 10, and lose with priority 20', () => {
    const regex = kinds['regex'] ?? {}
    expect(
      matchName(
        matcherOf([
          txn('literal', { path: '/pets/1' }, { priority: 10 }),
          txn('regex', regex, { priority: 1 }),
        ]),
        request('GET', '/pets/1'),
      ),
    ).toBe('regex')
    expect(
      matchName(
        matcherOf([
          txn('literal', { path: '/pets/1' }, { priority: 10 }),
          txn('regex', regex, { priority: 20 }),
        ]),
        request('GET', '/pets/1'),
      ),
    ).toBe('literal')
  })

  it('still serves the lower-priority transaction on paths the higher one does not match', () => {
    const m = matcherOf([
      txn('literal', { path: '/pets/1' }, { priority: 1 }),
      txn('template', { path: '/pets/{id}' }, { priority: 10 }),
    ])
    expect(matchName(m, request('GET', '/pets/2'))).toBe('template')
  })
})

describe('overlapping templates', () => {
  it.each([
    { specific: 10, generic: 1, winner: 'generic' },
    { specific: 1, generic: 10, winner: 'specific' },
    { specific: 5, generic: 5, winner: 'generic' },
  ])(
    'with priorities specific=$specific, generic=$generic are won by $winner',
    ({ specific, generic, winner }) => {
      const m = matcherOf([
        txn('specific', { path: '/pets/{id}' }, { priority: specific }),
        txn('generic', { path: '/{kind}/{id}' }, { priority: generic }),
      ])
      expect(matchName(m, request('GET', '/pets/1'))).toBe(winner)
      expect(matchName(m, request('GET', '/cats/1'))).toBe('generic')
    },
  )

  it('that cross (a literal segment in each) are ordered by priority for the path both match', () => {
    const m = matcherOf([
      txn('a', { path: '/x/{p}/c' }, { priority: 5 }),
      txn('b', { path: '/x/b/{q}' }, { priority: 1 }),
    ])
    expect(matchName(m, request('GET', '/x/b/c'))).toBe('b')
    expect(matchName(m, request('GET', '/x/z/c'))).toBe('a')
    expect(matchName(m, request('GET', '/x/b/z'))).toBe('b')
    const reversed = matcherOf([
      txn('a', { path: '/x/{p}/c' }, { priority: 1 }),
      txn('b', { path: '/x/b/{q}' }, { priority: 5 }),
    ])
    expect(matchName(reversed, request('GET', '/x/b/c'))).toBe('a')
  })

  it('with a partial segment and a whole segment are ordered by priority', () => {
    const m = matcherOf([
      txn('partial', { path: '/f/{n}.json' }, { priority: 10 }),
      txn('whole', { path: '/f/{n}' }, { priority: 1 }),
    ])
    expect(matchName(m, request('GET', '/f/a.json'))).toBe('whole')
  })
})

describe('priority', () => {
  it('defaults to 10', () => {
    const nine = matcherOf([
      txn('nine', { path: '/a' }, { priority: 9 }),
      txn('default', { path: '/a' }),
    ])
    expect(matchName(nine, request('GET', '/a'))).toBe('nine')
    const eleven = matcherOf([
      txn('default', { path: '/a' }),
      txn('eleven', { path: '/a' }, { priority: 11 }),
    ])
    expect(matchName(eleven, request('GET', '/a'))).toBe('default')
    const ten = matcherOf([
      txn('default', { path: '/a' }),
      txn('ten', { path: '/a' }, { priority: 10 }),
    ])
    expect(matchName(ten, request('GET', '/a'))).toBe('ten')
  })

  it('among equal priorities lets the last of several transactions win', () => {
    const m = matcherOf(['one', 'two', 'three', 'four'].map((n) => txn(n, { path: '/a' })))
    expect(matchName(m, request('GET', '/a'))).toBe('four')
  })

  it('accepts 0 as a priority above 1', () => {
    const m = matcherOf([
      txn('zero', { path: '/a' }, { priority: 0 }),
      txn('one', { path: '/a' }, { priority: 1 }),
    ])
    expect(matchName(m, request('GET', '/a'))).toBe('zero')
  })

  it('lists the active transactions in the order they are tried', () => {
    const m = matcherOf([
      txn('a', {}, { priority: 3 }),
      txn('b', {}, { priority: 1 }),
      txn('c', {}, { priority: 3 }),
      txn('d', {}),
    ])
    expect(m.active.map((t) => t.name)).toEqual(['b', 'c', 'a', 'd'])
    expect(m.transactions.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd'])
  })
})

describe('mockServiceTransactions', () => {
  const transactions = [
    txn('first', { path: '/a' }, { id: 1, priority: 1 }),
    txn('second', { path: '/a' }, { id: 2, priority: 10 }),
    txn('third', { path: '/b' }, { id: 3 }),
  ]

  it("override the transactions' own priorities", () => {
    const m = matcherOf({
      transactions,
      mockServiceTransactions: [{ txnId: 1, priority: 5 }, { txnId: 2, priority: 2 }, { txnId: 3 }],
    })
    expect(matchName(m, request('GET', '/a'))).toBe('second')
    expect(m.active.find((t) => t.id === 2)?.priority).toBe(2)
  })

  it('keep the own priority of an entry without one, or with a null one', () => {
    const m = matcherOf({
      transactions,
      mockServiceTransactions: [{ txnId: 1, priority: null }, { txnId: 2 }],
    })
    expect(matchName(m, request('GET', '/a'))).toBe('first')
    expect(m.active.map((t) => t.priority)).toEqual([1, 10])
  })

  it('select which transactions are active', () => {
    const m = matcherOf({ transactions, mockServiceTransactions: [2] })
    expect(matchName(m, request('GET', '/a'))).toBe('second')
    expect(matchName(m, request('GET', '/b'))).toBeUndefined()
    expect(m.active.map((t) => t.name)).toEqual(['second'])
    expect(m.transactions).toHaveLength(3)
  })

  it('accept integers and objects mixed', () => {
    const m = matcherOf({ transactions, mockServiceTransactions: [3, { txnId: 2, priority: 1 }] })
    expect(matchName(m, request('GET', '/a'))).toBe('second')
    expect(matchName(m, request('GET', '/b'))).toBe('third')
  })

  it('leave every transaction active when empty or null', () => {
    expect(matcherOf({ transactions, mockServiceTransactions: [] }).active).toHaveLength(3)
    expect(matcherOf({ transactions, mockServiceTransactions: null }).active).toHaveLength(3)
  })

  it('still let byId find an inactive transaction', () => {
    const m = matcherOf({ transactions, mockServiceTransactions: [2] })
    expect(m.byId(1)?.name).toBe('first')
    expect(m.byId(99)).toBeUndefined()
  })

  it('make transactions without an id inactive when they select', () => {
    const m = matcherOf({
      transactions: [...transactions, txn('no-id', { path: '/c' })],
      mockServiceTransactions: [1],
    })
    expect(matchName(m, request('GET', '/c'))).toBeUndefined()
  })
})

describe('methods', () => {
  it('match exactly, a method written in lowercase being uppercased', () => {
    const m = matcherOf([txn('get', { method: 'get', path: '/a' })])
    expect(matchName(m, request('GET', '/a'))).toBe('get')
    expect(matchName(m, request('POST', '/a'))).toBeUndefined()
    expect(matchName(m, request('HEAD', '/a'))).toBeUndefined()
  })

  it('match every method when absent or ANY, in any case', () => {
    for (const method of [undefined, 'ANY', 'any', 'Any']) {
      const m = matcherOf([
        txn('any', method === undefined ? { path: '/a' } : { method, path: '/a' }),
      ])
      for (const verb of ['GET', 'POST', 'DELETE', 'PROPFIND']) {
        expect(matchName(m, request(verb, '/a'))).toBe('any')
      }
    }
  })

  it('serve a method no transaction names with the method-less transactions only', () => {
    const m = matcherOf([
      txn('any', { path: '/a' }, { priority: 20 }),
      txn('get', { method: 'GET', path: '/a' }),
      txn('post', { method: 'POST', url: { matcherName: 'contains', matchingValue: '/' } }),
    ])
    expect(matchName(m, request('PATCH', '/a'))).toBe('any')
    expect(matchName(m, request('GET', '/a'))).toBe('get')
    expect(matchName(m, request('POST', '/a'))).toBe('post')
    expect(matchName(m, request('PATCH', '/b'))).toBeUndefined()
  })

  it('order method-less and method-specific transactions by priority together', () => {
    const m = matcherOf([
      txn('get', { method: 'GET', path: '/a' }, { priority: 10 }),
      txn('any', { path: '/a' }, { priority: 1 }),
    ])
    expect(matchName(m, request('GET', '/a'))).toBe('any')
    const n = matcherOf([txn('any', { path: '/a' }), txn('get', { method: 'GET', path: '/a' })])
    expect(matchName(n, request('GET', '/a'))).toBe('get')
    const o = matcherOf([txn('get', { method: 'GET', path: '/a' }), txn('any', { path: '/a' })])
    expect(matchName(o, request('GET', '/a'))).toBe('any')
  })

  it('accept uncommon method names', () => {
    const m = matcherOf([txn('purge', { method: 'purge', path: '/a' })])
    expect(matchName(m, request('PURGE', '/a'))).toBe('purge')
    expect(matchName(m, request('GET', '/a'))).toBeUndefined()
  })
})

describe('the compiled matcher', () => {
  it('says whether some active transaction needs the body or form fields', () => {
    expect(matcherOf([txn('a', { path: '/a' })])).toMatchObject({
      needsBody: false,
      needsForm: false,
    })
    expect(
      matcherOf([txn('a', { body: [{ key: '$.a', matcherName: 'equals', matchingValue: '1' }] })]),
    ).toMatchObject({ needsBody: true, needsForm: false })
    expect(
      matcherOf([
        txn('a', { body: [{ key: 'field', matcherName: 'equals', matchingValue: '1' }] }),
      ]),
    ).toMatchObject({ needsBody: true, needsForm: true })
    expect(
      matcherOf([txn('a', { body: [{ matcherName: 'absent', matchingValue: 'field' }] })]),
    ).toMatchObject({ needsBody: true, needsForm: true })
  })

  it('ignores the body needs of inactive transactions', () => {
    const m = matcherOf({
      transactions: [
        txn('a', { path: '/a' }, { id: 1 }),
        txn('b', { body: [{ key: 'f', matcherName: 'absent' }] }, { id: 2 }),
      ],
      mockServiceTransactions: [1],
    })
    expect(m).toMatchObject({ needsBody: false, needsForm: false })
  })

  it('returns null when nothing matches', () => {
    expect(matcherOf([txn('a', { path: '/a' })]).match(request('GET', '/b'))).toBeNull()
    expect(matcherOf([]).match(request('GET', '/b'))).toBeNull()
  })
})
