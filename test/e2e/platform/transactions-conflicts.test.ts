import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import {
  createService,
  createTransactions,
  envelope,
  expectError,
  expectScoped,
  transactionsPath,
  txn,
} from './catalog-helpers.js'

type Groups = Record<
  string,
  Array<{ id: number; name: string; serviceName: string; link: string; dsl: unknown }>
>

async function conflicts(platform: TestPlatform, query = ''): Promise<Record<string, string[]>> {
  const res = await platform.request(`${transactionsPath(platform)}/conflicts${query}`)
  expect(res.status).toBe(200)
  const { result } = await envelope<Groups>(res)
  return Object.fromEntries(
    Object.entries(result).map(([name, list]) => [name, list.map((t) => t.name)]),
  )
}

const header = (key: string, matcherName: string, matchingValue?: string, optional?: boolean) => ({
  key,
  matcherName,
  ...(matchingValue === undefined ? {} : { matchingValue }),
  ...(optional === undefined ? {} : { optional }),
})

describe('/api/v1 transactions: conflicts', () => {
  it('answers an empty object when no two transactions overlap', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('list', '/pets'),
      txn('create', '/pets', { method: 'POST' }),
      txn('one', '/pets/{id}'),
    ])
    expect(await conflicts(platform)).toEqual({})
  })

  it('groups transactions of one service with the same method and URL, templates and trailing slashes normalized', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('one', '/pets/{id}'),
      txn('again', '/pets/{petId}/'),
      txn('other', '/owners'),
    ])
    const res = await platform.request(`${transactionsPath(platform)}/conflicts`)
    const { result } = await envelope<Groups>(res)
    expect(Object.keys(result)).toEqual(['pets: GET /pets/{id}'])
    const group = result['pets: GET /pets/{id}'] ?? []
    expect(group.map((t) => t.name)).toEqual(['one', 'again'])
    expect(group[0]).toMatchObject({
      serviceName: 'pets',
      link: expect.stringContaining('/transactions/') as unknown,
    })
  })

  it('counts a transaction without a method as overlapping every method', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      { name: 'any', dsl: { requestDsl: { path: '/pets' }, responseDsl: { status: 200 } } },
      txn('get', '/pets'),
      txn('post', '/pets', { method: 'POST' }),
    ])
    expect(await conflicts(platform)).toEqual({
      'pets: ANY|GET|POST /pets': ['any', 'get', 'post'],
    })
  })

  it('tells apart equals matchers with different values on the same header, query parameter, cookie or body key', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('v1', '/pets', { request: { headers: [header('X-Version', 'equals', '1')] } }),
      txn('v2', '/pets', { request: { headers: [header('x-version', 'equals', '2')] } }),
      txn('q1', '/q', { request: { queryParams: [header('page', 'equals', '1')] } }),
      txn('q2', '/q', { request: { queryParams: [header('page', 'equals_insensitive', '2')] } }),
      txn('c1', '/c', { request: { cookies: [header('s', 'equals', 'a')] } }),
      txn('c2', '/c', { request: { cookies: [header('s', 'equals', 'b')] } }),
      txn('b1', '/b', { method: 'POST', request: { body: [header('$.kind', 'equals', 'cat')] } }),
      txn('b2', '/b', { method: 'POST', request: { body: [header('$.kind', 'equals', 'dog')] } }),
      txn('j1', '/j', {
        method: 'POST',
        request: { body: [{ matcherName: 'equals_json', matchingValue: '{"a": 1}' }] },
      }),
      txn('j2', '/j', {
        method: 'POST',
        request: { body: [{ matcherName: 'equals_json', matchingValue: '{"a": 2}' }] },
      }),
    ])
    expect(await conflicts(platform)).toEqual({})
  })

  it('tells apart absent from any matcher that needs the item', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('no auth', '/pets', {
        request: { headers: [{ matcherName: 'absent', matchingValue: 'Authorization' }] },
      }),
      txn('auth', '/pets', {
        request: { headers: [header('authorization', 'contains', 'Bearer')] },
      }),
    ])
    expect(await conflicts(platform)).toEqual({})
  })

  it('reports what it cannot prove apart: contains against equals, optional matchers, case-only differences, JSON placeholders', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('equals', '/a', { request: { headers: [header('x', 'equals', 'abc')] } }),
      txn('contains', '/a', { request: { headers: [header('x', 'contains', 'b')] } }),
      txn('optional 1', '/b', { request: { queryParams: [header('p', 'equals', '1', true)] } }),
      txn('optional 2', '/b', { request: { queryParams: [header('p', 'equals', '2')] } }),
      txn('case 1', '/c', { request: { headers: [header('x', 'equals_insensitive', 'ABC')] } }),
      txn('case 2', '/c', { request: { headers: [header('x', 'equals', 'abc')] } }),
      txn('json 1', '/d', {
        method: 'POST',
        request: {
          body: [
            {
              matcherName: 'equals_json',
              matchingValue: JSON.stringify({ a: '$' + '{json-unit.any-number}' }),
            },
          ],
        },
      }),
      txn('json 2', '/d', {
        method: 'POST',
        request: { body: [{ matcherName: 'equals_json', matchingValue: '{"a": 2}' }] },
      }),
    ])
    expect(await conflicts(platform)).toEqual({
      'pets: GET /a': ['equals', 'contains'],
      'pets: GET /b': ['optional 1', 'optional 2'],
      'pets: GET /c': ['case 1', 'case 2'],
      'pets: POST /d': ['json 1', 'json 2'],
    })
  })

  it('joins transactions linked through a common overlap into one group, and numbers groups of the same name', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('plain', '/pets'),
      txn('v1', '/pets', { request: { headers: [header('v', 'equals', '1')] } }),
      txn('v2', '/pets', { request: { headers: [header('v', 'equals', '2')] } }),
      txn('x1', '/x', { request: { headers: [header('v', 'equals', '1')] } }),
      txn('x1 again', '/x', { request: { headers: [header('v', 'equals', '1')] } }),
      txn('x2', '/x', { request: { headers: [header('v', 'equals', '2')] } }),
      txn('x2 again', '/x', { request: { headers: [header('v', 'equals', '2')] } }),
    ])
    expect(await conflicts(platform)).toEqual({
      'pets: GET /pets': ['plain', 'v1', 'v2'],
      'pets: GET /x': ['x1', 'x1 again'],
      'pets: GET /x (2)': ['x2', 'x2 again'],
    })
  })

  it('compares URL matchers by name and value: a regex and a path are different URL matchers', async () => {
    const platform = await startTestPlatform()
    const id = await createService(platform, 'pets')
    await createTransactions(platform, id, [
      txn('path', '/pets/1'),
      {
        name: 'regex',
        dsl: {
          requestDsl: { method: 'GET', url: { matcherName: 'matches', matchingValue: '/pets/.*' } },
          responseDsl: { status: 200 },
        },
      },
      {
        name: 'regex alias',
        dsl: {
          requestDsl: {
            method: 'GET',
            url: { matcherName: 'matches_url', matchingValue: '/pets/.*' },
          },
          responseDsl: { status: 200 },
        },
      },
    ])
    expect(await conflicts(platform)).toEqual({
      'pets: GET matches /pets/.*': ['regex', 'regex alias'],
    })
  })

  it('never groups transactions of different services, and filters by serviceId', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const orders = await createService(platform, 'orders')
    await createTransactions(platform, pets, [txn('a', '/same'), txn('b', '/same')])
    await createTransactions(platform, orders, [txn('c', '/same'), txn('d', '/other')])
    expect(await conflicts(platform)).toEqual({ 'pets: GET /same': ['a', 'b'] })
    expect(await conflicts(platform, `?serviceId=${orders}`)).toEqual({})
    await expectError(
      await platform.request(`${transactionsPath(platform)}/conflicts?serviceId=x`),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
  })

  it('answers 404 for another account, 401 without credentials', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => `${transactionsPath(platform, ws)}/conflicts`)
  })
})
