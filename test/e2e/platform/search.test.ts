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
    const service = await call<{ id: number }>(platform, a.auth.tester, 'POST', `${ws}/services`, { name: 'Petstore' })
    const names = ['list pets', 'get pet', 'delete pet', 'list owners', 'ping', 'Pet_admin']
    const created = await call(platform, a.auth.tester, 'POST', `${ws}/transactions?serviceId=${service.body.result.id}`, {
      transactions: names.map((name) => ({ name, dsl: { requestDsl: { method: 'GET', path: `/${name.replace(/\s/g, '-')}` }, responseDsl: { status: 200 } } })),
    })
    expect(created.status).toBe(200)
    const bService = await call<{ id: number }>(platform, b.auth.tester, 'POST', `/api/v1/workspaces/${b.workspaceId}/services`, { name: 'theirs' })
    await call(platform, b.auth.tester, 'POST', `/api/v1/workspaces/${b.workspaceId}/transactions?serviceId=${bService.body.result.id}`, {
      transactions: [{ name: 'secret pet', dsl: { requestDsl: { method: 'GET', path: '/x' }, responseDsl: { status: 200 } } }],
    })
    const search = async (auth: string, body: unknown) => call<Hit[]>(platform, auth, 'POST', '/api/v4/search', body)

    const substring = await search(a.auth.viewer, { entity: 'transactions', fields: ['*', 'service.*'], filters: { $and: [{ name: { $ilike: 'PET' } }] }, ordering: [{ name: 1 }], limit: 2 })
    expect(substring.status).toBe(200)
    expect(substring.body.total).toBe(4)
    expect(substring.body.result.map((h) => h.name)).toEqual(['delete pet', 'get pet'])
    expect(substring.body.result[0]).toMatchObject({ service: { id: service.body.result.id, name: 'Petstore' }, workspaceId: a.workspaceId })
    expect(substring.body['workspaceId']).toEqual([a.workspaceId])
    const page2 = await search(a.auth.viewer, { entity: 'transactions', filters: { name: { $ilike: 'pet' } }, ordering: [{ name: 1 }], skip: 2, limit: 2 })
    expect(page2.body.result.map((h) => h.name)).toEqual(['list pets', 'Pet_admin'])
    // `_` is literal, `%` a wildcard
    expect((await search(a.auth.viewer, { entity: 'transactions', filters: { name: { $ilike: 'pet_' } } })).body.result.map((h) => h.name)).toEqual(['Pet_admin'])
    expect((await search(a.auth.viewer, { entity: 'transactions', filters: { name: { $ilike: 'list%' } }, ordering: ['-name'] })).body.result.map((h) => h.name)).toEqual(['list pets', 'list owners'])

    const either = await search(a.auth.viewer, { entity: 'transactions', filters: { $or: [{ name: 'ping' }, { name: { $in: ['get pet', 'nothing'] } }] }, ordering: [{ id: -1 }] })
    expect(either.body.result.map((h) => h.name)).toEqual(['ping', 'get pet'])
    const byRelation = await search(a.auth.viewer, { entity: 'transactions', fields: ['name'], filters: { 'service.name': { $eq: 'Petstore' }, name: { $ne: 'ping' } }, limit: 0 })
    expect(byRelation.body.total).toBe(5)
    expect(Object.keys(byRelation.body.result[0] ?? {}).sort()).toEqual(['id', 'name'])

    // B sees none of A's, and A none of B's.
    expect((await search(b.auth.owner, { entity: 'transactions', filters: { name: { $ilike: 'pet' } } })).body.result.map((h) => h.name)).toEqual(['secret pet'])
    expect((await search(a.auth.owner, { entity: 'transactions', filters: { name: { $ilike: 'secret' } } })).body.total).toBe(0)
    expect((await search(b.auth.owner, { entity: 'transactions', workspaceId: a.workspaceId })).status).toBe(404)
    expect((await search(b.auth.owner, { entity: 'accounts' })).body.result.map((h) => h.id)).toEqual([b.accountId])
    const users = await search(a.auth.viewer, { entity: 'users', filters: { email: { $ilike: '@acme' } }, ordering: [{ email: 1 }] })
    expect(users.body.total).toBe(4)
    const workspaces = await search(a.auth.owner, { entity: 'workspaces', fields: ['name', 'account.*', 'owner.email'] })
    expect(workspaces.body.result[0]).toMatchObject({ account: { id: a.accountId }, owner: { email: 'owner@acme.test' } })
    expect((await search(a.auth.owner, { entity: 'mock-services' })).status).toBe(200)
    expect((await search(a.auth.owner, { entity: 'tags' })).status).toBe(200)
    expect((await search(a.auth.owner, { entity: 'services', filters: { created: { $gte: 0 } } })).body.total).toBe(1)
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
    const meta = await call<{ entities: Record<string, { fields: Record<string, string>; relations: Record<string, string> }>; operators: string[] }>(platform, platform.auth, 'GET', '/api/v4/search/metadata')
    expect(meta.status).toBe(200)
    expect(meta.body.result.entities['transactions']?.relations).toEqual({ service: 'services', workspace: 'workspaces' })
    expect(meta.body.result.operators).toEqual(expect.arrayContaining(['$eq', '$ne', '$ilike', '$in', '$gt', '$gte', '$lt', '$lte', '$and', '$or']))
  })
})
