import { createError } from '../../errors/index.js'
import { WORKSPACE_ROLES, type JsonObject, type Workspace } from '../../store/index.js'
import { workspacesOf } from './access.js'
import { LOCAL_REGION } from './run-context.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { accountTeamView, personView, teamDetailView } from './views.js'

/* GET /, /account, /teams/{id}, /teams/{id}/people, /teams/{id}/roles, /teams/{id}/agents, /regions. */

/** The one region of a local platform: runs execute in the platform process. */

/**
 * The roles of a team, as the product's role endpoints list them: here the fixed workspace roles
 * (docs/roles.md), each with what it may do. They are not editable through this API.
 */
const ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  viewer: ['view_tests', 'view_results'],
  tester: [
    'view_tests',
    'view_results',
    'edit_tests',
    'run_tests',
    'edit_environments',
    'edit_schedules',
  ],
  manager: [
    'view_tests',
    'view_results',
    'edit_tests',
    'run_tests',
    'edit_environments',
    'edit_schedules',
    'manage_buckets',
    'manage_integrations',
  ],
}

function roleView(name: string): { uuid: string; name: string; permissions: readonly string[] } {
  return { uuid: name, name, permissions: ROLE_PERMISSIONS[name] ?? [] }
}

/** The team (workspace) of `:teamId`; 404 when the caller does not see it. */
export async function teamOf(ctx: MonitorContext): Promise<Workspace> {
  const id = ctx.params['teamId'] ?? ''
  const workspace = (await workspacesOf(ctx.deps.store, ctx.principal)).find(
    (w) => String(w.id) === id,
  )
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
          resources: [
            'tests',
            'steps',
            'environments',
            'schedules',
            'results',
            'account',
            'buckets',
            'integrations',
            'regions',
            'teams',
          ],
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
      const withEmail = ctx.principal.scopes.has('account:email')
      const teams = []
      for (const workspace of await workspacesOf(ctx.deps.store, ctx.principal)) {
        teams.push(
          accountTeamView(workspace, await ctx.deps.store.users.get(workspace.userId), withEmail),
        )
      }
      return {
        data: {
          id: String(user.id),
          uuid: String(user.id),
          name: `${user.firstName} ${user.lastName}`.trim(),
          // the monitoring specification: email addresses need the account:email scope.
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
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      const store = ctx.deps.store
      const [buckets, users, owner] = await Promise.all([
        store.monitoring.listBuckets([team.id]),
        // only the count: the store keeps it, no user is read
        store.users.listByAccount(team.accountId, { limit: 0, skip: 0 }),
        store.users.get(team.userId),
      ])
      return {
        data: teamDetailView(
          team,
          buckets,
          users.total,
          owner,
          ctx.principal.scopes.has('account:email'),
          ctx.deps.options.baseUrl,
        ),
      }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/people',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      const users = await ctx.deps.store.users.listByAccount(ctx.principal.account.id, {
        limit: -1,
        skip: 0,
      })
      const withEmail = ctx.principal.scopes.has('account:email')
      return {
        data: users.items.map((u) => ({
          id: String(u.id),
          ...personView(u, withEmail),
          permission_group: {
            name:
              u.accountRoles.includes('admin') || u.accountRoles.includes('owner')
                ? 'Admin'
                : 'Member',
          },
          created_at: Math.floor(u.created / 1000),
          last_login_at: u.lastAccess === null ? null : Math.floor(u.lastAccess / 1000),
        })),
      }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/roles',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      return { data: [...WORKSPACE_ROLES].reverse().map(roleView) }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/roles/:roleId',
    scope: 'team:read',
    handler: async (ctx) => {
      await teamOf(ctx)
      const id = ctx.params['roleId'] ?? ''
      if (!(WORKSPACE_ROLES as readonly string[]).includes(id)) {
        throw createError('ERR_API_NOT_FOUND', [`Role ${id}`])
      }
      return { data: roleView(id) }
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/agents',
    scope: 'team:read',
    // The agents that run this team's tests: ships of the private locations offered to it that
    // claimed runs (or heartbeated) with a region.
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      const agents = new Map<string, JsonObject & { regions: string[]; last_seen_at: number }>()
      for (const r of await ctx.deps.store.monitoring.listAgentRegions([team.id])) {
        const seen = Math.floor(r.seen / 1000)
        const agent = agents.get(r.shipId) ?? {
          agent_id: r.shipId,
          uuid: r.shipId,
          name: r.shipName,
          regions: [],
          last_seen_at: seen,
        }
        agent.regions.push(r.region)
        agent.last_seen_at = Math.max(agent.last_seen_at, seen)
        agents.set(r.shipId, agent)
      }
      return { data: [...agents.values()] }
    },
  },
  {
    method: 'GET',
    path: '/regions',
    scope: 'api:read',
    // This platform's own runner, then every region an agent of a private location offered to
    // the caller's teams serves (it claimed runs or heartbeated with it), with those agents.
    handler: async (ctx) => {
      const served = await ctx.deps.store.monitoring.listAgentRegions([
        ...ctx.principal.workspaceRoles.keys(),
      ])
      const agents = new Map<string, JsonObject[]>()
      for (const r of served) {
        const list = agents.get(r.region) ?? []
        if (!list.some((a) => a['uuid'] === r.shipId)) {
          list.push({ uuid: r.shipId, last_seen_at: Math.floor(r.seen / 1000) })
        }
        agents.set(r.region, list)
      }
      return {
        data: {
          regions: [
            {
              region_code: LOCAL_REGION,
              location: 'This platform',
              service_provider: 'understudy',
              hostname: 'localhost',
            },
            ...[...agents].map(([region, list]) => ({
              region_code: region,
              location: 'Private location',
              service_provider: 'understudy agent',
              hostname: region,
              agents: list,
            })),
          ],
        },
      }
    },
  },
]
