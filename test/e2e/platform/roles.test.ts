import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { describeRule, ruleOf, type AccessRule } from '../../../src/api/access/policy.js'
import { allRoutes } from '../../../src/api/index.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { call, makeAccount, type Role } from './tenancy-helpers.js'

/** What each test role holds: account roles, and the role in the account's workspace. */
const holds: Record<Role, { account: string[]; workspace: 'manager' | 'tester' | 'viewer' }> = {
  owner: { account: ['owner', 'admin'], workspace: 'manager' },
  admin: { account: ['admin'], workspace: 'manager' },
  tester: { account: ['standard'], workspace: 'tester' },
  viewer: { account: ['standard'], workspace: 'viewer' },
}
const rank = { viewer: 1, tester: 2, manager: 3 }

function allowed (rule: AccessRule, role: Role): boolean {
  switch (rule.scope) {
    case 'workspace': return rank[holds[role].workspace] >= rank[rule.need]
    case 'account': return rule.roles.some((r) => holds[role].account.includes(r))
    case 'catalog': return role !== 'viewer'
    case 'member': case 'public': return true
  }
}

describe('the role table (docs/roles.md)', () => {
  it('lists exactly the routes the platform serves, with their rule', () => {
    const doc = readFileSync(new URL('../../../docs/roles.md', import.meta.url), 'utf8')
    const rows = doc.split('\n').filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(line))
    const expected = allRoutes.map((r) => `| ${r.method} | \`${r.path}\` | ${describeRule(ruleOf(r))} |`)
    expect(rows.sort()).toEqual([...expected].sort())
  })

  it('walks every route with every role: 403 where the table says no, never 403 where it says yes, 404 for another account', async () => {
    const platform = await startTestPlatform()
    const a = await makeAccount(platform, 'acme')
    const b = await makeAccount(platform, 'globex')
    const tag = await call<{ id: number }>(platform, a.auth.owner, 'POST', '/api/v1/tags', { name: 'walk' })
    expect(tag.status).toBe(201)
    const fill = (path: string): string => path
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
        const reply = await call(platform, a.auth[role], route.method, path, route.method === 'GET' ? undefined : {})
        const ok = allowed(rule, role)
        if (ok && (reply.status === 403 || reply.status === 401 || reply.status >= 500)) failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected allowed`)
        if (!ok && reply.status !== 403) failures.push(`${role} ${route.method} ${route.path}: ${reply.status}, expected 403`)
      }
    }
    for (const route of allRoutes) {
      const rule = ruleOf(route)
      if (rule.scope === 'public' || rule.scope === 'member') continue
      // Creating a tag is in the caller's own account: nothing of A's is named.
      if (rule.scope === 'catalog' && !route.path.includes(':tagId')) continue
      const reply = await call(platform, b.auth.owner, route.method, fill(route.path), route.method === 'GET' ? undefined : {})
      if (reply.status !== 404) failures.push(`other account ${route.method} ${route.path}: ${reply.status}, expected 404`)
    }
    expect(failures).toEqual([])
  })
})
