import { createError } from '../../errors/index.js'
import {
  WORKSPACE_ROLES,
  type User,
  type Workspace,
  type WorkspaceRole,
} from '../../store/index.js'
import { membershipOf, visibleWorkspaceIds } from '../access/authorize.js'
import { isAccountAdmin } from '../access/roles.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { harborLocationView } from './private-location-views.js'
import { offeredHarbors } from './offered-harbors.js'
import {
  workspaceCreateView,
  workspaceDetailView,
  workspaceListView,
  workspaceMemberView,
} from './views.js'

interface CreateWorkspace {
  name: string
  accountId?: number
  enabled?: boolean
  dedicatedIpsEnabled?: boolean
  privateLocationsEnabled?: boolean
}

const readCreate = validatorOf<CreateWorkspace>({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    accountId: { type: 'integer', minimum: 1 },
    enabled: { type: 'boolean' },
    dedicatedIpsEnabled: { type: 'boolean' },
    privateLocationsEnabled: { type: 'boolean' },
  },
})

const readUpdate = validatorOf<{ name?: string; enabled?: boolean }>({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    enabled: { type: 'boolean' },
  },
})

const roleList = {
  type: 'array',
  minItems: 1,
  maxItems: 1,
  items: { type: 'string', enum: [...WORKSPACE_ROLES] },
}

const readAddMembers = validatorOf<{ usersIds: number[]; roles: WorkspaceRole[] }>({
  type: 'object',
  required: ['usersIds', 'roles'],
  additionalProperties: false,
  properties: {
    usersIds: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: { type: 'integer', minimum: 1 },
    },
    roles: roleList,
  },
})

const readMember = validatorOf<{ roles?: WorkspaceRole[]; enabled?: boolean }>({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { roles: roleList, enabled: { type: 'boolean' } },
})

/** The account of a request: the caller's (default) or one it belongs to (else 404, as for any unseen object). */
function accountIdOf(ctx: ApiContext, given: number | undefined): number {
  const accountId = given ?? ctx.principal.account.id
  if (membershipOf(ctx, accountId) === undefined) {
    throw createError('ERR_API_NOT_FOUND', [`Account ${accountId}`])
  }
  return accountId
}

async function ownerOf(ctx: ApiContext, w: Workspace): Promise<User | undefined> {
  return await ctx.deps.store.users.get(w.userId)
}

async function membersCount(ctx: ApiContext, id: number): Promise<number> {
  return (await ctx.deps.store.tenancy.countWorkspaceMembers([id])).get(id) ?? 0
}

/** The private locations offered to a workspace, as its `locations` show them. */
async function privateLocationsOf(ctx: ApiContext, workspace: Workspace): Promise<object[]> {
  return (await offeredHarbors(ctx.deps.store, workspace)).map(({ harbor, ships }) =>
    harborLocationView(harbor, ships),
  )
}

async function detail(ctx: ApiContext): Promise<HandlerResult> {
  const workspace = await ctx.workspace()
  const store = ctx.deps.store
  const member = await store.tenancy.workspaceMember(workspace.id, ctx.principal.user.id)
  const role = isAccountAdmin(membershipOf(ctx, workspace.accountId))
    ? 'manager'
    : (member?.role ?? 'viewer')
  const active = workspaceMemberView(ctx.principal.user, { role, enabled: member?.enabled ?? true })
  return {
    result: workspaceDetailView(
      workspace,
      await ownerOf(ctx, workspace),
      await membersCount(ctx, workspace.id),
      active,
      await privateLocationsOf(ctx, workspace),
    ),
  }
}

async function update(ctx: ApiContext): Promise<HandlerResult> {
  const workspace = await ctx.workspace()
  const patch = readUpdate(await ctx.json())
  const updated = await ctx.deps.store.write(async (tx) =>
    tx.workspaces.update(workspace.id, patch),
  )
  if (updated === undefined) throw createError('ERR_API_NOT_FOUND', [`Workspace ${workspace.id}`])
  return {
    result: workspaceListView(
      updated,
      await ownerOf(ctx, updated),
      await membersCount(ctx, updated.id),
    ),
  }
}

/** An account member of the workspace's account, or 400 naming the field (a stranger cannot be added). */
async function accountMemberOf(
  ctx: ApiContext,
  workspace: Workspace,
  userId: number,
  field: string,
): Promise<User> {
  const member = await ctx.deps.store.tenancy.member(workspace.accountId, userId)
  const user = member === undefined ? undefined : await ctx.deps.store.users.get(userId)
  if (user === undefined) {
    throw invalidField(
      field,
      `user ${userId} is not a member of account ${workspace.accountId} (invite them first)`,
    )
  }
  return user
}

/**
 * /api/v4 workspaces (the administration specification): list, create, detail, update, and the
 * workspace's members with their workspace roles. Lists accept `limit=0`/`-1` (all, capped),
 * `sort[]=name` or `sort[]=-updated`, and always return `total` (docs/decisions.md#lists). Roles
 * are checked before the handler runs (src/api/access/policy.ts).
 */
export const workspaceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/workspaces',
    family: 'v4',
    handler: async (ctx) => {
      const raw = ctx.query.get('accountId')
      if (raw === null || raw === '') throw invalidField('/accountId', 'is required')
      if (!/^\d{1,15}$/.test(raw)) throw invalidField('/accountId', 'must be an integer')
      const accountId = accountIdOf(ctx, Number(raw))
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const store = ctx.deps.store
      let page: { items: Workspace[]; total: number }
      if (isAccountAdmin(membershipOf(ctx, accountId))) {
        page = await store.workspaces.listByAccount(accountId, query)
      } else {
        // A member sees only its workspaces: few, so they are read by id and paged here.
        const ids = new Set(await visibleWorkspaceIds(ctx, accountId))
        const all = await store.workspaces.listByAccount(accountId, {
          ...query,
          limit: -1,
          skip: 0,
        })
        const mine = all.items.filter((w) => ids.has(w.id))
        page = { items: mine.slice(query.skip, query.skip + query.limit), total: mine.length }
      }
      const counts = await store.tenancy.countWorkspaceMembers(page.items.map((w) => w.id))
      const owners = new Map<number, User | undefined>()
      for (const w of page.items) {
        if (!owners.has(w.userId)) owners.set(w.userId, await store.users.get(w.userId))
      }
      return {
        result: page.items.map((w) =>
          workspaceListView(w, owners.get(w.userId), counts.get(w.id) ?? 0),
        ),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/workspaces',
    family: 'v4',
    handler: async (ctx) => {
      const input = readCreate(await ctx.json())
      const accountId = accountIdOf(ctx, input.accountId)
      if (!isAccountAdmin(membershipOf(ctx, accountId))) {
        throw createError('ERR_API_FORBIDDEN', [
          'creating a workspace needs the account role owner or admin',
        ])
      }
      const workspace = await ctx.deps.store.write(async (tx) =>
        tx.workspaces.create({
          accountId,
          name: input.name,
          enabled: input.enabled ?? true,
          dedicatedIpsEnabled: input.dedicatedIpsEnabled ?? false,
          privateLocationsEnabled: input.privateLocationsEnabled ?? false,
          userId: ctx.principal.user.id,
        }),
      )
      return { status: 201, result: workspaceCreateView(workspace, ctx.principal.user, 1) }
    },
  },
  { method: 'GET', path: '/api/v4/workspaces/:workspaceId', family: 'v4', handler: detail },
  { method: 'PUT', path: '/api/v4/workspaces/:workspaceId', family: 'v4', handler: update },
  { method: 'PATCH', path: '/api/v4/workspaces/:workspaceId', family: 'v4', handler: update },
  {
    method: 'GET',
    path: '/api/v4/workspaces/:workspaceId/users',
    family: 'v4',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const query = listQueryOf(ctx.query, ['id', 'email', 'name', 'created', 'updated'])
      const page = await ctx.deps.store.tenancy.workspaceMembers(workspace.id, query)
      return {
        result: page.items.map((m) => workspaceMemberView(m.user, m)),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/workspaces/:workspaceId/users',
    family: 'v4',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readAddMembers(await ctx.json())
      const role = input.roles[0] as WorkspaceRole
      const users: User[] = []
      for (const [i, id] of input.usersIds.entries()) {
        users.push(await accountMemberOf(ctx, workspace, id, `/usersIds/${i}`))
      }
      const members = await ctx.deps.store.write(async (tx) => {
        const out = []
        for (const user of users) {
          out.push(
            workspaceMemberView(
              user,
              await tx.tenancy.setWorkspaceMember({
                workspaceId: workspace.id,
                userId: user.id,
                role,
                enabled: true,
              }),
            ),
          )
        }
        return out
      })
      return { status: 201, result: members }
    },
  },
  {
    method: 'PUT',
    path: '/api/v4/workspaces/:workspaceId/users/:userId',
    family: 'v4',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const userId = ctx.intParam('userId')
      const input = readMember(await ctx.json())
      const user = await accountMemberOf(ctx, workspace, userId, '/userId')
      const current = await ctx.deps.store.tenancy.workspaceMember(workspace.id, userId)
      const role = (input.roles?.[0] ?? current?.role) as WorkspaceRole | undefined
      if (role === undefined) {
        throw invalidField(
          '/roles',
          'is required for a user who is not a member of the workspace yet',
        )
      }
      const member = await ctx.deps.store.write(async (tx) =>
        tx.tenancy.setWorkspaceMember({
          workspaceId: workspace.id,
          userId,
          role,
          enabled: input.enabled ?? current?.enabled ?? true,
        }),
      )
      return { result: workspaceMemberView(user, member) }
    },
  },
  {
    method: 'DELETE',
    path: '/api/v4/workspaces/:workspaceId/users/:userId',
    family: 'v4',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const userId = ctx.intParam('userId')
      const removed = await ctx.deps.store.write(async (tx) =>
        tx.tenancy.removeWorkspaceMember(workspace.id, userId),
      )
      if (!removed) {
        throw createError('ERR_API_NOT_FOUND', [`Member ${userId} of workspace ${workspace.id}`])
      }
      return { result: { id: userId, removed: true } }
    },
  },
]
