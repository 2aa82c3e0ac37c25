import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'

/*
 * The product's MCP tools (sv-mcp) read accounts and workspaces through /api/v4 into typed
 * models (pydantic): an account's `description` is a `str`, a workspace's `owner`, `allowance`
 * and `membersCount` are read from the detail, and locations from the workspace. These are their
 * own requests (`bridge.read_account`, `WorkspaceManager.read` / `list`), reading what they read.
 */

interface V4<T> {
  api_version: number
  error: unknown
  result: T
  total?: number
}

describe('sv-mcp: accounts and workspaces', () => {
  it('reads an account, lists workspaces by -updated, reads one with owner, allowance, members and locations', async () => {
    const platform = await startTestPlatform()
    const account = (await (
      await platform.request(`/api/v4/accounts/${platform.accountId}`)
    ).json()) as V4<Record<string, unknown>>
    expect(account.error).toBeNull()
    expect(account.result).toMatchObject({
      id: platform.accountId,
      name: expect.any(String),
      description: expect.any(String),
      aiConsent: expect.any(Boolean),
      created: expect.any(Number),
      updated: expect.any(Number),
    })

    const query = new URLSearchParams({
      accountId: String(platform.accountId),
      limit: '50',
      skip: '0',
      'sort[]': '-updated',
    })
    const list = (await (
      await platform.request(`/api/v4/workspaces?${query.toString()}`)
    ).json()) as V4<Array<Record<string, unknown>>>
    expect(list.total).toBe(1)
    expect(list.result[0]).toMatchObject({
      id: platform.workspaceId,
      name: expect.any(String),
      accountId: platform.accountId,
      created: expect.any(Number),
      updated: expect.any(Number),
      enabled: true,
    })

    const read = (await (
      await platform.request(`/api/v4/workspaces/${platform.workspaceId}`)
    ).json()) as V4<Record<string, unknown> & { locations: Array<Record<string, unknown>> }>
    expect(read.result).toMatchObject({
      accountId: platform.accountId,
      owner: { id: platform.userId, email: expect.any(String), displayName: expect.any(String) },
      allowance: { amount: expect.any(Number), type: 'credits' },
      membersCount: expect.any(Number),
    })
    // format_workspaces_locations: id, title, limits, purposes.serviceMock; harbor- ids are private
    const mock = read.result.locations.filter(
      (l) => (l['purposes'] as Record<string, boolean>)['serviceMock'],
    )
    expect(mock).toEqual([
      expect.objectContaining({
        id: 'harbor-local',
        title: expect.any(String),
        limits: {
          threadsPerEngine: expect.any(Number),
          concurrency: expect.any(Number),
          engines: expect.any(Number),
          duration: expect.any(Number),
        },
      }),
    ])
  })
})
