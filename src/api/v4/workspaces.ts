import { createError } from '../../errors/index.js'
import type { User, Workspace } from '../../store/index.js'
import { epochSeconds } from '../format.js'
import type { ApiContext, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'

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
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    accountId: { type: 'integer', minimum: 1 },
    enabled: { type: 'boolean' },
    dedicatedIpsEnabled: { type: 'boolean' },
    privateLocationsEnabled: { type: 'boolean' },
  },
})

/** The workspace of spec/001 as lists show it (no locations, features, plan or billing). */
function listView (w: Workspace, owner: User | undefined) {
  return {
    id: w.id,
    name: w.name,
    userId: w.userId,
    created: epochSeconds(w.created),
    updated: epochSeconds(w.updated),
    enabled: w.enabled,
    dedicatedIpsEnabled: w.dedicatedIpsEnabled,
    privateLocationsEnabled: w.privateLocationsEnabled,
    owner: owner === undefined ? null : { id: owner.id, email: owner.email, displayName: `${owner.firstName} ${owner.lastName}`.trim() },
    membersCount: 1,
    allowance: { amount: 0, type: 'credits' },
    accountId: w.accountId,
  }
}

/** The create response adds the features, plan, credits and billing a client may read. */
function createView (w: Workspace, owner: User) {
  return {
    ...listView(w, owner),
    features: { mockServicesForPrivateCloud: false, functionalApi: true, testScheduler: false },
    plan: { id: 'understudy', name: 'Understudy', type: 'self-hosted', maxConcurrentMockServices: -1, mockServicesMaxReplicas: -1 },
    expiration: null,
    credits: 0,
    billing: null,
  }
}

function accountIdOf (ctx: ApiContext, given: number | undefined): number {
  const accountId = given ?? ctx.principal.account.id
  if (accountId !== ctx.principal.account.id) throw createError('ERR_API_FORBIDDEN', [`account ${accountId} is not the API key's account`])
  return accountId
}

/**
 * `GET /api/v4/workspaces?accountId=` and `POST /api/v4/workspaces` (spec/001): enough for a client
 * to find and make its workspaces. Lists accept `limit=0`/`-1` (all, capped), `sort[]=name` or
 * `sort[]=-updated`, and always return `total` (DESIGN.md 5b).
 */
export const workspaceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/workspaces',
    family: 'v4',
    handler: async (ctx) => {
      const raw = ctx.query.get('accountId')
      if (raw === null || raw === '') throw invalidField('/accountId', 'is required')
      if (!/^\d+$/.test(raw)) throw invalidField('/accountId', 'must be an integer')
      const accountId = accountIdOf(ctx, Number(raw))
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const page = await ctx.deps.store.workspaces.listByAccount(accountId, query)
      const owners = new Map<number, User | undefined>()
      for (const w of page.items) if (!owners.has(w.userId)) owners.set(w.userId, await ctx.deps.store.users.get(w.userId))
      return {
        result: page.items.map((w) => listView(w, owners.get(w.userId))),
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
      const workspace = await ctx.deps.store.write(async (tx) => tx.workspaces.create({
        accountId,
        name: input.name,
        enabled: input.enabled ?? true,
        dedicatedIpsEnabled: input.dedicatedIpsEnabled ?? false,
        privateLocationsEnabled: input.privateLocationsEnabled ?? false,
        userId: ctx.principal.user.id,
      }))
      return { status: 201, result: createView(workspace, ctx.principal.user) }
    },
  },
]
