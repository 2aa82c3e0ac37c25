import { createError } from '../../errors/index.js'
import { ACCOUNT_ROLES, type MockService, type Workspace } from '../../store/index.js'
import { membershipOf } from '../access/authorize.js'
import { isAccountAdmin } from '../access/roles.js'
import type { ApiContext, Route } from '../http/types.js'
import { createAccount } from '../account-admin.js'
import { epochSeconds } from '../format.js'
import { generateApiKey } from '../keys.js'
import { localLocation } from '../local-location.js'
import { listQueryOf } from '../paging.js'
import { validatorOf } from '../validation.js'
import { functionalities } from './functionalities.js'
import { accountUserView, accountView } from './views.js'

const readPatch = validatorOf<{
  name?: string
  description?: string | null
  aiConsent?: boolean
  welcomeScreenLinkText?: string | null
  welcomeScreenLinkUrl?: string | null
}>({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    aiConsent: { type: 'boolean' },
    welcomeScreenLinkText: { type: ['string', 'null'], maxLength: 200 },
    welcomeScreenLinkUrl: { type: ['string', 'null'], maxLength: 2000, pattern: '^https?://' },
  },
})

const readUserUpdate = validatorOf<{ roles?: string[]; enabled?: boolean }>({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    roles: {
      type: 'array',
      minItems: 1,
      maxItems: 4,
      uniqueItems: true,
      items: { type: 'string', enum: [...ACCOUNT_ROLES] },
    },
    enabled: { type: 'boolean' },
  },
})

const readTerminate = validatorOf<{ dryRun?: boolean }>({
  type: 'object',
  additionalProperties: false,
  properties: { dryRun: { type: 'boolean' } },
})

const ADMIN_ROLES = ['owner', 'admin'] as const

const readNewAccount = validatorOf<{ name: string; ownerEmail: string }>({
  type: 'object',
  required: ['name', 'ownerEmail'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    ownerEmail: { type: 'string', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' },
  },
})

const readKeyName = validatorOf<{ name: string }>({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
})

/**
 * Platform operators: the owners and admins of the platform's first account (the bootstrap's).
 * Only they create accounts over the API; `understudy admin create-account` needs the data dir.
 */
async function isOperator(ctx: ApiContext): Promise<boolean> {
  const first = await ctx.deps.store.tenancy.firstAccountId()
  return first !== undefined && isAccountAdmin(membershipOf(ctx, first))
}

async function workspacesOf(ctx: ApiContext, accountId: number): Promise<Workspace[]> {
  return (await ctx.deps.store.workspaces.listByAccount(accountId, { limit: -1, skip: 0 })).items
}

/** The running mock-service runtimes ("masters", "engines") of an account, live from the deployer. */
async function runningOf(ctx: ApiContext, accountId: number): Promise<MockService[]> {
  const workspaceIds = new Set((await workspacesOf(ctx, accountId)).map((w) => w.id))
  const figures = await ctx.deps.deployer.environment()
  const out: MockService[] = []
  for (const id of figures.runningMockServiceIds) {
    const mock = await ctx.deps.store.mockServices.getById(id)
    if (mock !== undefined && workspaceIds.has(mock.workspaceId)) out.push(mock)
  }
  return out
}

async function accountResult(ctx: ApiContext, accountId: number) {
  const account = await ctx.deps.store.accounts.get(accountId)
  if (account === undefined) throw createError('ERR_API_NOT_FOUND', [`Account ${accountId}`])
  return accountView(
    account,
    await ctx.deps.store.tenancy.profile(accountId),
    membershipOf(ctx, accountId),
  )
}

/**
 * /api/v4/accounts (the administration specification): the caller's accounts, one account, its
 * welcome screen, its users and their roles, the engine utilization report, the functionalities and
 * terminate-masters. Invitations are in ./invitations.ts. Roles are checked before the handler runs
 * (src/api/access/policy.ts): an account the caller is not in is 404.
 */
export const accountRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/accounts',
    family: 'v4',
    handler: async (ctx) => {
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const page = await ctx.deps.store.tenancy.accountsOf(ctx.principal.user.id, query)
      const result = []
      for (const a of page.items) {
        result.push(
          accountView(a, await ctx.deps.store.tenancy.profile(a.id), membershipOf(ctx, a.id)),
        )
      }
      return {
        result,
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/accounts',
    family: 'v4',
    handler: async (ctx) => {
      const input = readNewAccount(await ctx.json())
      if (!(await isOperator(ctx))) {
        throw createError('ERR_API_FORBIDDEN', [
          "creating an account needs the owner or admin role in the platform's first account",
        ])
      }
      const made = await ctx.deps.store.write(async (tx) => {
        // The answer carries a new API key of the owner: for another existing user that key would
        // open every account they belong to. They are invited instead (the caller owns the new
        // account, then invites them), as a key for another user needs the admin role everywhere.
        const existing = await tx.users.getByEmail(input.ownerEmail)
        if (existing !== undefined && existing.id !== ctx.principal.user.id) {
          throw createError(
            'ERR_API_CONFLICT',
            [
              'ownerEmail belongs to an existing user: create the account with your own e-mail as owner, then invite them (POST /api/v4/accounts/{accountId}/invitations)',
            ],
            {
              details: [
                {
                  path: '/ownerEmail',
                  message: 'belongs to an existing user; invite them instead',
                },
              ],
            },
          )
        }
        return await createAccount(tx, { name: input.name, email: input.ownerEmail })
      })
      return {
        status: 201,
        result: {
          ...accountView(made.account, await ctx.deps.store.tenancy.profile(made.account.id)),
          owner: { id: made.owner.id, email: made.owner.email },
          workspaceId: made.workspace.id,
          apiKey: { id: made.apiKey.id, secret: made.apiKey.secret },
        },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/accounts/:accountId/users/:userId/api-keys',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const userId = ctx.intParam('userId')
      const input = readKeyName(await ctx.json())
      const memberships = await ctx.deps.store.tenancy.membershipsOf(userId)
      if (!memberships.some((m) => m.accountId === accountId)) {
        throw createError('ERR_API_NOT_FOUND', [`User ${userId} of account ${accountId}`])
      }
      // A key opens every account of its user: only an admin of all of them may issue one.
      const foreign = memberships.find((m) => !isAccountAdmin(membershipOf(ctx, m.accountId)))
      if (foreign !== undefined) {
        throw createError('ERR_API_FORBIDDEN', [
          `user ${userId} also belongs to an account you do not administer: they create their own keys`,
        ])
      }
      const key = await generateApiKey()
      const stored = await ctx.deps.store.write(async (tx) =>
        tx.apiKeys.create({ id: key.id, userId, name: input.name, secretHash: key.secretHash }),
      )
      return {
        status: 201,
        result: {
          id: stored.id,
          name: stored.name,
          userId,
          created: epochSeconds(stored.created),
          secret: key.secret,
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/accounts/:accountId',
    family: 'v4',
    handler: async (ctx) => ({ result: await accountResult(ctx, ctx.intParam('accountId')) }),
  },
  {
    method: 'PATCH',
    path: '/api/v4/accounts/:accountId',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const input = readPatch(await ctx.json())
      await ctx.deps.store.write(async (tx) => {
        if (input.name !== undefined) await tx.tenancy.renameAccount(accountId, input.name)
        await tx.tenancy.updateProfile(accountId, {
          description: input.description,
          aiConsent: input.aiConsent,
          welcomeLinkText: input.welcomeScreenLinkText,
          welcomeLinkUrl: input.welcomeScreenLinkUrl,
        })
      })
      return { result: await accountResult(ctx, accountId) }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/accounts/:accountId/users',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const query = listQueryOf(ctx.query, ['id', 'email', 'name', 'created', 'updated', 'enabled'])
      const page = await ctx.deps.store.tenancy.members(accountId, query)
      return {
        result: page.items.map((m) => accountUserView(m.user, m)),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'PUT',
    path: '/api/v4/accounts/:accountId/users/:userId',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const userId = ctx.intParam('userId')
      const input = readUserUpdate(await ctx.json())
      const callerIsAdmin = isAccountAdmin(membershipOf(ctx, accountId))
      const result = await ctx.deps.store.write(async (tx) => {
        const current = await tx.tenancy.member(accountId, userId)
        const user = current === undefined ? undefined : await tx.users.get(userId)
        if (current === undefined || user === undefined) {
          throw createError('ERR_API_NOT_FOUND', [`User ${userId} of account ${accountId}`])
        }
        const roles = input.roles ?? current.roles
        const enabled = input.enabled ?? current.enabled
        const touchesAdmins = ADMIN_ROLES.some(
          (r) => current.roles.includes(r) || roles.includes(r),
        )
        if (!callerIsAdmin && touchesAdmins) {
          throw createError('ERR_API_FORBIDDEN', [
            'only an account owner or admin may grant, change or remove the owner and admin roles',
          ])
        }
        for (const role of ADMIN_ROLES) {
          const loses =
            current.enabled && current.roles.includes(role) && (!enabled || !roles.includes(role))
          if (loses && (await tx.tenancy.countWithRole(accountId, role)) <= 1) {
            throw createError('ERR_API_CONFLICT', [
              `user ${userId} is the last ${role} of account ${accountId}: give the role to someone else first`,
            ])
          }
        }
        const member = await tx.tenancy.setMember({ accountId, userId, roles, enabled })
        return accountUserView(user, member)
      })
      return { result }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/accounts/:accountId/utilization-report',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const workspaces = await workspacesOf(ctx, accountId)
      const running = await runningOf(ctx, accountId)
      const location = localLocation()
      const enginesIn = (workspaceId: number): number =>
        running.filter((m) => m.workspaceId === workspaceId).length
      return {
        result: {
          workspaces: workspaces.map((w) => ({
            id: w.id,
            name: w.name,
            locations: {
              [location.id]: { id: location.id, name: location.name, engines: enginesIn(w.id) },
            },
          })),
          locations: {
            [location.id]: { id: location.id, name: location.name, engines: running.length },
          },
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/accounts/:accountId/functionalities',
    family: 'v4',
    handler: async () => ({ result: functionalities() }),
  },
  {
    method: 'POST',
    path: '/api/v4/accounts/:accountId/terminate-masters',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const body =
        ctx.req.headers['content-length'] === '0' ||
        (ctx.req.headers['content-length'] === undefined &&
          ctx.req.headers['transfer-encoding'] === undefined)
          ? {}
          : await ctx.json()
      const { dryRun = false } = readTerminate(body)
      const running = await runningOf(ctx, accountId)
      if (!dryRun) {
        for (const mock of running) await ctx.deps.deployer.stop(mock, ctx.principal.user.email)
      }
      return { result: running.map((m) => m.id), extra: { dryRun } }
    },
  },
]
