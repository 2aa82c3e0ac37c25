import { describe, expect, it } from 'vitest'
import { verifySecret } from '../../../src/api/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { call, makeAccount, type TestAccount } from './tenancy-helpers.js'

interface ShipView {
  id: string
  harborId: string
  name: string
  address: string | null
  state: string
  created: number
  ts: number | null
  token?: string
}
interface HarborView {
  id: string
  name: string
  accountId: number
  workspacesId: number[]
  userId: number
  funcIds: string[]
  ships: ShipView[]
}

async function newHarbor(
  platform: TestPlatform,
  account: TestAccount,
  name = 'lab',
): Promise<HarborView> {
  const made = await call<HarborView>(
    platform,
    account.auth.owner,
    'POST',
    '/api/v4/private-locations',
    { name, accountId: account.accountId, workspacesId: [account.workspaceId] },
  )
  expect(made.status).toBe(201)
  return made.body.result
}

async function newShip(
  platform: TestPlatform,
  auth: string,
  harborId: string,
  name = 'agent-1',
): Promise<ShipView> {
  const made = await call<ShipView>(
    platform,
    auth,
    'POST',
    `/api/v4/private-locations/${harborId}/servers`,
    { name, address: '10.0.0.7' },
  )
  expect(made.status).toBe(201)
  return made.body.result
}

describe('/api/v4/private-locations: harbors and their agents (ships)', () => {
  it('creates a harbor and a ship whose token is shown once and stored hashed, lists and reads them, and deletes the ship', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const harbor = await newHarbor(platform, a)
    expect(harbor.id).toMatch(/^harbor-[0-9a-f]{24}$/)
    expect(harbor).toMatchObject({
      name: 'lab',
      accountId: a.accountId,
      workspacesId: [a.workspaceId],
      userId: a.userIds.owner,
      funcIds: ['mockServices'],
      ships: [],
    })

    const ship = await newShip(platform, a.auth.admin, harbor.id)
    expect(ship.id).toMatch(/^ship-[0-9a-f]{24}$/)
    expect(ship).toMatchObject({
      harborId: harbor.id,
      name: 'agent-1',
      address: '10.0.0.7',
      state: 'empty',
      ts: null,
    })
    expect(ship.token).toMatch(/^ust_[A-Za-z0-9_-]{32}$/)
    const stored = await platform.store.locations.ship(harbor.id, ship.id)
    expect(stored?.tokenHash).not.toContain(ship.token)
    expect(await verifySecret(ship.token as string, stored?.tokenHash as string)).toBe(true)

    const detail = await call<HarborView>(
      platform,
      a.auth.viewer,
      'GET',
      `/api/v4/private-locations/${harbor.id}`,
    )
    expect(detail.status).toBe(200)
    expect(detail.body.result.ships.map((s) => s.id)).toEqual([ship.id])
    expect(JSON.stringify(detail.body)).not.toContain(ship.token)
    const servers = await call<ShipView[]>(
      platform,
      a.auth.tester,
      'GET',
      `/api/v4/private-locations/${harbor.id}/servers`,
    )
    expect(servers.status).toBe(200)
    expect(servers.body.result.map((s) => s.id)).toEqual([ship.id])
    expect(servers.body.result[0]).not.toHaveProperty('token')

    const byAccount = await call<HarborView[]>(
      platform,
      a.auth.owner,
      'GET',
      `/api/v4/private-locations?accountId=${a.accountId}`,
    )
    expect(byAccount.status).toBe(200)
    expect(byAccount.body.result.map((h) => h.id)).toEqual([harbor.id])
    expect(byAccount.body.total).toBe(1)
    expect(
      (
        await call<HarborView[]>(
          platform,
          a.auth.owner,
          'GET',
          `/api/v4/private-locations?accountId=${a.accountId}&types[]=small`,
        )
      ).body.result,
    ).toHaveLength(1)
    expect(
      (
        await call<HarborView[]>(
          platform,
          a.auth.owner,
          'GET',
          `/api/v4/private-locations?accountId=${a.accountId}&types[]=large`,
        )
      ).body.result,
    ).toEqual([])
    const byWorkspace = await call<HarborView[]>(
      platform,
      a.auth.viewer,
      'GET',
      `/api/v4/private-locations?workspaceId=${a.workspaceId}`,
    )
    expect(byWorkspace.body.result.map((h) => h.id)).toEqual([harbor.id])

    const workspace = await call<{
      locations: Array<{ id: string; provider: string; purposes: { serviceMock: boolean } }>
    }>(platform, a.auth.viewer, 'GET', `/api/v4/workspaces/${a.workspaceId}`)
    expect(workspace.body.result.locations.map((l) => l.id)).toEqual(['harbor-local', harbor.id])
    expect(workspace.body.result.locations[1]).toMatchObject({
      provider: 'Private Locations',
      purposes: { serviceMock: true },
    })

    const removed = await call(
      platform,
      a.auth.owner,
      'DELETE',
      `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`,
    )
    expect(removed.status).toBe(200)
    const after = await call<ShipView[]>(
      platform,
      a.auth.owner,
      'GET',
      `/api/v4/private-locations/${harbor.id}/servers`,
    )
    expect(after.body.result).toEqual([])
    expect(
      (
        await call(
          platform,
          a.auth.owner,
          'DELETE',
          `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`,
        )
      ).status,
    ).toBe(404)
  })

  it("answers 404 on every route for another account's harbor, and lists only the caller's", async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const harbor = await newHarbor(platform, a)
    const ship = await newShip(platform, a.auth.owner, harbor.id)
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/v4/private-locations/${harbor.id}`],
      ['GET', `/api/v4/private-locations/${harbor.id}/servers`],
      ['GET', `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`],
      ['POST', `/api/v4/private-locations/${harbor.id}/servers`, { name: 'intruder' }],
      ['DELETE', `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`],
      ['GET', `/api/v4/private-locations?accountId=${a.accountId}`],
      ['GET', `/api/v4/private-locations?workspaceId=${a.workspaceId}`],
    ]
    for (const role of ['owner', 'admin', 'tester', 'viewer'] as const) {
      for (const [method, path, body] of routes) {
        const reply = await call(platform, b.auth[role], method, path, body)
        expect({ role, method, path, status: reply.status }).toEqual({
          role,
          method,
          path,
          status: 404,
        })
      }
    }
    // Creating one for A's workspace from B: A's workspace is not one B can see.
    const cross = await call(platform, b.auth.owner, 'POST', '/api/v4/private-locations', {
      name: 'x',
      accountId: b.accountId,
      workspacesId: [a.workspaceId],
    })
    expect(cross.status).toBe(400)
    expect(cross.body.error?.details?.[0]?.path).toBe('/workspacesId/0')
    const foreignAccount = await call(platform, b.auth.owner, 'POST', '/api/v4/private-locations', {
      name: 'x',
      accountId: a.accountId,
      workspacesId: [a.workspaceId],
    })
    expect(foreignAccount.status).toBe(404)
    const own = await call<HarborView[]>(
      platform,
      b.auth.owner,
      'GET',
      `/api/v4/private-locations?accountId=${b.accountId}`,
    )
    expect(own.status).toBe(200)
    expect(own.body.result).toEqual([])
    const bWorkspace = await call<{ locations: Array<{ id: string }> }>(
      platform,
      b.auth.owner,
      'GET',
      `/api/v4/workspaces/${b.workspaceId}`,
    )
    expect(bWorkspace.body.result.locations.map((l) => l.id)).toEqual(['harbor-local'])
    // Nothing of A's changed.
    expect((await platform.store.locations.ships([harbor.id])).map((s) => s.id)).toEqual([ship.id])
  })

  it('lets account owners and admins and workspace managers change locations; testers and viewers read only', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const harbor = await newHarbor(platform, a)
    const ship = await newShip(platform, a.auth.owner, harbor.id)
    for (const role of ['tester', 'viewer'] as const) {
      const create = await call(platform, a.auth[role], 'POST', '/api/v4/private-locations', {
        name: 'mine',
        accountId: a.accountId,
        workspacesId: [a.workspaceId],
      })
      expect(create.status).toBe(403)
      expect(
        (
          await call(
            platform,
            a.auth[role],
            'POST',
            `/api/v4/private-locations/${harbor.id}/servers`,
            { name: 'x' },
          )
        ).status,
      ).toBe(403)
      expect(
        (
          await call(
            platform,
            a.auth[role],
            'DELETE',
            `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`,
          )
        ).status,
      ).toBe(403)
      expect(
        (await call(platform, a.auth[role], 'GET', `/api/v4/private-locations/${harbor.id}`))
          .status,
      ).toBe(200)
    }
    // A workspace manager who is no account admin may manage the harbors of its workspace.
    const promoted = await call(
      platform,
      a.auth.owner,
      'PUT',
      `/api/v4/workspaces/${a.workspaceId}/users/${a.userIds.tester}`,
      { roles: ['manager'] },
    )
    expect(promoted.status).toBe(200)
    expect(
      (
        await call(
          platform,
          a.auth.tester,
          'POST',
          `/api/v4/private-locations/${harbor.id}/servers`,
          { name: 'by-manager' },
        )
      ).status,
    ).toBe(201)
    // A harbor offered to a workspace the caller is not a member of is not seen.
    const other = await call<{ id: number }>(platform, a.auth.owner, 'POST', '/api/v4/workspaces', {
      name: 'private',
      accountId: a.accountId,
    })
    const hidden = await call<HarborView>(
      platform,
      a.auth.owner,
      'POST',
      '/api/v4/private-locations',
      { name: 'hidden', accountId: a.accountId, workspacesId: [other.body.result.id] },
    )
    expect(hidden.status).toBe(201)
    expect(
      (
        await call(
          platform,
          a.auth.viewer,
          'GET',
          `/api/v4/private-locations/${hidden.body.result.id}`,
        )
      ).status,
    ).toBe(404)
    const seen = await call<HarborView[]>(
      platform,
      a.auth.viewer,
      'GET',
      `/api/v4/private-locations?accountId=${a.accountId}`,
    )
    expect(seen.body.result.map((h) => h.id)).toEqual([harbor.id])
    const all = await call<HarborView[]>(
      platform,
      a.auth.admin,
      'GET',
      `/api/v4/private-locations?accountId=${a.accountId}&sort[]=name`,
    )
    expect(all.body.result.map((h) => h.name)).toEqual(['hidden', 'lab'])
  })

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const cases: Array<[unknown, string]> = [
      [{ accountId: a.accountId, workspacesId: [a.workspaceId] }, '/name'],
      [{ name: '', accountId: a.accountId, workspacesId: [a.workspaceId] }, '/name'],
      [{ name: 'x', workspacesId: [a.workspaceId] }, '/accountId'],
      [{ name: 'x', accountId: 'one', workspacesId: [a.workspaceId] }, '/accountId'],
      [{ name: 'x', accountId: a.accountId }, '/workspacesId'],
      [{ name: 'x', accountId: a.accountId, workspacesId: [] }, '/workspacesId'],
      [
        { name: 'x', accountId: a.accountId, workspacesId: [a.workspaceId, 987654] },
        '/workspacesId/1',
      ],
      [
        { name: 'x', accountId: a.accountId, workspacesId: [a.workspaceId], threadsPerEngine: 500 },
        '/threadsPerEngine',
      ],
    ]
    for (const [body, field] of cases) {
      const reply = await call(platform, a.auth.owner, 'POST', '/api/v4/private-locations', body)
      expect({ body, status: reply.status, field: reply.body.error?.details?.[0]?.path }).toEqual({
        body,
        status: 400,
        field,
      })
    }
    const harbor = await newHarbor(platform, a)
    for (const [body, field] of [
      [{}, '/name'],
      [{ name: 'x', address: 7 }, '/address'],
      [{ name: 'x', role: 'admin' }, '/role'],
    ] as const) {
      const reply = await call(
        platform,
        a.auth.owner,
        'POST',
        `/api/v4/private-locations/${harbor.id}/servers`,
        body,
      )
      expect({ status: reply.status, field: reply.body.error?.details?.[0]?.path }).toEqual({
        status: 400,
        field,
      })
    }
    for (const [query, field] of [
      ['', '/accountId'],
      ['?accountId=abc', '/accountId'],
      ['?workspaceId=-1', '/workspaceId'],
      [`?accountId=${a.accountId}&sort[]=secret`, '/sort'],
      [`?accountId=${a.accountId}&types[]=huge`, '/types'],
    ] as const) {
      const reply = await call(platform, a.auth.owner, 'GET', `/api/v4/private-locations${query}`)
      expect({ query, status: reply.status, field: reply.body.error?.details?.[0]?.path }).toEqual({
        query,
        status: 400,
        field,
      })
    }
    const list = await call<HarborView[]>(
      platform,
      a.auth.owner,
      'GET',
      `/api/v4/private-locations?accountId=${a.accountId}`,
    )
    expect(list.body.result.map((h) => h.id)).toEqual([harbor.id])
    expect(await platform.store.locations.ships([harbor.id])).toEqual([])
  })
})
