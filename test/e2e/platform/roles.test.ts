import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  describeMonitoringAuth,
  describeRule,
  monitoringRuleOf,
  ruleOf,
  type AccessRule,
} from '../../../src/api/access/policy.js'
import { allRoutes } from '../../../src/api/index.js'
import { monitoringRoutes } from '../../../src/api/monitor/routes.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { call, makeAccount, type Role } from './tenancy-helpers.js'

/** What each test role holds: account roles, and the role in the account's workspace. */
const holds: Record<Role, { account: string[]; workspace: 'manager' | 'tester' | 'viewer' }> = {
  owner: { account: ['owner', 'admin'], workspace: 'manager' },
  admin: { account: ['admin'], workspace: 'manager' },
  tester: { account: ['standard'], workspace: 'tester' },
  viewer: { account: ['standard'], workspace: 'viewer' },
}
const rank = { viewer: 1, tester: 2, manager: 3 }

function allowed(rule: AccessRule, role: Role): boolean {
  switch (rule.scope) {
    case 'workspace':
      return rank[holds[role].workspace] >= rank[rule.need]
    case 'account':
      return rule.roles.some((r) => holds[role].account.includes(r))
    case 'catalog':
      return role !== 'viewer'
    case 'member':
    case 'public':
      return true
  }
}

describe('the role table (docs/roles.md)', () => {
  it('lists exactly the routes the platform serves, with their rule', () => {
    const doc = readFileSync(new URL('../../../docs/roles.md', import.meta.url), 'utf8')
    // Cells are compared without the padding a Markdown formatter aligns them with.
    const rows = doc
      .split('\n')
      .map((line) => line.replace(/ +\|/g, ' |').replace(/\| +/g, '| '))
      .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(line))
    const expected = [
      ...allRoutes.map((r) => `| ${r.method} | \`${r.path}\` | ${describeRule(ruleOf(r))} |`),
      ...monitoringRoutes.map(
        (r) =>
          `| ${r.method} | \`${r.path}\` | ${describeRule(monitoringRuleOf(r))} | ${describeMonitoringAuth(r)} |`,
      ),
    ]
    expect(rows.sort()).toEqual([...expected].sort())
  })

  it('walks every route with every role: 403 where the table says no, never 403 where it says yes, 404 for another account', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const tag = await call<{ id: number }>(platform, a.auth.owner, 'POST', '/api/v1/tags', {
      name: 'walk',
    })
    expect(tag.status).toBe(201)
    const fill = (path: string): string =>
      path
        .replace(':workspaceId', String(a.workspaceId))
        .replace(':accountId', String(a.accountId))
        .replace(':tagId', String(tag.body.result.id))
        .replace(/:(trackingId|keyId|token|name)/g, 'zz-none')
        .replace(/:[A-Za-z]+/g, '999999')
    const failures: string[] = []
    for (const role of ['viewer', 'tester', 'admin', 'owner'] as const) {
      for (const route of allRoutes) {
        const rule = ruleOf(route)
        if (rule.scope === 'public') continue
        const path = fill(route.path)
        const reply = await call(
          platform,
          a.auth[role],
          route.method,
          path,
          route.method === 'GET' ? undefined : {},
        )
        const ok = allowed(rule, role)
        if (ok && (reply.status === 403 || reply.status === 401 || reply.status >= 500)) {
          failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected allowed`)
        }
        if (!ok && reply.status !== 403) {
          failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected 403`)
        }
      }
    }
    for (const route of allRoutes) {
      const rule = ruleOf(route)
      if (rule.scope === 'public' || rule.scope === 'member') continue
      // Creating a tag is in the caller's own account: nothing of A's is named.
      if (rule.scope === 'catalog' && !route.path.includes(':tagId')) continue
      const reply = await call(
        platform,
        b.auth.owner,
        route.method,
        fill(route.path),
        route.method === 'GET' ? undefined : {},
      )
      if (reply.status !== 404) {
        failures.push(`other account ${route.method} ${route.path}: ${reply.status}, expected 404`)
      }
    }
    expect(failures).toEqual([])
  })

  it("walks every monitoring route with every role's token (all scopes): the workspace role decides, 404 for another account", async () => {
    const platform = await startTestPlatform({ monitoring: true })
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const tokenOf = async (auth: string): Promise<string> => {
      const app = await call<unknown>(platform, auth, 'POST', '/apps', {
        name: 'walk',
        website_url: 'https://ci.test',
        callback_url: 'https://ci.test/cb',
      })
      expect(app.status).toBe(201)
      return `Bearer ${(app.body as unknown as { data: { access_token: string } }).data.access_token}`
    }
    const tokens = {
      viewer: await tokenOf(a.auth.viewer),
      tester: await tokenOf(a.auth.tester),
      admin: await tokenOf(a.auth.admin),
      owner: await tokenOf(a.auth.owner),
    }
    const other = await tokenOf(b.auth.owner)
    const bucket = await newBucket(platform, tokens.owner, a.workspaceId)
    const fill = async (method: string, path: string): Promise<string> => {
      if (method === 'POST' && path === '/buckets') {
        return `/buckets?name=walk&team_uuid=${a.workspaceId}`
      }
      // Deleting a bucket deletes it: each call gets its own.
      const key =
        method === 'DELETE' && path === '/buckets/:bucketKey'
          ? await newBucket(platform, tokens.owner, a.workspaceId)
          : bucket
      return path
        .replace(':bucketKey', key)
        .replace(':teamId', String(a.workspaceId))
        .replace(/:[A-Za-z]+/g, 'zz-none')
    }
    const failures: string[] = []
    for (const role of ['viewer', 'tester', 'admin', 'owner'] as const) {
      for (const route of monitoringRoutes) {
        const rule = monitoringRuleOf(route)
        if (rule.scope === 'public' || route.auth === 'basic') continue
        const reply = await call(
          platform,
          tokens[role],
          route.method,
          await fill(route.method, route.path),
          route.method === 'GET' ? undefined : {},
        )
        const ok = allowed(rule, role)
        if (ok && (reply.status === 403 || reply.status === 401 || reply.status >= 500)) {
          failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected allowed`)
        }
        if (!ok && reply.status !== 403) {
          failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected 403`)
        }
      }
    }
    for (const route of monitoringRoutes) {
      if (monitoringRuleOf(route).scope !== 'workspace') continue
      const reply = await call(
        platform,
        other,
        route.method,
        await fill(route.method, route.path),
        route.method === 'GET' ? undefined : {},
      )
      if (reply.status !== 404) {
        failures.push(`other account ${route.method} ${route.path}: ${reply.status}, expected 404`)
      }
    }
    expect(failures).toEqual([])
  })

  it("a viewer's token with test:write cannot change a test; a tester's can; lists show only visible workspaces", async () => {
    const platform = await startTestPlatform({ monitoring: true })
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const viewerApp = await call<unknown>(platform, a.auth.viewer, 'POST', '/apps', {
      name: 'v',
      website_url: 'https://ci.test',
      callback_url: 'https://ci.test/cb',
      scope: 'api:read test:read test:write',
    })
    expect(viewerApp.status).toBe(201)
    const viewer = `Bearer ${(viewerApp.body as unknown as { data: { access_token: string } }).data.access_token}`
    const ownerApp = await call<unknown>(platform, a.auth.owner, 'POST', '/apps', {
      name: 'o',
      website_url: 'https://ci.test',
      callback_url: 'https://ci.test/cb',
    })
    const owner = `Bearer ${(ownerApp.body as unknown as { data: { access_token: string } }).data.access_token}`
    const key = await newBucket(platform, owner, a.workspaceId)
    const made = await call<unknown>(platform, owner, 'POST', `/buckets/${key}/tests`, {
      name: 'kept',
    })
    expect(made.status).toBe(201)
    const testId = (made.body as unknown as { data: { id: string } }).data.id
    const put = await call<unknown>(platform, viewer, 'PUT', `/buckets/${key}/tests/${testId}`, {
      name: 'changed',
    })
    expect(put.status).toBe(403)
    expect((put.body as unknown as { error: { message: string } }).error.message).toMatch(/tester/)
    const read = await call<unknown>(platform, viewer, 'GET', `/buckets/${key}/tests/${testId}`)
    expect(read.status).toBe(200)
    expect((read.body as unknown as { data: { name: string } }).data.name).toBe('kept')
    expect((await call(platform, viewer, 'DELETE', `/buckets/${key}/tests/${testId}`)).status).toBe(
      403,
    )
    expect(
      (await call(platform, viewer, 'POST', `/buckets?name=x&team_uuid=${a.workspaceId}`)).status,
    ).toBe(403)
    // The team in a form body (as go-runscope sends it) is checked as well.
    const form = await platform.request('/buckets', {
      method: 'POST',
      headers: { authorization: viewer, 'content-type': 'application/x-www-form-urlencoded' },
      body: `name=x&team_uuid=${a.workspaceId}`,
    })
    expect(form.status).toBe(403)
    // A tester's token changes it.
    const testerApp = await call<unknown>(platform, a.auth.tester, 'POST', '/apps', {
      name: 't',
      website_url: 'https://ci.test',
      callback_url: 'https://ci.test/cb',
    })
    const tester = `Bearer ${(testerApp.body as unknown as { data: { access_token: string } }).data.access_token}`
    expect(
      (await call(platform, tester, 'PUT', `/buckets/${key}/tests/${testId}`, { name: 'changed' }))
        .status,
    ).toBe(200)
    expect((await call(platform, tester, 'DELETE', `/buckets/${key}`)).status).toBe(403)
    // Another account's owner sees neither the bucket nor it in lists.
    const otherApp = await call<unknown>(platform, b.auth.owner, 'POST', '/apps', {
      name: 'b',
      website_url: 'https://ci.test',
      callback_url: 'https://ci.test/cb',
    })
    const other = `Bearer ${(otherApp.body as unknown as { data: { access_token: string } }).data.access_token}`
    const list = await call<unknown>(platform, other, 'GET', '/buckets')
    expect(
      (list.body as unknown as { data: Array<{ key: string }> }).data.map((x) => x.key),
    ).not.toContain(key)
    expect((await call(platform, other, 'GET', `/buckets/${key}/tests/${testId}`)).status).toBe(404)
    // Removing the viewer from the workspace hides the bucket at once.
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
    expect((await call(platform, viewer, 'GET', `/buckets/${key}`)).status).toBe(404)
  })
})

/** A new bucket in a workspace, made with a manager's token; its key. */
async function newBucket(
  platform: TestPlatform,
  token: string,
  workspaceId: number,
): Promise<string> {
  const made = await call<unknown>(
    platform,
    token,
    'POST',
    `/buckets?name=walk&team_uuid=${workspaceId}`,
  )
  expect(made.status).toBe(201)
  return (made.body as unknown as { data: { key: string } }).data.key
}
