import { expect } from 'vitest'
import type { TestPlatform } from '../../helpers/platform.js'

/** The roles every test account gets, made through the API. */
export const ROLES = ['owner', 'admin', 'tester', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export interface TestAccount {
  accountId: number
  workspaceId: number
  /** `Authorization` header per role. */
  auth: Record<Role, string>
  userIds: Record<Role, number>
}

interface Reply<T = unknown> {
  status: number
  body: {
    api_version?: number
    error: { code: string; message: string; details?: Array<{ path: string }> } | null
    result: T
    total?: number
    limit?: number
    skip?: number
    [k: string]: unknown
  }
  headers: Headers
}

/** One call with a given key; the body parsed as JSON (every API answer is an envelope). */
export async function call<T = unknown>(
  platform: TestPlatform,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<Reply<T>> {
  const init: RequestInit & { json?: unknown } = { method, headers: { authorization: auth } }
  if (json !== undefined) init.json = json
  const res = await platform.request(path, init)
  const text = await res.text()
  return {
    status: res.status,
    body: text === '' ? { error: null, result: null as T } : (JSON.parse(text) as Reply<T>['body']),
    headers: res.headers,
  }
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
}

/**
 * An account made through the API only: the platform operator (bootstrap key) creates it with
 * its owner; the owner invites an admin, a tester and a viewer (attached at once) and issues
 * their first API keys.
 */
export async function makeAccount(platform: TestPlatform, name: string): Promise<TestAccount> {
  const made = await call<{
    id: number
    workspaceId: number
    owner: { id: number }
    apiKey: { id: string; secret: string }
  }>(platform, platform.auth, 'POST', '/api/v4/accounts', {
    name,
    ownerEmail: `owner@${name}.test`,
  })
  expect(made.status).toBe(201)
  const { id: accountId, workspaceId } = made.body.result
  const owner = basic(made.body.result.apiKey.id, made.body.result.apiKey.secret)
  const invited = await call(platform, owner, 'POST', `/api/v4/accounts/${accountId}/invitations`, {
    invitations: [
      { inviteeEmail: `admin@${name}.test`, attachAutomatically: true, accountRoles: ['admin'] },
      {
        inviteeEmail: `tester@${name}.test`,
        attachAutomatically: true,
        accountRoles: ['standard'],
        workspacesId: [workspaceId],
        workspacesRoles: ['tester'],
      },
      {
        inviteeEmail: `viewer@${name}.test`,
        attachAutomatically: true,
        accountRoles: ['standard'],
        workspacesId: [workspaceId],
        workspacesRoles: ['viewer'],
      },
    ],
  })
  expect(invited.status).toBe(201)
  const users = await call<Array<{ id: number; email: string }>>(
    platform,
    owner,
    'GET',
    `/api/v4/accounts/${accountId}/users?limit=0`,
  )
  expect(users.status).toBe(200)
  const idOf = (role: Role): number => {
    const user = users.body.result.find((u) => u.email === `${role}@${name}.test`)
    if (user === undefined) throw new Error(`no ${role} in ${name}`)
    return user.id
  }
  const auth: Record<string, string> = { owner }
  for (const role of ['admin', 'tester', 'viewer'] as const) {
    const key = await call<{ id: string; secret: string }>(
      platform,
      owner,
      'POST',
      `/api/v4/accounts/${accountId}/users/${idOf(role)}/api-keys`,
      { name: `${role} key` },
    )
    expect(key.status).toBe(201)
    auth[role] = basic(key.body.result.id, key.body.result.secret)
  }
  return {
    accountId,
    workspaceId,
    auth: auth as Record<Role, string>,
    userIds: {
      owner: made.body.result.owner.id,
      admin: idOf('admin'),
      tester: idOf('tester'),
      viewer: idOf('viewer'),
    },
  }
}
