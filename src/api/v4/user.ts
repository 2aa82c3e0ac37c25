import { createError } from '../../errors/index.js'
import type { ApiKey } from '../../store/index.js'
import { findVisibleWorkspace, visibleWorkspaceIds } from '../access/authorize.js'
import { epochSeconds, epochSecondsOrNull } from '../format.js'
import type { ApiContext, Route } from '../http/types.js'
import { generateApiKey } from '../keys.js'
import { validatorOf } from '../validation.js'
import { accessOf, displayNameOf } from './views.js'

const readKey = validatorOf<{ name: string }>({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
})

const readPreferences = validatorOf<{ preferences: { activeWorkspaceId: number | null } }>({
  type: 'object',
  required: ['preferences'],
  additionalProperties: false,
  properties: {
    preferences: {
      type: 'object',
      required: ['activeWorkspaceId'],
      additionalProperties: false,
      properties: { activeWorkspaceId: { type: ['integer', 'null'], minimum: 1 } },
    },
  },
})

/** An API key as listed: never its secret nor its hash. */
function keyView(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    created: epochSeconds(key.created),
    lastUsed: epochSecondsOrNull(key.lastUsed),
    revoked: key.revoked !== null,
    revokedAt: epochSecondsOrNull(key.revoked),
  }
}

/**
 * The caller's bearings: its active workspace (the preference when still visible, else its first
 * workspace) and that workspace's default project. `defaultProjectId` is 0 when the user sees no
 * workspace at all (clients' models refuse null).
 */
async function bearingsOf(ctx: ApiContext) {
  const store = ctx.deps.store
  const extras = await store.tenancy.userExtras(ctx.principal.user.id)
  const preferred = extras?.activeWorkspaceId ?? null
  let workspace =
    preferred === null ? undefined : (await findVisibleWorkspace(ctx, preferred))?.workspace
  if (workspace === undefined) {
    const first =
      (await visibleWorkspaceIds(ctx, ctx.principal.account.id))[0] ??
      (await visibleWorkspaceIds(ctx))[0]
    workspace = first === undefined ? undefined : await store.workspaces.get(first)
  }
  const project =
    workspace === undefined ? undefined : await store.tenancy.defaultProject(workspace.id)
  return { extras, workspace, project }
}

async function userView(ctx: ApiContext) {
  const { user, account, memberships } = ctx.principal
  const { extras, workspace, project } = await bearingsOf(ctx)
  const accounts = []
  for (const m of memberships) {
    const a = await ctx.deps.store.accounts.get(m.accountId)
    if (a !== undefined) accounts.push({ id: a.id, name: a.name, roles: m.roles })
  }
  const access = accessOf(user)
  return {
    id: user.id,
    email: user.email,
    access,
    login: access,
    firstName: user.firstName,
    lastName: user.lastName,
    displayName: displayNameOf(user),
    timezone: 0,
    enabled: user.enabled,
    roles: ['user', 'authenticated'],
    created: epochSeconds(user.created),
    updated: epochSeconds(extras?.updated ?? user.created),
    accountId: account.id,
    accountRoles: memberships.find((m) => m.accountId === account.id)?.roles ?? [],
    accounts,
    defaultProjectId: project?.id ?? 0,
    defaultProject: {
      id: project?.id ?? 0,
      accountId: workspace?.accountId ?? account.id,
      workspaceId: workspace?.id ?? 0,
    },
    preferences: { activeWorkspaceId: workspace?.id ?? null },
  }
}

/**
 * `GET /api/v4/user` (the administration specification, docs/api.md#users-and-api-keys, plus the
 * fields existing clients read), `PATCH /api/v4/user` (the active workspace), and the caller's API
 * keys at `/api/v4/user/api-keys` (paths not in the spec; docs/api.md): create shows the secret
 * once, list never shows it, DELETE revokes, and a revoked key is refused on its next request.
 */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/user',
    family: 'v4',
    handler: async (ctx) => ({ result: await userView(ctx) }),
  },
  {
    method: 'PATCH',
    path: '/api/v4/user',
    family: 'v4',
    handler: async (ctx) => {
      const input = readPreferences(await ctx.json())
      const id = input.preferences.activeWorkspaceId
      if (id !== null && (await findVisibleWorkspace(ctx, id)) === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Workspace ${id}`])
      }
      await ctx.deps.store.tenancy.setActiveWorkspace(ctx.principal.user.id, id)
      return { result: await userView(ctx) }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/user/api-keys',
    family: 'v4',
    handler: async (ctx) => {
      const keys = await ctx.deps.store.tenancy.apiKeysOf(ctx.principal.user.id)
      return {
        result: keys.map(keyView),
        paging: { limit: keys.length, skip: 0, total: keys.length },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/user/api-keys',
    family: 'v4',
    handler: async (ctx) => {
      const input = readKey(await ctx.json())
      const key = await generateApiKey()
      const stored = await ctx.deps.store.write(async (tx) =>
        tx.apiKeys.create({
          id: key.id,
          userId: ctx.principal.user.id,
          name: input.name,
          secretHash: key.secretHash,
        }),
      )
      return { status: 201, result: { ...keyView(stored), secret: key.secret } }
    },
  },
  {
    method: 'DELETE',
    path: '/api/v4/user/api-keys/:keyId',
    family: 'v4',
    handler: async (ctx) => {
      const id = ctx.params['keyId'] ?? ''
      const revoked = await ctx.deps.store.write(async (tx) =>
        tx.tenancy.revokeApiKey(ctx.principal.user.id, id),
      )
      if (!revoked) throw createError('ERR_API_NOT_FOUND', [`API key ${id}`])
      return { result: { id, revoked: true } }
    },
  },
]
