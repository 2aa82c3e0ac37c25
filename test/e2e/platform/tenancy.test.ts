import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { formOf } from './catalog-helpers.js'
import { basic, call, makeAccount, type TestAccount } from './tenancy-helpers.js'

async function twoAccounts(): Promise<{ platform: TestPlatform; a: TestAccount; b: TestAccount }> {
  const platform = await startTestPlatform()
  return {
    platform,
    a: await makeAccount(platform, 'acme'),
    b: await makeAccount(platform, 'globex'),
  }
}

/** Every v1 object type in account A, made with A's owner key. */
async function objectsOf(platform: TestPlatform, a: TestAccount) {
  const ws = `/api/v1/workspaces/${a.workspaceId}`
  const service = await call<{ id: number }>(platform, a.auth.owner, 'POST', `${ws}/services`, {
    name: 'pets',
  })
  expect(service.status).toBe(201)
  const serviceId = service.body.result.id
  const txn = await call<Array<{ id: number }>>(
    platform,
    a.auth.owner,
    'POST',
    `${ws}/transactions?serviceId=${serviceId}`,
    {
      transactions: [
        {
          name: 'list',
          tags: ['smoke'],
          dsl: {
            requestDsl: { method: 'GET', path: '/pets' },
            responseDsl: { status: 200, json: [] },
          },
        },
      ],
    },
  )
  expect(txn.status).toBe(200)
  const txnId = (
    Array.isArray(txn.body.result)
      ? txn.body.result[0]!
      : (txn.body.result as unknown as { id: number })
  ).id
  const mock = await call<{ id: number }>(platform, a.auth.owner, 'POST', `${ws}/service-mocks`, {
    serviceId,
    name: 'pets mock',
    mockServiceTransactions: [{ txnId, priority: 1 }],
  })
  expect(mock.status).toBe(201)
  const assetRes = await platform.request(`${ws}/assets`, {
    method: 'POST',
    headers: { authorization: a.auth.owner },
    body: formOf({ type: 'MAR', platformVseId: '0' }, [
      { name: 'pets.mar', bytes: 'MAR', type: 'application/java-archive' },
    ]),
  })
  expect(assetRes.status).toBe(201)
  const assetId = ((await assetRes.json()) as { result: { id: number } }).result.id
  const tags = await call<Array<{ id: number; name: string }>>(
    platform,
    a.auth.owner,
    'GET',
    '/api/v1/tags',
  )
  const tagId = tags.body.result.find((t) => t.name === 'smoke')?.id ?? 0
  const tracking = await platform.store.write(async (tx) =>
    tx.trackings.create({
      trackingId: 'trk-a',
      workspaceId: a.workspaceId,
      mockServiceId: mock.body.result.id,
      action: 'deploy',
      status: 'FINISHED',
      errors: [],
      warnings: [],
      createdBy: null,
    }),
  )
  return {
    ws,
    serviceId,
    txnId,
    mockId: mock.body.result.id,
    assetId,
    tagId,
    trackingId: tracking.trackingId,
  }
}

describe('tenancy: accounts, roles and isolation', () => {
  it('makes two accounts with an owner, admin, tester and viewer through the API, and GET /user tells each where it is', async () => {
    const { platform, a, b } = await twoAccounts()
    expect(a.accountId).not.toBe(b.accountId)
    const me = await call<Record<string, unknown>>(platform, a.auth.tester, 'GET', '/api/v4/user')
    expect(me.status).toBe(200)
    expect(me.body.result).toMatchObject({
      email: 'tester@acme.test',
      displayName: expect.any(String),
      created: expect.any(Number),
      updated: expect.any(Number),
      defaultProjectId: expect.any(Number),
      defaultProject: { accountId: a.accountId, workspaceId: a.workspaceId },
      preferences: { activeWorkspaceId: a.workspaceId },
      accounts: [{ id: a.accountId, roles: ['standard'] }],
    })
    expect((me.body.result as { defaultProjectId: number }).defaultProjectId).toBeGreaterThan(0)
    const project = await call(
      platform,
      a.auth.tester,
      'GET',
      `/api/v4/projects/${(me.body.result as { defaultProjectId: number }).defaultProjectId}`,
    )
    expect(project.status).toBe(200)
    expect(
      (
        await call(
          platform,
          b.auth.owner,
          'GET',
          `/api/v4/projects/${(me.body.result as { defaultProjectId: number }).defaultProjectId}`,
        )
      ).status,
    ).toBe(404)
    const version = await fetch(`${platform.url}/api/v4/web/version`)
    expect(version.status).toBe(200)
  })

  it("answers 404 for every v1 object of account A asked with account B's keys, and changes nothing", async () => {
    const { platform, a, b } = await twoAccounts()
    const o = await objectsOf(platform, a)
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `${o.ws}/services`],
      ['GET', `${o.ws}/services/${o.serviceId}`],
      ['PUT', `${o.ws}/services/${o.serviceId}`, { name: 'x' }],
      ['DELETE', `${o.ws}/services/${o.serviceId}`],
      ['GET', `${o.ws}/transactions`],
      ['GET', `${o.ws}/transactions/${o.txnId}`],
      ['PUT', `${o.ws}/transactions/${o.txnId}`, { name: 'x' }],
      ['DELETE', `${o.ws}/transactions/${o.txnId}`],
      ['PATCH', `${o.ws}/transactions`, { ids: [o.txnId], action: 'delete' }],
      ['GET', `${o.ws}/service-mocks/${o.mockId}`],
      ['PATCH', `${o.ws}/service-mocks/${o.mockId}`, { name: 'x' }],
      ['POST', `${o.ws}/service-mocks/${o.mockId}/deploy`],
      ['POST', `${o.ws}/service-mocks/${o.mockId}/stop`],
      ['DELETE', `${o.ws}/service-mocks/${o.mockId}`],
      ['GET', `${o.ws}/service-mocks/${o.mockId}/log`],
      ['GET', `${o.ws}/assets/${o.assetId}`],
      ['PATCH', `${o.ws}/assets/${o.assetId}`, { description: 'x' }],
      ['GET', `${o.ws}/assets/${o.assetId}/download`],
      ['DELETE', `${o.ws}/assets/${o.assetId}`],
      ['GET', `${o.ws}/platformvses`],
      [
        'GET',
        `/reports/api/v1/workspaces/${a.workspaceId}/inspection-data/service-mock/${o.mockId}`,
      ],
      ['GET', `/api/v1/trackings/${o.trackingId}`],
      ['GET', `/api/v1/tags/${o.tagId}`],
      ['PUT', `/api/v1/tags/${o.tagId}`, { name: 'x' }],
      ['DELETE', `/api/v1/tags/${o.tagId}`],
      ['GET', `/api/v4/workspaces/${a.workspaceId}`],
      ['PATCH', `/api/v4/workspaces/${a.workspaceId}`, { name: 'x' }],
      ['GET', `/api/v4/workspaces?accountId=${a.accountId}`],
      ['GET', `/api/v4/accounts/${a.accountId}`],
      ['GET', `/api/v4/accounts/${a.accountId}/users`],
    ]
    for (const role of ['owner', 'admin', 'tester', 'viewer'] as const) {
      for (const [method, path, json] of attempts) {
        const reply = await call(platform, b.auth[role], method, path, json)
        expect(`${role} ${method} ${path} ${reply.status}`).toBe(`${role} ${method} ${path} 404`)
        expect(reply.body.error?.code).toBe('ERR_API_NOT_FOUND')
      }
    }
    // Nothing changed in A.
    const service = await call<{ name: string }>(
      platform,
      a.auth.viewer,
      'GET',
      `${o.ws}/services/${o.serviceId}`,
    )
    expect(service.body.result.name).toBe('pets')
    expect(
      (await call(platform, a.auth.viewer, 'GET', `${o.ws}/transactions/${o.txnId}`)).status,
    ).toBe(200)
    expect(
      (await call(platform, a.auth.viewer, 'GET', `${o.ws}/service-mocks/${o.mockId}`)).status,
    ).toBe(200)
    expect((await call(platform, a.auth.viewer, 'GET', `${o.ws}/assets/${o.assetId}`)).status).toBe(
      200,
    )
    expect(
      (await call<{ name: string }>(platform, a.auth.viewer, 'GET', `/api/v1/tags/${o.tagId}`)).body
        .result.name,
    ).toBe('smoke')
    expect(
      (await call(platform, a.auth.viewer, 'GET', `/api/v1/trackings/${o.trackingId}`)).status,
    ).toBe(200)
  })

  it('lets viewers read, testers change the catalog, managers administer, and refuses a disabled workspace writes', async () => {
    const { platform, a } = await twoAccounts()
    const ws = `/api/v1/workspaces/${a.workspaceId}`
    expect((await call(platform, a.auth.viewer, 'GET', `${ws}/services`)).status).toBe(200)
    const denied = await call(platform, a.auth.viewer, 'POST', `${ws}/services`, { name: 'nope' })
    expect(denied.status).toBe(403)
    expect(denied.body.error?.code).toBe('ERR_API_FORBIDDEN')
    expect(
      (await call(platform, a.auth.tester, 'POST', `${ws}/services`, { name: 'yes' })).status,
    ).toBe(201)
    expect(
      (
        await call(platform, a.auth.tester, 'PATCH', `/api/v4/workspaces/${a.workspaceId}`, {
          name: 'renamed',
        })
      ).status,
    ).toBe(403)
    const disabled = await call<{ enabled: boolean }>(
      platform,
      a.auth.admin,
      'PATCH',
      `/api/v4/workspaces/${a.workspaceId}`,
      { enabled: false },
    )
    expect(disabled.status).toBe(200)
    expect(disabled.body.result.enabled).toBe(false)
    const refused = await call(platform, a.auth.tester, 'POST', `${ws}/services`, { name: 'later' })
    expect(refused.status).toBe(403)
    expect(refused.body.error?.message).toMatch(/disabled/)
    expect((await call(platform, a.auth.viewer, 'GET', `${ws}/services`)).status).toBe(200)
    expect(
      (
        await call(platform, a.auth.owner, 'PUT', `/api/v4/workspaces/${a.workspaceId}`, {
          enabled: true,
        })
      ).status,
    ).toBe(200)
    expect(
      (await call(platform, a.auth.tester, 'POST', `${ws}/services`, { name: 'later' })).status,
    ).toBe(201)
  })

  it('shows workspace details with the local location, members and a real membersCount', async () => {
    const { platform, a } = await twoAccounts()
    const detail = await call<Record<string, unknown>>(
      platform,
      a.auth.tester,
      'GET',
      `/api/v4/workspaces/${a.workspaceId}`,
    )
    expect(detail.status).toBe(200)
    expect(detail.body.result).toMatchObject({
      id: a.workspaceId,
      locations: [
        {
          id: expect.stringMatching(/^harbor-/),
          purposes: { serviceMock: true },
          limits: expect.any(Object),
        },
      ],
      activeMember: { email: 'tester@acme.test', roles: ['tester'] },
      plan: expect.any(Object),
      membersCount: 3,
    })
    const list = await call<Array<{ id: number; membersCount: number }>>(
      platform,
      a.auth.owner,
      'GET',
      `/api/v4/workspaces?accountId=${a.accountId}&limit=-1&sort[]=-updated`,
    )
    expect(list.body.result.find((w) => w.id === a.workspaceId)?.membersCount).toBe(3)
    // A second workspace the tester is not a member of: invisible to them, visible to the admin.
    const second = await call<{ id: number }>(
      platform,
      a.auth.admin,
      'POST',
      '/api/v4/workspaces',
      { name: 'private', accountId: a.accountId },
    )
    expect(second.status).toBe(201)
    expect(
      (await call(platform, a.auth.tester, 'GET', `/api/v4/workspaces/${second.body.result.id}`))
        .status,
    ).toBe(404)
    const mine = await call<Array<{ id: number }>>(
      platform,
      a.auth.tester,
      'GET',
      `/api/v4/workspaces?accountId=${a.accountId}`,
    )
    expect(mine.body.result.map((w) => w.id)).toEqual([a.workspaceId])
    expect(mine.body.total).toBe(1)
    // The admin adds the tester as a viewer there; then they see it.
    const added = await call(
      platform,
      a.auth.admin,
      'POST',
      `/api/v4/workspaces/${second.body.result.id}/users`,
      { usersIds: [a.userIds.tester], roles: ['viewer'] },
    )
    expect(added.status).toBe(201)
    expect(
      (await call(platform, a.auth.tester, 'GET', `/api/v4/workspaces/${second.body.result.id}`))
        .status,
    ).toBe(200)
    expect(
      (
        await call(
          platform,
          a.auth.tester,
          'POST',
          `/api/v1/workspaces/${second.body.result.id}/services`,
          { name: 'x' },
        )
      ).status,
    ).toBe(403)
    const removed = await call(
      platform,
      a.auth.admin,
      'DELETE',
      `/api/v4/workspaces/${second.body.result.id}/users/${a.userIds.tester}`,
    )
    expect(removed.status).toBe(200)
    expect(
      (await call(platform, a.auth.tester, 'GET', `/api/v4/workspaces/${second.body.result.id}`))
        .status,
    ).toBe(404)
  })

  it('creates, lists and revokes API keys; a revoked key and a disabled user are refused on their next request', async () => {
    const { platform, a } = await twoAccounts()
    const created = await call<{ id: string; secret: string; name: string }>(
      platform,
      a.auth.tester,
      'POST',
      '/api/v4/user/api-keys',
      { name: 'ci' },
    )
    expect(created.status).toBe(201)
    const key = basic(created.body.result.id, created.body.result.secret)
    expect((await call(platform, key, 'GET', '/api/v4/user')).status).toBe(200)
    const list = await call<Array<Record<string, unknown>>>(
      platform,
      key,
      'GET',
      '/api/v4/user/api-keys',
    )
    expect(list.body.result.map((k) => k['id'])).toContain(created.body.result.id)
    expect(JSON.stringify(list.body.result)).not.toContain(created.body.result.secret)
    expect(list.body.result.every((k) => !('secret' in k) && !('secretHash' in k))).toBe(true)
    const stored = await platform.store.apiKeys.get(created.body.result.id)
    expect(stored?.secretHash).not.toContain(created.body.result.secret)
    expect(
      (
        await call(
          platform,
          a.auth.viewer,
          'DELETE',
          `/api/v4/user/api-keys/${created.body.result.id}`,
        )
      ).status,
    ).toBe(404)
    expect(
      (await call(platform, key, 'DELETE', `/api/v4/user/api-keys/${created.body.result.id}`))
        .status,
    ).toBe(200)
    const refused = await call(platform, key, 'GET', '/api/v4/user')
    expect(refused.status).toBe(401)
    // Disabling the viewer refuses its key at once.
    expect((await call(platform, a.auth.viewer, 'GET', '/api/v4/user')).status).toBe(200)
    expect(
      (
        await call(
          platform,
          a.auth.owner,
          'PUT',
          `/api/v4/accounts/${a.accountId}/users/${a.userIds.viewer}`,
          { enabled: false },
        )
      ).status,
    ).toBe(200)
    expect((await call(platform, a.auth.viewer, 'GET', '/api/v4/user')).status).toBe(401)
  })

  it('invites: attach at once, accept and reject links by GET and POST, 409 for a duplicate pending invitation', async () => {
    const { platform, a, b } = await twoAccounts()
    const invite = async (email: string) =>
      call<Array<{ acceptUrl: string; rejectUrl: string; status: string }>>(
        platform,
        a.auth.owner,
        'POST',
        `/api/v4/accounts/${a.accountId}/invitations`,
        {
          invitations: [
            {
              inviteeEmail: email,
              attachAutomatically: false,
              accountRoles: ['standard'],
              workspacesId: [a.workspaceId],
              workspacesRoles: ['viewer'],
            },
          ],
        },
      )
    const pending = await invite('new@acme.test')
    expect(pending.status).toBe(201)
    expect(pending.body.result[0]).toMatchObject({
      status: 'pending',
      acceptUrl: expect.stringContaining('/accept'),
      rejectUrl: expect.stringContaining('/reject'),
    })
    const duplicate = await invite('NEW@acme.test')
    expect(duplicate.status).toBe(409)
    const listed = await call<Array<{ inviteeEmail: string; status: string }>>(
      platform,
      a.auth.admin,
      'GET',
      `/api/v4/accounts/${a.accountId}/invitations`,
    )
    expect(
      listed.body.result.some((i) => i.inviteeEmail === 'new@acme.test' && i.status === 'pending'),
    ).toBe(true)
    const accepted = await fetch(pending.body.result[0]!.acceptUrl)
    expect(accepted.status).toBe(200)
    expect((await fetch(pending.body.result[0]!.acceptUrl, { method: 'POST' })).status).toBe(409)
    const users = await call<Array<{ email: string }>>(
      platform,
      a.auth.owner,
      'GET',
      `/api/v4/accounts/${a.accountId}/users?limit=0`,
    )
    expect(users.body.result.map((u) => u.email)).toContain('new@acme.test')
    // B's tester, invited into A and accepting, is attached (one user, two accounts), not duplicated.
    const cross = await invite('tester@globex.test')
    const rejected = await fetch(cross.body.result[0]!.rejectUrl, { method: 'POST' })
    expect(rejected.status).toBe(200)
    const again = await invite('tester@globex.test')
    expect(again.status).toBe(201)
    expect((await fetch(again.body.result[0]!.acceptUrl, { method: 'POST' })).status).toBe(200)
    const me = await call<{ accounts: Array<{ id: number }> }>(
      platform,
      b.auth.tester,
      'GET',
      '/api/v4/user',
    )
    expect(me.body.result.accounts.map((x) => x.id).sort()).toEqual(
      [a.accountId, b.accountId].sort(),
    )
    expect(
      (await call(platform, b.auth.tester, 'GET', `/api/v1/workspaces/${a.workspaceId}/services`))
        .status,
    ).toBe(200)
    expect((await fetch(`${platform.url}/api/v4/invitations/not-a-token/accept`)).status).toBe(404)
    // A user manager cannot be made by a tester, and bad input names its field.
    expect(
      (
        await call(platform, a.auth.tester, 'POST', `/api/v4/accounts/${a.accountId}/invitations`, {
          invitations: [{ inviteeEmail: 'x@acme.test' }],
        })
      ).status,
    ).toBe(403)
    const bad = await call(
      platform,
      a.auth.owner,
      'POST',
      `/api/v4/accounts/${a.accountId}/invitations`,
      { invitations: [{ inviteeEmail: 'not-an-address' }] },
    )
    expect(bad.status).toBe(400)
    expect(bad.body.error?.details?.[0]?.path).toBe('/invitations/0/inviteeEmail')
    const role = await call(
      platform,
      a.auth.owner,
      'POST',
      `/api/v4/accounts/${a.accountId}/invitations`,
      { invitations: [{ inviteeEmail: 'y@acme.test', accountRoles: ['emperor'] }] },
    )
    expect(role.status).toBe(400)
    expect(role.body.error?.details?.[0]?.path).toBe('/invitations/0/accountRoles/0')
  })

  it('refuses to remove the last owner or admin (409), and lets account admins change roles', async () => {
    const { platform, a } = await twoAccounts()
    const path = `/api/v4/accounts/${a.accountId}/users/${a.userIds.owner}`
    const last = await call(platform, a.auth.owner, 'PUT', path, { roles: ['admin'] })
    expect(last.status).toBe(409)
    const disable = await call(platform, a.auth.admin, 'PUT', path, { enabled: false })
    expect(disable.status).toBe(409)
    const promoted = await call<{ roles: string[]; type: string }>(
      platform,
      a.auth.owner,
      'PUT',
      `/api/v4/accounts/${a.accountId}/users/${a.userIds.tester}`,
      { roles: ['standard', 'user_manager'] },
    )
    expect(promoted.status).toBe(200)
    expect(promoted.body.result).toMatchObject({
      roles: ['standard', 'user_manager'],
      type: 'account',
    })
    const notByManager = await call(
      platform,
      a.auth.tester,
      'PUT',
      `/api/v4/accounts/${a.accountId}/users/${a.userIds.viewer}`,
      { roles: ['admin'] },
    )
    expect(notByManager.status).toBe(403)
    expect(
      (
        await call(
          platform,
          a.auth.tester,
          'PUT',
          `/api/v4/accounts/${a.accountId}/users/${a.userIds.viewer}`,
          { roles: ['standard'] },
        )
      ).status,
    ).toBe(200)
    expect(
      (await call(platform, a.auth.owner, 'PUT', path, { roles: ['owner', 'admin'], color: 'red' }))
        .status,
    ).toBe(400)
  })

  it('answers accounts, utilization, functionalities, terminate-masters (dry run) and the welcome screen', async () => {
    const { platform, a } = await twoAccounts()
    const accounts = await call<Array<{ id: number; aiConsent: boolean }>>(
      platform,
      a.auth.viewer,
      'GET',
      '/api/v4/accounts?limit=0&sort[]=-updated',
    )
    expect(accounts.body.result.map((x) => x.id)).toEqual([a.accountId])
    expect(accounts.body.total).toBe(1)
    expect(typeof accounts.body.result[0]?.aiConsent).toBe('boolean')
    const patched = await call<Record<string, unknown>>(
      platform,
      a.auth.admin,
      'PATCH',
      `/api/v4/accounts/${a.accountId}`,
      {
        welcomeScreenLinkText: 'Start here',
        welcomeScreenLinkUrl: 'https://intra.acme.test/start',
      },
    )
    expect(patched.status).toBe(200)
    expect(patched.body.result).toMatchObject({
      welcomeScreenLinkText: 'Start here',
      welcomeScreenLinkUrl: 'https://intra.acme.test/start',
    })
    expect(
      (
        await call(platform, a.auth.admin, 'PATCH', `/api/v4/accounts/${a.accountId}`, {
          welcomeScreenLinkUrl: 'javascript:alert(1)',
        })
      ).status,
    ).toBe(400)
    expect(
      (
        await call(platform, a.auth.tester, 'PATCH', `/api/v4/accounts/${a.accountId}`, {
          welcomeScreenLinkText: 'x',
        })
      ).status,
    ).toBe(403)
    const report = await call<{
      workspaces: Array<{ id: number }>
      locations: Record<string, { engines: number }>
    }>(platform, a.auth.admin, 'GET', `/api/v4/accounts/${a.accountId}/utilization-report`)
    expect(report.status).toBe(200)
    expect(report.body.result.workspaces.map((w) => w.id)).toContain(a.workspaceId)
    expect(Object.values(report.body.result.locations)[0]?.engines).toBe(0)
    const funcs = await call<{ functionalities: Array<{ funcId: string }> }>(
      platform,
      a.auth.viewer,
      'GET',
      `/api/v4/accounts/${a.accountId}/functionalities`,
    )
    expect(funcs.body.result.functionalities.map((f) => f.funcId)).toContain('mockServices')
    const masters = await call<number[]>(
      platform,
      a.auth.owner,
      'POST',
      `/api/v4/accounts/${a.accountId}/terminate-masters`,
      { dryRun: true },
    )
    expect(masters.status).toBe(200)
    expect(masters.body.result).toEqual([])
    expect(
      (
        await call(
          platform,
          a.auth.owner,
          'POST',
          `/api/v4/accounts/${a.accountId}/terminate-masters`,
          { dryRun: 'yes' },
        )
      ).status,
    ).toBe(400)
    expect(
      (
        await call(
          platform,
          a.auth.tester,
          'POST',
          `/api/v4/accounts/${a.accountId}/terminate-masters`,
          { dryRun: true },
        )
      ).status,
    ).toBe(403)
  })

  it('refuses malformed bodies on every new endpoint with 400 naming the field, never a 500', async () => {
    const { platform, a } = await twoAccounts()
    const endpoints: Array<[string, string]> = [
      ['POST', '/api/v4/accounts'],
      ['PATCH', `/api/v4/accounts/${a.accountId}`],
      ['POST', `/api/v4/accounts/${a.accountId}/invitations`],
      ['PUT', `/api/v4/accounts/${a.accountId}/users/${a.userIds.tester}`],
      ['POST', `/api/v4/accounts/${a.accountId}/terminate-masters`],
      ['POST', `/api/v4/accounts/${a.accountId}/users/${a.userIds.tester}/api-keys`],
      ['POST', '/api/v4/workspaces'],
      ['PUT', `/api/v4/workspaces/${a.workspaceId}`],
      ['PATCH', `/api/v4/workspaces/${a.workspaceId}`],
      ['POST', `/api/v4/workspaces/${a.workspaceId}/users`],
      ['PUT', `/api/v4/workspaces/${a.workspaceId}/users/${a.userIds.tester}`],
      ['POST', '/api/v4/projects'],
      ['POST', '/api/v4/user/api-keys'],
      ['PATCH', '/api/v4/user'],
      ['POST', '/api/v4/search'],
    ]
    const bodies: unknown[] = [
      null,
      [],
      'text',
      42,
      { unknownField: 1 },
      { name: 7, roles: 'manager', enabled: 'yes', dryRun: 3, invitations: {}, entity: 5 },
    ]
    for (const [method, path] of endpoints) {
      for (const body of bodies) {
        const reply = await call(platform, platform.auth, method, path, body)
        const owner =
          reply.status === 404 ? await call(platform, a.auth.owner, method, path, body) : reply
        expect(`${method} ${path} ${JSON.stringify(body)} ${owner.status}`).toMatch(/ 400$/)
        expect(owner.body.error?.code).toBe('ERR_API_VALIDATION')
      }
      const broken = await platform.request(path, {
        method,
        headers: { authorization: a.auth.owner, 'content-type': 'application/json' },
        body: '{"name":',
      })
      expect(broken.status).toBe(400)
    }
  })
})
