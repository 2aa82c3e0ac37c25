import { forgetAgentTokens } from './agent-auth.js'
import { randomBytes } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { Harbor } from '../../store/index.js'
import {
  findVisibleWorkspace,
  membershipOf,
  visibleWorkspace,
  visibleWorkspaceIds,
  visibleWorkspaceRoles,
} from '../access/authorize.js'
import { isAccountAdmin } from '../access/roles.js'
import { hashSecret } from '../auth.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { runTermsOf } from '../monitor/index.js'
import { harborView, shipView } from './private-location-views.js'

/** What every ship token starts with (docs/deploy.md "Agents and locations"). */
const SHIP_TOKEN_PREFIX = 'ust_'

const readHarbor = validatorOf<{ name: string; accountId: number; workspacesId: number[] }>({
  type: 'object',
  required: ['name', 'accountId', 'workspacesId'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    accountId: { type: 'integer', minimum: 1 },
    workspacesId: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: { type: 'integer', minimum: 1 },
    },
  },
})

const readShip = validatorOf<{ name: string; address?: string }>({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    address: { type: 'string', minLength: 1, maxLength: 255 },
  },
})

/** A new id: the prefix the product's ids carry (`harbor-`, `ship-`) and 96 random bits. */
function newId(prefix: string): string {
  return `${prefix}-${randomBytes(12).toString('hex')}`
}

/** The workspaces of the harbor's account the caller sees, with its role in each. */
async function rolesIn(ctx: ApiContext, accountId: number) {
  const membership = membershipOf(ctx, accountId)
  if (membership === undefined) return undefined
  return {
    admin: isAccountAdmin(membership),
    roles: await visibleWorkspaceRoles(ctx.deps.store, ctx.principal.user.id, [membership]),
  }
}

/**
 * The harbor of the path if the caller sees it (an account owner or admin, or a member of one of
 * the workspaces it is offered to), else 404 whatever the reason, as for any unseen object. With
 * `manage`, 403 unless the caller is an account owner or admin or a manager of one of its workspaces.
 */
async function harborOf(ctx: ApiContext, manage: boolean): Promise<Harbor> {
  const id = ctx.params['harborId'] ?? ''
  const accountIds = ctx.principal.memberships.map((m) => m.accountId)
  const harbor = await ctx.deps.store.locations.harbor(accountIds, id)
  const access = harbor === undefined ? undefined : await rolesIn(ctx, harbor.accountId)
  if (
    harbor === undefined ||
    access === undefined ||
    (!access.admin && !harbor.workspaceIds.some((w) => access.roles.has(w)))
  ) {
    throw createError('ERR_API_NOT_FOUND', [`Private location ${id}`])
  }
  if (
    manage &&
    !access.admin &&
    !harbor.workspaceIds.some((w) => access.roles.get(w) === 'manager')
  ) {
    throw createError('ERR_API_FORBIDDEN', [
      'changing a private location needs the account role owner or admin, or the manager role in one of its workspaces',
    ])
  }
  return harbor
}

async function detailOf(ctx: ApiContext, harbor: Harbor) {
  return harborView(harbor, await ctx.deps.store.locations.ships([harbor.id]))
}

function integerQuery(ctx: ApiContext, name: string): number | undefined {
  const raw = ctx.query.get(name)
  if (raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) {
    throw invalidField(`/${name}`, 'must be a positive integer')
  }
  return Number(raw)
}

async function list(ctx: ApiContext): Promise<HandlerResult> {
  const accountParam = integerQuery(ctx, 'accountId')
  const workspaceParam = integerQuery(ctx, 'workspaceId')
  if (accountParam === undefined && workspaceParam === undefined) {
    throw invalidField('/accountId', 'is required unless workspaceId is given')
  }
  const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
  // The product's `types[]` filter: every harbor here is `small` (shared: many mock services per agent).
  const types = [...ctx.query.getAll('types[]'), ...ctx.query.getAll('types')]
  for (const t of types) {
    if (t !== 'small' && t !== 'large') throw invalidField('/types', 'must be small or large')
  }
  let filter: { accountId: number; workspaceIds?: number[] }
  if (workspaceParam !== undefined) {
    const { workspace } = await visibleWorkspace(ctx, workspaceParam)
    if (accountParam !== undefined && accountParam !== workspace.accountId) {
      throw createError('ERR_API_NOT_FOUND', [
        `Workspace ${workspaceParam} in account ${accountParam}`,
      ])
    }
    filter = { accountId: workspace.accountId, workspaceIds: [workspace.id] }
  } else {
    const accountId = accountParam as number
    const membership = membershipOf(ctx, accountId)
    if (membership === undefined) throw createError('ERR_API_NOT_FOUND', [`Account ${accountId}`])
    filter = isAccountAdmin(membership)
      ? { accountId }
      : { accountId, workspaceIds: await visibleWorkspaceIds(ctx, accountId) }
  }
  const page =
    types.length > 0 && !types.includes('small')
      ? { items: [], total: 0 }
      : await ctx.deps.store.locations.harbors(filter, query)
  const ships = await ctx.deps.store.locations.ships(page.items.map((h) => h.id))
  return {
    result: page.items.map((h) =>
      harborView(
        h,
        ships.filter((s) => s.harborId === h.id),
      ),
    ),
    paging: { limit: query.limit, skip: query.skip, total: page.total },
    extra: { hidden: 0 },
  }
}

async function create(ctx: ApiContext): Promise<HandlerResult> {
  const input = readHarbor(await ctx.json())
  const membership = membershipOf(ctx, input.accountId)
  if (membership === undefined) {
    throw createError('ERR_API_NOT_FOUND', [`Account ${input.accountId}`])
  }
  const workspaceIds = [...new Set(input.workspacesId)]
  for (const [i, id] of input.workspacesId.entries()) {
    const seen = await findVisibleWorkspace(ctx, id)
    if (seen === undefined || seen.workspace.accountId !== input.accountId) {
      throw invalidField(
        `/workspacesId/${i}`,
        `workspace ${id} is not a workspace of account ${input.accountId} that you can see`,
      )
    }
    if (seen.role !== 'manager') {
      throw createError('ERR_API_FORBIDDEN', [
        `creating a private location for workspace ${id} needs the account role owner or admin, or the manager role there`,
      ])
    }
  }
  const harbor = await ctx.deps.store.locations.createHarbor({
    id: newId('harbor'),
    accountId: input.accountId,
    name: input.name,
    userId: ctx.principal.user.id,
    workspaceIds,
  })
  return { status: 201, result: harborView(harbor, []) }
}

async function createShip(ctx: ApiContext): Promise<HandlerResult> {
  const harbor = await harborOf(ctx, true)
  const input = readShip(await ctx.json())
  // The agent's credential: shown in this answer only; the store keeps its scrypt hash. The prefix
  // keeps it from starting with "-", which a command line would take for a flag (`--token -x...`),
  // and lets secret scanners recognise it.
  const token = `${SHIP_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`
  const ship = await ctx.deps.store.locations.createShip({
    id: newId('ship'),
    harborId: harbor.id,
    name: input.name,
    address: input.address ?? null,
    tokenHash: await hashSecret(token),
  })
  return { status: 201, result: { ...shipView(ship), token } }
}

/**
 * /api/v4/private-locations, in the shape of the product's private locations API: a harbor (a
 * location of an account, offered to some of its workspaces) and its servers (ships, the agents
 * that run mock services there). Every route is open to any member (src/api/access/policy.ts) and
 * narrows here: another account's harbor, or one offered to no workspace the caller sees, is 404.
 */
export const privateLocationRoutes: Route[] = [
  { method: 'GET', path: '/api/v4/private-locations', family: 'v4', handler: list },
  { method: 'POST', path: '/api/v4/private-locations', family: 'v4', handler: create },
  {
    method: 'GET',
    path: '/api/v4/private-locations/:harborId',
    family: 'v4',
    handler: async (ctx) => ({ result: await detailOf(ctx, await harborOf(ctx, false)) }),
  },
  {
    method: 'GET',
    path: '/api/v4/private-locations/:harborId/servers',
    family: 'v4',
    handler: async (ctx) => {
      const harbor = await harborOf(ctx, false)
      const ships = await ctx.deps.store.locations.ships([harbor.id])
      return {
        result: ships.map(shipView),
        paging: { limit: ships.length, skip: 0, total: ships.length },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/private-locations/:harborId/servers',
    family: 'v4',
    handler: createShip,
  },
  {
    method: 'GET',
    path: '/api/v4/private-locations/:harborId/servers/:shipId',
    family: 'v4',
    handler: async (ctx) => {
      const harbor = await harborOf(ctx, false)
      const id = ctx.params['shipId'] ?? ''
      const ship = await ctx.deps.store.locations.ship(harbor.id, id)
      if (ship === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Agent ${id} of private location ${harbor.id}`])
      }
      return { result: shipView(ship) }
    },
  },
  {
    method: 'DELETE',
    path: '/api/v4/private-locations/:harborId/servers/:shipId',
    family: 'v4',
    handler: async (ctx) => {
      const harbor = await harborOf(ctx, true)
      const id = ctx.params['shipId'] ?? ''
      const released = await ctx.deps.store.write(async (tx) => {
        if (!(await tx.locations.deleteShip(harbor.id, id))) return undefined
        // Its monitoring runs must not wait for an agent that is gone: runs pinned to it fail,
        // the runs of a region it held go back to the region's other agents.
        return await tx.monitoring.releaseShipRuns(
          id,
          Date.now(),
          `not run: its agent ${id} was deleted`,
        )
      })
      if (released === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Agent ${id} of private location ${harbor.id}`])
      }
      forgetAgentTokens(id)
      const terms = runTermsOf(ctx.deps.store)
      for (const run of released.failed) terms.completed?.(run)
      return { result: { id, removed: true } }
    },
  },
]
