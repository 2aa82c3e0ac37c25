import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
import { call, makeAccount } from './tenancy-helpers.js'

type Hit = Record<string, unknown> & { id: number; name: string }

describe('POST /api/v4/search', () => {
  it('filters by substring and $or, orders, pages, joins relations, and shows only what the caller sees', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const ws = `/api/v1/workspaces/${a.workspaceId}`
    const service = await call<{ id: number }>(platform, a.auth.tester, 'POST', `${ws}/services`, {
      name: 'Petstore',
    })
    const names = ['list pets', 'get pet', 'delete pet', 'list owners', 'ping', 'Pet_admin']
    const created = await call(
      platform,
      a.auth.tester,
      'POST',
      `${ws}/transactions?serviceId=${service.body.result.id}`,
      {
        transactions: names.map((name) => ({
          name,
          dsl: {
            requestDsl: { method: 'GET', path: `/${name.replace(/\s/g, '-')}` },
            responseDsl: { status: 200 },
          },
        })),
      },
    )
    expect(created.status).toBe(200)
    const bService = await call<{ id: number }>(
      platform,
      b.auth.tester,
      'POST',
      `/api/v1/workspaces/${b.workspaceId}/services`,
      { name: 'theirs' },
    )
    await call(
      platform,
      b.auth.tester,
      'POST',
      `/api/v1/workspaces/${b.workspaceId}/transactions?serviceId=${bService.body.result.id}`,
      {
        transactions: [
          {
            name: 'secret pet',
            dsl: { requestDsl: { method: 'GET', path: '/x' }, responseDsl: { status: 200 } },
          },
        ],
      },
    )
    const search = async (auth: string, body: unknown) =>
      call<Hit[]>(platform, auth, 'POST', '/api/v4/search', body)

    const substring = await search(a.auth.viewer, {
      entity: 'transactions',
      fields: ['*', 'service.*'],
      filters: { $and: [{ name: { $ilike: 'PET' } }] },
      ordering: [{ name: 1 }],
      limit: 2,
    })
    expect(substring.status).toBe(200)
    expect(substring.body.total).toBe(4)
    expect(substring.body.result.map((h) => h.name)).toEqual(['delete pet', 'get pet'])
    expect(substring.body.result[0]).toMatchObject({
      service: { id: service.body.result.id, name: 'Petstore' },
      workspaceId: a.workspaceId,
    })
    expect(substring.body['workspaceId']).toEqual([a.workspaceId])
    const page2 = await search(a.auth.viewer, {
      entity: 'transactions',
      filters: { name: { $ilike: 'pet' } },
      ordering: [{ name: 1 }],
      skip: 2,
      limit: 2,
    })
    expect(page2.body.result.map((h) => h.name)).toEqual(['list pets', 'Pet_admin'])
    // `_` is literal, `%` a wildcard
    expect(
      (
        await search(a.auth.viewer, {
          entity: 'transactions',
          filters: { name: { $ilike: 'pet_' } },
        })
      ).body.result.map((h) => h.name),
    ).toEqual(['Pet_admin'])
    expect(
      (
        await search(a.auth.viewer, {
          entity: 'transactions',
          filters: { name: { $ilike: 'list%' } },
          ordering: ['-name'],
        })
      ).body.result.map((h) => h.name),
    ).toEqual(['list pets', 'list owners'])

    const either = await search(a.auth.viewer, {
      entity: 'transactions',
      filters: { $or: [{ name: 'ping' }, { name: { $in: ['get pet', 'nothing'] } }] },
      ordering: [{ id: -1 }],
    })
    expect(either.body.result.map((h) => h.name)).toEqual(['ping', 'get pet'])
    const byRelation = await search(a.auth.viewer, {
      entity: 'transactions',
      fields: ['name'],
      filters: { 'service.name': { $eq: 'Petstore' }, name: { $ne: 'ping' } },
      limit: 0,
    })
    expect(byRelation.body.total).toBe(5)
    expect(Object.keys(byRelation.body.result[0] ?? {}).sort()).toEqual(['id', 'name'])

    // B sees none of A's, and A none of B's.
    expect(
      (
        await search(b.auth.owner, { entity: 'transactions', filters: { name: { $ilike: 'pet' } } })
      ).body.result.map((h) => h.name),
    ).toEqual(['secret pet'])
    expect(
      (
        await search(a.auth.owner, {
          entity: 'transactions',
          filters: { name: { $ilike: 'secret' } },
        })
      ).body.total,
    ).toBe(0)
    expect(
      (await search(b.auth.owner, { entity: 'transactions', workspaceId: a.workspaceId })).status,
    ).toBe(404)
    expect(
      (await search(b.auth.owner, { entity: 'accounts' })).body.result.map((h) => h.id),
    ).toEqual([b.accountId])
    const users = await search(a.auth.viewer, {
      entity: 'users',
      filters: { email: { $ilike: '@acme' } },
      ordering: [{ email: 1 }],
    })
    expect(users.body.total).toBe(4)
    const workspaces = await search(a.auth.owner, {
      entity: 'workspaces',
      fields: ['name', 'account.*', 'owner.email'],
    })
    expect(workspaces.body.result[0]).toMatchObject({
      account: { id: a.accountId },
      owner: { email: 'owner@acme.test' },
    })
    expect((await search(a.auth.owner, { entity: 'mock-services' })).status).toBe(200)
    expect((await search(a.auth.owner, { entity: 'tags' })).status).toBe(200)
    expect(
      (await search(a.auth.owner, { entity: 'services', filters: { created: { $gte: 0 } } })).body
        .total,
    ).toBe(1)
  })

  it('refuses unknown entities, fields, relations and operators, and wrong value types, naming the failing part', async () => {
    const platform = await startTestPlatform()
    const cases: Array<[unknown, string]> = [
      [{ entity: 'spaceships' }, '/entity'],
      [{ entity: 'transactions', fields: ['nope'] }, '/fields/0'],
      [{ entity: 'transactions', fields: ['owner.*'] }, '/fields/0'],
      [{ entity: 'transactions', filters: { $and: [{ nope: 1 }] } }, '/filters/$and/0/nope'],
      [{ entity: 'transactions', filters: { name: { $regex: 'x' } } }, '/filters/name/$regex'],
      [{ entity: 'transactions', filters: { id: { $gt: 'one' } } }, '/filters/id/$gt'],
      [{ entity: 'transactions', filters: { id: { $ilike: 'x' } } }, '/filters/id/$ilike'],
      [{ entity: 'transactions', filters: { $or: [] } }, '/filters/$or'],
      [{ entity: 'transactions', filters: { name: { $in: 'x' } } }, '/filters/name/$in'],
      [{ entity: 'transactions', ordering: [{ name: 2 }] }, '/ordering/0/name'],
      [{ entity: 'transactions', ordering: [{ 'name; DROP TABLE users': 1 }] }, '/ordering/0'],
      [{ entity: 'transactions', limit: 'ten' }, '/limit'],
      [{ entity: 'transactions', color: 'red' }, '/color'],
    ]
    for (const [body, path] of cases) {
      const reply = await call(platform, platform.auth, 'POST', '/api/v4/search', body)
      expect(`${JSON.stringify(body)} ${reply.status}`).toBe(`${JSON.stringify(body)} 400`)
      expect(reply.body.error?.details?.[0]?.path).toBe(path)
    }
    const meta = await call<{
      entities: Record<
        string,
        { fields: Record<string, string>; relations: Record<string, string> }
      >
      operators: string[]
    }>(platform, platform.auth, 'GET', '/api/v4/search/metadata')
    expect(meta.status).toBe(200)
    expect(meta.body.result.entities['transactions']?.relations).toEqual({
      service: 'services',
      workspace: 'workspaces',
    })
    expect(meta.body.result.operators).toEqual(
      expect.arrayContaining([
        '$eq',
        '$ne',
        '$ilike',
        '$in',
        '$gt',
        '$gte',
        '$lt',
        '$lte',
        '$and',
        '$or',
      ]),
    )
  })

  it('filters transactions by tag ($in, $eq, $ne, $ilike, tags.name) and shows tags.* as a list', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const ws = `/api/v1/workspaces/${a.workspaceId}`
    const service = await call<{ id: number }>(platform, a.auth.tester, 'POST', `${ws}/services`, {
      name: 'tagged',
    })
    const txn = (name: string, tags: string[]) => ({
      name,
      tags,
      dsl: { requestDsl: { method: 'GET', path: `/${name}` }, responseDsl: { status: 200 } },
    })
    const created = await call(
      platform,
      a.auth.tester,
      'POST',
      `${ws}/transactions?serviceId=${service.body.result.id}`,
      {
        transactions: [
          txn('one', ['smoke', 'orders']),
          txn('two', ['orders']),
          txn('three', []),
          txn('four', ['smoke-extra']),
        ],
      },
    )
    expect(created.status).toBe(200)
    // The transactions' tags are in the account's tag catalog (with an id) once used.
    const catalog = await call<Array<{ id: number; name: string }>>(
      platform,
      a.auth.viewer,
      'GET',
      '/api/v1/tags?limit=0',
    )
    const idOf = (name: string): number | undefined =>
      catalog.body.result.find((t) => t.name === name)?.id
    expect(idOf('smoke')).toEqual(expect.any(Number))
    const names = async (filters: unknown): Promise<string[]> => {
      const reply = await call<Hit[]>(platform, a.auth.viewer, 'POST', '/api/v4/search', {
        entity: 'transactions',
        filters,
        ordering: [{ name: 1 }],
        limit: 0,
      })
      expect(reply.status).toBe(200)
      return reply.body.result.map((h) => h.name)
    }
    expect(await names({ tags: { $in: ['smoke'] } })).toEqual(['one'])
    expect(await names({ tags: { $in: ['smoke', 'orders'] } })).toEqual(['one', 'two'])
    expect(await names({ tags: 'orders' })).toEqual(['one', 'two'])
    expect(await names({ 'tags.name': { $eq: 'orders' } })).toEqual(['one', 'two'])
    expect(await names({ tags: { $ilike: 'SMOKE' } })).toEqual(['four', 'one'])
    expect(await names({ tags: { $ne: 'orders' } })).toEqual(['four', 'three'])
    expect(await names({ tags: { $eq: null } })).toEqual(['three'])
    expect(await names({ $or: [{ tags: 'smoke-extra' }, { name: 'two' }] })).toEqual([
      'four',
      'two',
    ])
    expect(await names({ $and: [{ tags: 'orders' }, { tags: 'smoke' }] })).toEqual(['one'])

    const shown = await call<Array<Hit & { tags: unknown }>>(
      platform,
      a.auth.viewer,
      'POST',
      '/api/v4/search',
      { entity: 'transactions', fields: ['name', 'tags.*'], filters: { name: 'one' } },
    )
    expect(shown.body.result[0]?.tags).toEqual([
      { id: idOf('smoke'), name: 'smoke', description: expect.toBeOneOf([null, '']) },
      { id: idOf('orders'), name: 'orders', description: expect.toBeOneOf([null, '']) },
    ])
    const namesOnly = await call<Array<Hit & { tags: unknown }>>(
      platform,
      a.auth.viewer,
      'POST',
      '/api/v4/search',
      { entity: 'transactions', fields: ['tags.name'], filters: { name: 'three' } },
    )
    expect(namesOnly.body.result[0]).toEqual({ id: expect.any(Number), tags: [] })

    for (const [body, path] of [
      [{ entity: 'transactions', filters: { tags: { $gt: 'a' } } }, '/filters/tags/$gt'],
      [{ entity: 'transactions', filters: { tags: { $in: [1] } } }, '/filters/tags/$in/0'],
      [{ entity: 'transactions', filters: { tags: 7 } }, '/filters/tags'],
      [{ entity: 'transactions', ordering: [{ tags: 1 }] }, '/ordering/0'],
      [{ entity: 'transactions', fields: ['tags.colour'] }, '/fields/0'],
    ] as const) {
      const reply = await call(platform, a.auth.viewer, 'POST', '/api/v4/search', body)
      expect(`${JSON.stringify(body)} ${reply.status}`).toBe(`${JSON.stringify(body)} 400`)
      expect(reply.body.error?.details?.[0]?.path).toBe(path)
    }
    const meta = await call<{
      entities: Record<string, { lists: Record<string, { fields: string[]; operators: string[] }> }>
    }>(platform, a.auth.viewer, 'GET', '/api/v4/search/metadata')
    expect(meta.body.result.entities['transactions']?.lists['tags']).toEqual({
      entity: 'tags',
      fields: ['id', 'name', 'description'],
      operators: ['$eq', '$ne', '$ilike', '$in'],
    })
  })

  it("searches monitoring tests in the caller's workspaces only, through their bucket", async () => {
    const platform = await startTestPlatform({ monitoring: true })
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const bearer = async (auth: string): Promise<string> => {
      const app = await call<unknown>(platform, auth, 'POST', '/apps', {
        name: 'search',
        website_url: 'https://ci.test',
        callback_url: 'https://ci.test/cb',
      })
      return `Bearer ${(app.body as unknown as { data: { access_token: string } }).data.access_token}`
    }
    const makeTests = async (
      auth: string,
      workspaceId: number,
      names: string[],
    ): Promise<string> => {
      const token = await bearer(auth)
      const bucket = await call<unknown>(
        platform,
        token,
        'POST',
        `/buckets?name=checks&team_uuid=${workspaceId}`,
      )
      expect(bucket.status).toBe(201)
      const key = (bucket.body as unknown as { data: { key: string } }).data.key
      for (const name of names) {
        expect(
          (
            await call(platform, token, 'POST', `/buckets/${key}/tests`, {
              name,
              description: `${name} test`,
            })
          ).status,
        ).toBe(201)
      }
      return key
    }
    const keyA = await makeTests(a.auth.owner, a.workspaceId, [
      'login flow',
      'checkout flow',
      'health',
    ])
    await makeTests(b.auth.owner, b.workspaceId, ['secret flow'])
    const flows = await call<
      Array<Hit & { bucket: { key: string; name: string }; workspace: { id: number } }>
    >(platform, a.auth.viewer, 'POST', '/api/v4/search', {
      entity: 'tests',
      fields: ['*', 'bucket.*', 'workspace.name'],
      filters: { name: { $ilike: 'flow' } },
      ordering: [{ name: 1 }],
    })
    expect(flows.status).toBe(200)
    expect(flows.body.total).toBe(2)
    expect(flows.body.result.map((h) => h.name)).toEqual(['checkout flow', 'login flow'])
    expect(flows.body.result[0]).toMatchObject({
      id: expect.any(String),
      bucketKey: keyA,
      workspaceId: a.workspaceId,
      description: 'checkout flow test',
      bucket: { key: keyA, name: 'checks' },
      workspace: { name: expect.any(String) },
    })
    // Filters on the relations; the product's entity name test-union is an alias.
    const byBucket = await call<Hit[]>(platform, a.auth.viewer, 'POST', '/api/v4/search', {
      entity: 'test-union',
      filters: { 'bucket.name': 'checks', 'workspace.id': a.workspaceId },
      limit: 2,
      skip: 1,
      ordering: ['-name'],
    })
    expect(byBucket.body.total).toBe(3)
    expect(byBucket.body.result.map((h) => h.name)).toEqual(['health', 'checkout flow'])
    // Another account sees only its own; a workspace it cannot see is 404.
    const theirs = await call<Hit[]>(platform, b.auth.viewer, 'POST', '/api/v4/search', {
      entity: 'tests',
      filters: { name: { $ilike: 'flow' } },
    })
    expect(theirs.body.result.map((h) => h.name)).toEqual(['secret flow'])
    expect(
      (
        await call(platform, b.auth.owner, 'POST', '/api/v4/search', {
          entity: 'tests',
          workspaceId: a.workspaceId,
        })
      ).status,
    ).toBe(404)
    // A member removed from the workspace no longer finds its tests.
    expect(
      (
        await call(
          platform,
          a.auth.owner,
          'DELETE',
          `/api/v4/workspaces/${a.workspaceId}/users/${a.userIds.viewer}`,
        )
      ).status,
    ).toBe(200)
    expect(
      (await call(platform, a.auth.viewer, 'POST', '/api/v4/search', { entity: 'tests' })).body
        .total,
    ).toBe(0)
    const meta = await call<{
      entities: Record<
        string,
        { fields: Record<string, string>; relations: Record<string, string> }
      >
    }>(platform, a.auth.viewer, 'GET', '/api/v4/search/metadata')
    expect(meta.body.result.entities['tests']?.relations).toEqual({
      bucket: 'buckets',
      workspace: 'workspaces',
      owner: 'users',
      project: 'projects',
    })
    expect(meta.body.result.entities['tests']?.fields).toMatchObject({
      id: 'string',
      name: 'string',
      workspaceId: 'integer',
    })
  })
})
