import { createError } from '../../errors/index.js'
import type { AccountMember, Store, Workspace, WorkspaceRole } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { ruleOf } from './policy.js'
import { isAccountAdmin, satisfies, workspaceRoleOf } from './roles.js'

/** What the access check learnt, handed to the handler (the workspace is read once). */
export interface Access {
  workspace?: Workspace
  role?: WorkspaceRole
}

/** The caller's enabled membership of an account, if any. */
export function membershipOf(
  ctx: Pick<ApiContext, 'principal'>,
  accountId: number,
): AccountMember | undefined {
  return ctx.principal.memberships.find((m) => m.accountId === accountId)
}

/**
 * A workspace the caller may see, with its role there; undefined when it does not exist or
 * belongs to an account the caller is not in, or the caller is not its member: the three look
 * alike from outside (404), so ids leak nothing (docs/decisions.md#not-found-not-forbidden).
 *
 * @example
 * const seen = await findVisibleWorkspace(ctx, 7)
 */
export async function findVisibleWorkspace(
  ctx: Pick<ApiContext, 'principal' | 'deps'>,
  id: number,
): Promise<{ workspace: Workspace; role: WorkspaceRole } | undefined> {
  const workspace = await ctx.deps.store.workspaces.get(id)
  if (workspace === undefined) return undefined
  const membership = membershipOf(ctx, workspace.accountId)
  if (membership === undefined) return undefined
  const member = isAccountAdmin(membership)
    ? undefined
    : await ctx.deps.store.tenancy.workspaceMember(id, ctx.principal.user.id)
  const role = workspaceRoleOf(membership, member)
  return role === null ? undefined : { workspace, role }
}

/** A visible workspace or 404 ERR_API_NOT_FOUND. */
export async function visibleWorkspace(
  ctx: Pick<ApiContext, 'principal' | 'deps'>,
  id: number,
): Promise<{ workspace: Workspace; role: WorkspaceRole }> {
  const seen = await findVisibleWorkspace(ctx, id)
  if (seen === undefined) throw createError('ERR_API_NOT_FOUND', [`Workspace ${id}`])
  return seen
}

/**
 * Every workspace the holder of these memberships sees, with its role there: all the workspaces of
 * an account it administers (as manager), else those it is an enabled member of.
 *
 * @example
 * const roles = await visibleWorkspaceRoles(store, userId, memberships) // Map { 7 => 'tester' }
 */
export async function visibleWorkspaceRoles(
  store: Store,
  userId: number,
  memberships: readonly AccountMember[],
): Promise<Map<number, WorkspaceRole>> {
  const out = new Map<number, WorkspaceRole>()
  for (const membership of memberships) {
    if (isAccountAdmin(membership)) {
      const all = await store.workspaces.listByAccount(membership.accountId, { limit: -1, skip: 0 })
      for (const w of all.items) out.set(w.id, 'manager')
    } else {
      for (const r of await store.tenancy.workspaceRolesOf(membership.accountId, userId)) {
        out.set(r.workspaceId, r.role)
      }
    }
  }
  return out
}

/**
 * Every workspace id the caller sees, in one account or in all of its accounts: for lists and
 * search, which must show only those.
 *
 * @example
 * const ids = await visibleWorkspaceIds(ctx, 1)
 */
export async function visibleWorkspaceIds(
  ctx: Pick<ApiContext, 'principal' | 'deps'>,
  accountId?: number,
): Promise<number[]> {
  const memberships = ctx.principal.memberships.filter(
    (m) => accountId === undefined || m.accountId === accountId,
  )
  return [
    ...(await visibleWorkspaceRoles(ctx.deps.store, ctx.principal.user.id, memberships)).keys(),
  ]
}

/**
 * The access check of one request, before its handler runs (src/api/access/policy.ts decides the
 * rule): 404 for what the caller cannot see, 403 for what it sees but may not do, 403 for a
 * write to a disabled workspace.
 */
export async function authorize(ctx: ApiContext, route: Route): Promise<Access> {
  const rule = ruleOf(route)
  switch (rule.scope) {
    case 'public':
    case 'member':
      return {}
    case 'catalog': {
      // Another account's tag is 404 before any role question, so that its id tells nothing.
      if (
        ctx.params['tagId'] !== undefined &&
        (await ctx.deps.store.tags.get(ctx.principal.account.id, ctx.intParam('tagId'))) ===
          undefined
      ) {
        throw createError('ERR_API_NOT_FOUND', [`Tag ${ctx.params['tagId']}`])
      }
      const membership = membershipOf(ctx, ctx.principal.account.id)
      if (isAccountAdmin(membership)) return {}
      const roles = await ctx.deps.store.tenancy.workspaceRolesOf(
        ctx.principal.account.id,
        ctx.principal.user.id,
      )
      if (roles.some((r) => satisfies(r.role, 'tester'))) return {}
      throw createError('ERR_API_FORBIDDEN', [
        'changing tags needs a tester or manager role in a workspace, or an account admin',
      ])
    }
    case 'account': {
      const accountId = ctx.intParam('accountId')
      const membership = membershipOf(ctx, accountId)
      if (membership === undefined) throw createError('ERR_API_NOT_FOUND', [`Account ${accountId}`])
      if (!rule.roles.some((r) => membership.roles.includes(r))) {
        throw createError('ERR_API_FORBIDDEN', [
          `${ctx.method} ${route.path} needs one of the account roles ${rule.roles.join(', ')}`,
        ])
      }
      return {}
    }
    case 'workspace': {
      const id = ctx.intParam('workspaceId')
      const { workspace, role } = await visibleWorkspace(ctx, id)
      if (!satisfies(role, rule.need)) {
        throw createError('ERR_API_FORBIDDEN', [
          `${ctx.method} ${route.path} needs the workspace role ${rule.need} or stronger (yours: ${role})`,
        ])
      }
      if (!workspace.enabled && rule.need !== 'viewer' && rule.whileDisabled !== true) {
        throw createError('ERR_API_FORBIDDEN', [
          `workspace ${id} is disabled: it accepts no changes until a manager enables it`,
        ])
      }
      return { workspace, role }
    }
  }
}
