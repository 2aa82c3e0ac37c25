import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'

/*
 * Taurus' /api/v4 client (bzt/bza.py: User, Account, Workspace, Project), request by request as
 * it sends them (Basic key, X-Client-Id/X-Client-Version, JSON bodies), reading only the fields
 * it reads. Its load-test calls (/tests, /masters, /sessions, /private-locations) are not served:
 * Understudy runs no load tests.
 */

interface V4<T> {
  api_version: number
  error: unknown
  result: T
  total?: number
}

/** BZAObject._request: Taurus' headers, JSON in and out, `error` set means failure. */
async function bza<T>(platform: TestPlatform, path: string, data?: unknown): Promise<V4<T>> {
  const headers: Record<string, string> = {
    'X-Client-Id': 'Taurus',
    'X-Client-Version': '1.16.40',
    authorization: platform.auth,
  }
  const init: RequestInit = { method: data === undefined ? 'GET' : 'POST', headers }
  if (data !== undefined) {
    headers['Content-Type'] = 'application/json'
    init.body = JSON.stringify(data)
  }
  const res = await fetch(platform.url + path, init)
  const text = await res.text()
  expect(res.status, `${path}: ${text}`).toBeLessThan(400)
  const body = (text === '' ? {} : JSON.parse(text)) as V4<T>
  expect(body.error ?? null, path).toBeNull()
  return body
}

/** The pagination loop of Account.workspaces / Workspace.projects: limit 100, until skip >= total. */
async function paged<T>(
  platform: TestPlatform,
  path: string,
  params: Record<string, string | number>,
): Promise<T[]> {
  const out: T[] = []
  let total: number | undefined
  for (let skip = 0; total === undefined || skip < total; skip += 100) {
    const query = new URLSearchParams(
      Object.entries({ ...params, limit: 100, skip }).map(([k, v]) => [k, String(v)]),
    )
    const page = await bza<T[]>(platform, `${path}?${query.toString()}`)
    total = page.total ?? 0
    out.push(...page.result)
  }
  return out
}

describe("Taurus' v4 client", () => {
  it('pings, finds its account, workspace, locations and projects, and creates a project', async () => {
    const platform = await startTestPlatform()
    await bza(platform, '/api/v4/web/version')
    const user = await bza<{ id: number; email: string }>(platform, '/api/v4/user')
    expect(typeof user.result.id).toBe('number')

    // User.accounts(ident=...): result[].id, name
    const accounts = await bza<Array<{ id: number; name: string }>>(platform, '/api/v4/accounts')
    const account = accounts.result.find((a) => a.id === platform.accountId)
    expect(account?.name).toEqual(expect.any(String))

    // Account.workspaces(): accountId, enabled=true, paged; keeps those with `enabled`
    const workspaces = await paged<{ id: number; name: string; enabled: boolean }>(
      platform,
      '/api/v4/workspaces',
      { accountId: platform.accountId, enabled: 'true' },
    )
    const workspace = workspaces.find((w) => w.enabled && w.id === platform.workspaceId)
    expect(workspace).toBeDefined()
    // Account.workspace(ident=...) and Workspace.fetch(): result.name, result.locations[].id
    const detail = await bza<{ name: string; locations: Array<{ id: string }> }>(
      platform,
      `/api/v4/workspaces/${platform.workspaceId}`,
    )
    expect(detail.result.name).toBe(workspace?.name)
    expect(detail.result.locations.map((l) => String(l.id))).toContain('harbor-local')

    // Workspace.projects(): workspaceId (and name), paged
    const projects = await paged<{ id: number; name: string; workspaceId: number }>(
      platform,
      '/api/v4/projects',
      { workspaceId: platform.workspaceId },
    )
    expect(projects.length).toBeGreaterThan(0)
    // Workspace.create_project(name): POST {name, workspaceId}; then found by name and by id
    const created = await bza<{ id: number; name: string; workspaceId: number }>(
      platform,
      '/api/v4/projects',
      { name: 'taurus project', workspaceId: platform.workspaceId },
    )
    expect(created.result).toMatchObject({
      name: 'taurus project',
      workspaceId: platform.workspaceId,
    })
    const byName = await paged<{ id: number; name: string }>(platform, '/api/v4/projects', {
      workspaceId: platform.workspaceId,
      name: 'taurus project',
    })
    expect(byName.map((p) => p.id)).toEqual([created.result.id])
    // Workspace.project(ident=...): result.name and result.workspaceId == the workspace's id
    const one = await bza<{ name: string; workspaceId: number }>(
      platform,
      `/api/v4/projects/${created.result.id}`,
    )
    expect(one.result).toMatchObject({ name: 'taurus project', workspaceId: platform.workspaceId })
  })
})
