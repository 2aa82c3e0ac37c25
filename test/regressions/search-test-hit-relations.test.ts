import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'
import { call, makeAccount } from '../e2e/platform/tenancy-helpers.js'

/*
 * The administration specification's search (docs/api.md#search): a test hit carries the related objects owner, workspace,
 * project, tags and locations, asked for with `<relation>.*` in `fields`. These patterns were
 * refused with 400 (only bucket and workspace were relations of a test).
 */

interface TestHit {
  id: string
  name: string
  userId: number
  projectId: number
  owner: { id: number; email: string; displayName: string }
  workspace: { id: number; name: string }
  project: { id: number; name: string; workspaceId: number }
  locations: Array<{ id: string; name: string }>
  tags: unknown[]
}

describe('search: the relations of a test hit', () => {
  it("answers owner, project, locations, workspace and tags of test-union hits, as the product's clients ask for them", async () => {
    const platform = await startTestPlatform({ monitoring: true })
    const acme = await makeAccount(platform, 'acme')
    const app = await call<unknown>(platform, acme.auth.owner, 'POST', '/apps', {
      name: 'search',
      website_url: 'https://ci.test',
      callback_url: 'https://ci.test/cb',
    })
    const bearer = `Bearer ${(app.body as unknown as { data: { access_token: string } }).data.access_token}`
    const bucket = await call<unknown>(
      platform,
      bearer,
      'POST',
      `/buckets?name=checks&team_uuid=${acme.workspaceId}`,
    )
    const key = (bucket.body as unknown as { data: { key: string } }).data.key
    expect(
      (await call(platform, bearer, 'POST', `/buckets/${key}/tests`, { name: 'login flow' }))
        .status,
    ).toBe(201)

    const me = await call<{ defaultProjectId: number }>(
      platform,
      acme.auth.owner,
      'GET',
      '/api/v4/user',
    )
    const reply = await call<TestHit[]>(platform, acme.auth.viewer, 'POST', '/api/v4/search', {
      accountId: acme.accountId,
      entity: 'test-union',
      fields: ['*', 'owner.*', 'project.*', 'locations.*', 'workspace.*', 'tags.*'],
      workspaceId: acme.workspaceId,
      filters: { $and: [{ name: { $ilike: 'login' } }] },
      ordering: [{ updated: -1 }],
      skip: 0,
      limit: 10,
    })
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeNull()
    expect(reply.body.total).toBe(1)
    const hit = reply.body.result[0]
    expect(hit).toMatchObject({
      name: 'login flow',
      userId: acme.userIds.owner,
      projectId: me.body.result.defaultProjectId,
      owner: { id: acme.userIds.owner, email: 'owner@acme.test', displayName: expect.any(String) },
      workspace: { id: acme.workspaceId, name: expect.any(String) },
      project: { id: me.body.result.defaultProjectId, workspaceId: acme.workspaceId },
      locations: [{ id: 'harbor-local', name: 'Local runtime host' }],
      tags: [],
    })
    // the relations can be named one field at a time too, and filter
    const narrow = await call<TestHit[]>(platform, acme.auth.viewer, 'POST', '/api/v4/search', {
      entity: 'test-union',
      fields: ['name', 'owner.email'],
      filters: { 'owner.email': 'owner@acme.test' },
    })
    expect(narrow.body.result).toEqual([
      { id: hit?.id, name: 'login flow', owner: { email: 'owner@acme.test' } },
    ])
    // an unknown relation is still refused, naming it
    const refused = await call(platform, acme.auth.viewer, 'POST', '/api/v4/search', {
      entity: 'test-union',
      fields: ['masters.*'],
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error?.details?.[0]?.path).toBe('/fields/0')
  })
})
