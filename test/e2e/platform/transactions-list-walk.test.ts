import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import {
  createService,
  createTransactions,
  envelope,
  formOf,
  transactionsPath,
  txn,
} from './catalog-helpers.js'

/*
 * A client walking a large list with limit/skip (pages continue by keyset behind the scenes,
 * docs/api.md "Lists") sees every transaction exactly once, and the total of every page.
 */

interface Listed {
  id: number
  name: string
}

async function walk(
  platform: TestPlatform,
  query: string,
  limit: number,
): Promise<{ ids: number[]; totals: Set<number | undefined> }> {
  const ids: number[] = []
  const totals = new Set<number | undefined>()
  for (let skip = 0; ; skip += limit) {
    const res = await platform.request(
      `${transactionsPath(platform)}?limit=${limit}&skip=${skip}&${query}`,
    )
    expect(res.status).toBe(200)
    const page = await envelope<Listed[]>(res)
    expect(page).toMatchObject({ limit, skip })
    totals.add(page.total)
    ids.push(...page.result.map((t) => t.id))
    if (page.result.length < limit) return { ids, totals }
    if (ids.length > (page.total ?? 0)) {
      throw new Error(`the walk gave ${ids.length} transactions of ${page.total}`)
    }
  }
}

async function createMany(
  platform: TestPlatform,
  serviceId: number,
  count: number,
  prefix: string,
): Promise<number[]> {
  const ids: number[] = []
  for (let from = 0; from < count; from += 500) {
    // names repeat (ignoring case) so that sorting by name has ties to break
    const batch = Array.from({ length: Math.min(500, count - from) }, (_, i) =>
      txn(
        `${(from + i) % 2 === 0 ? prefix : prefix.toUpperCase()} ${(from + i) % 37}`,
        `/p/${from + i}`,
      ),
    )
    ids.push(...(await createTransactions(platform, serviceId, batch)))
  }
  return ids
}

describe('/api/v1 transactions: walking every page of a large list', () => {
  it('gives each of 3,000 transactions exactly once, in every order, with the same total on every page', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const orders = await createService(platform, 'orders')
    const petIds = await createMany(platform, pets, 2000, 'pet')
    const orderIds = await createMany(platform, orders, 1000, 'order')
    const every = [...petIds, ...orderIds].sort((a, b) => a - b)

    const byId = await walk(platform, '', 100)
    expect(byId.ids).toEqual(every)
    expect([...byId.totals]).toEqual([3000])

    const byName = await walk(platform, 'sort=-name', 250)
    expect([...byName.ids].sort((a, b) => a - b)).toEqual(every)
    expect([...byName.totals]).toEqual([3000])

    const ofOrders = await walk(platform, `serviceId=${orders}&sort=-id`, 150)
    expect(ofOrders.ids).toEqual([...orderIds].reverse())
    expect([...ofOrders.totals]).toEqual([1000])

    const searched = await walk(platform, 'search=order 3', 40)
    expect([...searched.totals]).toEqual([searched.ids.length])
    expect(new Set(searched.ids).size).toBe(searched.ids.length)
  })

  it('counts an uploaded file and a deleted service in the total', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const orders = await createService(platform, 'orders')
    await createMany(platform, pets, 20, 'pet')
    const entries = Array.from({ length: 5 }, (_, i) => ({
      startedDateTime: '2024-01-01T00:00:00.000Z',
      time: 1,
      request: {
        method: 'GET',
        url: `http://example.com/orders/${i}`,
        httpVersion: 'HTTP/1.1',
        headers: [],
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: 0,
      },
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        headers: [],
        cookies: [],
        content: { size: 2, mimeType: 'application/json', text: '{}' },
        redirectURL: '',
        headersSize: -1,
        bodySize: 2,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    }))
    const har = { log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }
    const upload = await platform.request(transactionsPath(platform), {
      method: 'POST',
      body: formOf({ serviceId: String(orders) }, [
        { name: 'orders.har', bytes: JSON.stringify(har) },
      ]),
    })
    expect(upload.status).toBe(200)
    const totalOf = async (query: string) =>
      (
        await envelope<Listed[]>(
          await platform.request(`${transactionsPath(platform)}?limit=1&${query}`),
        )
      ).total
    expect(await totalOf('')).toBe(25)
    expect(await totalOf(`serviceId=${orders}`)).toBe(5)
    expect(
      (
        await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services/${pets}`, {
          method: 'DELETE',
        })
      ).status,
    ).toBe(200)
    expect(await totalOf('')).toBe(5)
    expect(await totalOf(`serviceId=${pets}`)).toBe(0)
  })

  it('keeps the total exact after deletes between pages', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const ids = await createMany(platform, pets, 600, 'pet')
    const first = await envelope<Listed[]>(
      await platform.request(`${transactionsPath(platform)}?limit=100`),
    )
    expect(first.total).toBe(600)
    for (const id of ids.slice(0, 3)) {
      expect(
        (await platform.request(`${transactionsPath(platform)}/${id}`, { method: 'DELETE' }))
          .status,
      ).toBe(200)
    }
    const next = await envelope<Listed[]>(
      await platform.request(`${transactionsPath(platform)}?limit=100&skip=100`),
    )
    expect(next.total).toBe(597)
    // OFFSET 100 of the list as it is now
    expect(next.result.map((t) => t.id)).toEqual(ids.slice(103, 203))
  })
})

describe('/api/v1 transactions: the total of a filtered list', () => {
  // Filtered totals are counted once and reused while nothing changes (docs/api.md "What a list
  // costs"): every write between two identical requests must show in the second one's total.
  it('follows creates, tag changes and deletes made between identical requests', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const ids = await createMany(platform, pets, 40, 'pet')
    const totalOf = async (query: string): Promise<number | undefined> =>
      (
        await envelope<Listed[]>(
          await platform.request(`${transactionsPath(platform)}?limit=5&${query}`),
        )
      ).total
    // names are "pet 0".."pet 36" and "PET 0"...: "pet 1" matches pet 1 and pet 10-19 in either case
    const matching = (await totalOf('search=pet%201')) ?? 0
    expect(matching).toBeGreaterThan(0)
    expect(await totalOf('search=pet%201')).toBe(matching)
    expect(await totalOf('tags=smoke')).toBe(0)

    await createTransactions(platform, pets, [txn('pet 1 extra', '/extra', { tags: ['smoke'] })])
    expect(await totalOf('search=pet%201')).toBe(matching + 1)
    expect(await totalOf('tags=smoke')).toBe(1)

    const tagged = await platform.request(transactionsPath(platform), {
      method: 'PATCH',
      json: { action: 'ADD_TAGS', tags: ['smoke'], transactions: ids.slice(0, 3) },
    })
    expect(tagged.status).toBe(200)
    expect(await totalOf('tags=smoke')).toBe(4)

    expect(
      (await platform.request(`${transactionsPath(platform)}/${ids[1] ?? 0}`, { method: 'DELETE' }))
        .status,
    ).toBe(200)
    expect(await totalOf('tags=smoke')).toBe(3)
    expect(await totalOf('search=pet%201')).toBe(matching)
  })
})

describe('/api/v1 transactions: filtered lists across writes', () => {
  // A small write moves the kept positions of the workspace's lists (src/store/sqlite/
  // list-changes.ts) instead of having them read again: every page after it, near or far, and
  // every total, must be those of the list as it is now.
  it('answer every page and total as a fresh read after creates, renames, moves, tag changes, deletes and a service delete', async () => {
    const platform = await startTestPlatform()
    const pets = await createService(platform, 'pets')
    const orders = await createService(platform, 'orders')
    const spare = await createService(platform, 'spare')
    const petIds = await createMany(platform, pets, 2000, 'pet')
    await createMany(platform, orders, 1000, 'order')
    await createMany(platform, spare, 30, 'pet')
    const lists: Array<{ query: string; filter: Record<string, unknown>; sort: string }> = [
      { query: 'search=pet%201&sort=name', filter: { contains: 'pet 1' }, sort: 'name' },
      { query: 'search=pet%201&sort=-created', filter: { contains: 'pet 1' }, sort: '-created' },
      { query: 'tags=smoke&sort=updatedBy', filter: { tags: ['smoke'] }, sort: 'updatedBy' },
      {
        query: `serviceId=${pets}&search=3`,
        filter: { serviceId: pets, contains: '3' },
        sort: 'id',
      },
      { query: 'sort=-name', filter: {}, sort: '-name' },
    ]
    const check = async (when: string): Promise<void> => {
      for (const { query, filter, sort } of lists) {
        const fresh = await platform.store.transactions.list(platform.workspaceId, filter, {
          limit: -1,
          skip: 0,
          sort,
        })
        const every = fresh.items.map((t) => t.id)
        for (const skip of [0, 40, 1100, Math.max(0, every.length - 5)]) {
          const page = await envelope<Listed[]>(
            await platform.request(`${transactionsPath(platform)}?limit=20&skip=${skip}&${query}`),
          )
          expect(page.total, `${when}: ${query} total`).toBe(every.length)
          expect(
            page.result.map((t) => t.id),
            `${when}: ${query} skip ${skip}`,
          ).toEqual(every.slice(skip, skip + 20))
        }
      }
    }
    await check('before any write')
    const [first, second, third] = petIds.slice(1000, 1003) as [number, number, number]
    const writes: Array<[string, () => Promise<Response>]> = [
      [
        'a create',
        async () =>
          await platform.request(`${transactionsPath(platform)}?serviceId=${pets}`, {
            method: 'POST',
            json: { transactions: [txn('AAA pet 1 new', '/new', { tags: ['smoke'] })] },
          }),
      ],
      [
        'a rename',
        async () =>
          await platform.request(`${transactionsPath(platform)}/${first}`, {
            method: 'PUT',
            json: { name: 'pet 1 renamed to the front 0' },
          }),
      ],
      [
        'a move to another service',
        async () =>
          await platform.request(`${transactionsPath(platform)}/${second}`, {
            method: 'PUT',
            json: { serviceId: orders },
          }),
      ],
      [
        'a tag change',
        async () =>
          await platform.request(transactionsPath(platform), {
            method: 'PATCH',
            json: { action: 'ADD_TAGS', tags: ['smoke'], transactions: petIds.slice(5, 9) },
          }),
      ],
      [
        'a delete',
        async () =>
          await platform.request(`${transactionsPath(platform)}/${third}`, { method: 'DELETE' }),
      ],
      [
        "a service's delete, with its transactions",
        async () =>
          await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services/${spare}`, {
            method: 'DELETE',
          }),
      ],
    ]
    for (const [what, write] of writes) {
      const res = await write()
      expect(res.status, what).toBeLessThan(300)
      await check(`after ${what}`)
    }
  }, 120_000)
})
