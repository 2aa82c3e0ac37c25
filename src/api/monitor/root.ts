import { createError } from '../../errors/index.js'
import type { Workspace } from '../../store/index.js'
import { workspacesOf } from './access.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { teamView } from './views.js'

/* GET /, /account, /teams/{id}, /teams/{id}/people, /teams/{id}/integrations, /regions. */

/** The one region of a local platform: runs execute in the platform process. */
export const LOCAL_REGION = 'local'

async function teamOf (ctx: MonitorContext): Promise<Workspace> {
  const id = ctx.params['teamId'] ?? ''
  const workspace = (await workspacesOf(ctx.deps.store, ctx.principal)).find((w) => String(w.id) === id)
  if (workspace === undefined) throw createError('ERR_API_NOT_FOUND', [`Team ${id}`])
  return workspace
}

export const rootRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/',
    scope: 'api:read',
    handler: async (ctx) => {
      const base = ctx.deps.options.baseUrl
      return {
        data: {
          bucket_list_url: `${base}/buckets`,
          current_account_url: `${base}/account`,
          resources: ['tests', 'steps', 'environments', 'schedules', 'results', 'account', 'buckets', 'integrations', 'regions', 'teams'],
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/account',
    scope: 'api:read',
    handler: async (ctx) => {
      const { user, account } = ctx.principal
      const teams = (await workspacesOf(ctx.deps.store, ctx.principal)).map(teamView)
      return {
        data: {
          id: String(user.id),
          uuid: String(user.id),
          name: `${user.firstName} ${user.lastName}`.trim(),
          // spec/000: email addresses need the account:email scope.
          email: ctx.principal.scopes.has('account:email') ? user.email : null,
          organization_id: String(account.id),
          created_at: Math.floor(user.created / 1000),
          teams,
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId',
    scope: 'team:read',
    handler: async (ctx) => ({ data: teamView(await teamOf(ctx)) }),
  },
  {
    method: 'GET',
    path: '/teams/:teamId/people',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      const users = await ctx.deps.store.users.listByAccount(ctx.principal.account.id, { limit: -1, skip: 0 })
      const withEmail = ctx.principal.scopes.has('account:email')
      return {
        data: users.items.map((u) => ({
          id: String(u.id),
          uuid: String(u.id),
          name: `${u.firstName} ${u.lastName}`.trim(),
          email: withEmail ? u.email : null,
          permission_group: { name: u.accountRoles.includes('admin') || u.accountRoles.includes('owner') ? 'Admin' : 'Member' },
          created_at: Math.floor(u.created / 1000),
          last_login_at: u.lastAccess === null ? null : Math.floor(u.lastAccess / 1000),
        })),
      }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/integrations',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      // No third-party integrations on a local platform: notifications go through webhooks and e-mail.
      return { data: [] }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/agents',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      return { data: [] }
    },
  },
  {
    method: 'GET',
    path: '/regions',
    scope: 'api:read',
    handler: async () => ({
      data: { regions: [{ region_code: LOCAL_REGION, location: 'This platform', service_provider: 'understudy', hostname: 'localhost' }] },
    }),
  },
]
