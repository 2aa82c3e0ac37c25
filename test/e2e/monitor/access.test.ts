import { describe, expect, it } from 'vitest'
import { hashSecret } from '../../../src/api/index.js'
import { monitoringRoutes } from '../../../src/api/monitor/routes.js'
import { SCOPES } from '../../../src/api/monitor/types.js'
import { startMonitorPlatform, type MonitorPlatform } from './helpers.js'

/*
 * Every monitoring route, walked from the route table: a token without the route's scope answers
 * 403, and another account's token answers 404 on every route under a bucket, for every method.
 */

/** A personal token of the bootstrap user holding exactly `scopes` (api:read is always granted). */
async function tokenWith(m: MonitorPlatform, scopes: string[]): Promise<string> {
  const app = await m.call('POST', '/apps', {
    token: null,
    headers: { authorization: m.basic },
    json: {
      name: 'scoped',
      website_url: 'https://a.example',
      callback_url: 'https://a.example/cb',
      scope: scopes.join(' '),
    },
  })
  expect(app.status).toBe(201)
  return app.body.data.access_token as string
}

/** A token of a user of another account, holding every scope. */
async function otherAccountToken(m: MonitorPlatform): Promise<string> {
  const store = m.platform.store
  const account = await store.accounts.create({ name: 'Other' })
  const user = await store.users.create({
    email: 'eve@other.example',
    firstName: 'Eve',
    lastName: 'Other',
    enabled: true,
    accountRoles: ['owner'],
    accountId: account.id,
  })
  await store.workspaces.create({
    accountId: account.id,
    name: 'Other workspace',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: user.id,
  })
  await store.apiKeys.create({
    id: 'other-key',
    userId: user.id,
    name: 'k',
    secretHash: await hashSecret('other-secret'),
  })
  const app = await m.call('POST', '/apps', {
    token: null,
    headers: { authorization: `Basic ${Buffer.from('other-key:other-secret').toString('base64')}` },
    json: { name: 'Eve', website_url: 'https://e.example', callback_url: 'https://e.example/cb' },
  })
  expect(app.status).toBe(201)
  return app.body.data.access_token as string
}

describe('monitoring routes: scopes and workspace visibility', () => {
  it('answers 403 without the scope and 404 to another account, on every route', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const schedule = (
      await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
        json: { environment_id: test.default_environment_id, interval: '1h' },
      })
    ).body.data
    const ids: Record<string, string> = {
      bucketKey: key,
      testId: test.id,
      stepId: test.steps[0].id,
      environmentId: test.default_environment_id,
      scheduleId: schedule.id,
      runId: 'latest',
      messageId: 'm',
      teamId: m.teamId,
    }
    const pathOf = (path: string): string =>
      path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? 'x')
    const eve = await otherAccountToken(m)
    const tokens = new Map<string, string>()
    let scoped = 0
    let owned = 0
    for (const route of monitoringRoutes) {
      if ((route.auth ?? 'bearer') === 'none') continue
      const path = pathOf(route.path)
      const wanted =
        route.scope === undefined
          ? []
          : typeof route.scope === 'string'
            ? [route.scope]
            : [...route.scope]
      const label = `${route.method} ${route.path}`
      if (
        wanted.length > 0 &&
        !wanted.includes('api:read') &&
        (route.auth ?? 'bearer') === 'bearer'
      ) {
        const others = SCOPES.filter((s) => !wanted.includes(s))
        const cacheKey = others.join(' ')
        if (!tokens.has(cacheKey)) tokens.set(cacheKey, await tokenWith(m, others))
        const res = await m.call(route.method, path, {
          token: tokens.get(cacheKey) ?? '',
          json: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        })
        expect(res.status, label).toBe(403)
        scoped++
      }
      if (route.path.includes(':bucketKey') || route.path.includes(':teamId')) {
        const res = await m.call(route.method, path, {
          token: eve,
          json: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        })
        expect(res.status, label).toBe(404)
        owned++
      }
    }
    expect(scoped).toBeGreaterThan(20)
    expect(owned).toBeGreaterThan(30)
    // Nothing was changed by the refused calls.
    const after = await m.call('GET', `/buckets/${key}/tests/${test.id}`)
    expect(after.status).toBe(200)
    expect(after.body.data.steps).toHaveLength(1)
    expect(after.body.data.schedules).toHaveLength(1)
  })
})
