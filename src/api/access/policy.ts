import type { Route } from '../http/types.js'

/*
 * Who may call what. One rule per route, looked up by method and path; docs/roles.md
 * is this table in prose, and test/e2e/platform/roles.test.ts walks every row of it.
 *
 * - `workspace`: the route names a workspace (`:workspaceId`). The caller must see it (else 404,
 *   whatever the reason: another account, not a member) and hold at least `need` there; account
 *   owners and admins count as workspace managers everywhere in their account.
 * - `account`: the route names an account (`:accountId`). The caller must be an enabled member
 *   (else 404) holding one of `roles` (else 403).
 * - `member`: any authenticated caller; the handler narrows what it shows to what the caller sees.
 * - `catalog`: account-wide catalog writes (tags): an account owner or admin, or a tester or
 *   manager of at least one workspace of the caller's account.
 * - `public`: no API key (signed links, invitation answers).
 */
export type WorkspaceNeed = 'viewer' | 'tester' | 'manager'

export type AccessRule =
  | {
      scope: 'workspace'
      need: WorkspaceNeed
      /** Allowed on a disabled workspace (re-enabling it). */ whileDisabled?: boolean
    }
  | { scope: 'account'; roles: readonly string[] }
  | { scope: 'member' }
  | { scope: 'catalog' }
  | { scope: 'public' }

const ACCOUNT_ADMINS = ['owner', 'admin'] as const
const USER_MANAGERS = ['owner', 'admin', 'user_manager'] as const

/** Rules that differ from the default of `ruleOf` (GET reads as viewer, other methods test). */
const explicit: Record<string, AccessRule> = {
  // v1: GET endpoints that act, and POST endpoints that only read
  'GET /api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/deploy': {
    scope: 'workspace',
    need: 'tester',
  },
  'GET /api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/configure': {
    scope: 'workspace',
    need: 'tester',
  },
  'GET /api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/stop': {
    scope: 'workspace',
    need: 'tester',
  },
  'POST /api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/log/refresh': {
    scope: 'workspace',
    need: 'viewer',
  },
  'POST /api/v1/workspaces/:workspaceId/assets/validate-name': {
    scope: 'workspace',
    need: 'viewer',
  },
  'POST /api/v1/tags': { scope: 'catalog' },
  'PUT /api/v1/tags/:tagId': { scope: 'catalog' },
  'DELETE /api/v1/tags/:tagId': { scope: 'catalog' },
  'GET /api/v1/asset-files/:token': { scope: 'public' },
  // v4 workspaces: administration needs a manager (the administration specification, docs/roles.md)
  'PUT /api/v4/workspaces/:workspaceId': {
    scope: 'workspace',
    need: 'manager',
    whileDisabled: true,
  },
  'PATCH /api/v4/workspaces/:workspaceId': {
    scope: 'workspace',
    need: 'manager',
    whileDisabled: true,
  },
  'PUT /api/v4/workspaces/:workspaceId/users/:userId': { scope: 'workspace', need: 'manager' },
  'DELETE /api/v4/workspaces/:workspaceId/users/:userId': { scope: 'workspace', need: 'manager' },
  'POST /api/v4/workspaces/:workspaceId/users': { scope: 'workspace', need: 'manager' },
  // v4 accounts: account admin access (the administration specification); user managers handle
  // people
  'GET /api/v4/accounts/:accountId': {
    scope: 'account',
    roles: ['owner', 'admin', 'user_manager', 'standard'],
  },
  'PATCH /api/v4/accounts/:accountId': { scope: 'account', roles: ACCOUNT_ADMINS },
  'POST /api/v4/accounts/:accountId/invitations': { scope: 'account', roles: USER_MANAGERS },
  'GET /api/v4/accounts/:accountId/invitations': { scope: 'account', roles: USER_MANAGERS },
  'GET /api/v4/accounts/:accountId/users': { scope: 'account', roles: USER_MANAGERS },
  'PUT /api/v4/accounts/:accountId/users/:userId': { scope: 'account', roles: USER_MANAGERS },
  'GET /api/v4/accounts/:accountId/utilization-report': { scope: 'account', roles: ACCOUNT_ADMINS },
  'GET /api/v4/accounts/:accountId/functionalities': {
    scope: 'account',
    roles: ['owner', 'admin', 'user_manager', 'standard'],
  },
  'POST /api/v4/accounts/:accountId/terminate-masters': { scope: 'account', roles: ACCOUNT_ADMINS },
  'POST /api/v4/accounts/:accountId/users/:userId/api-keys': {
    scope: 'account',
    roles: ACCOUNT_ADMINS,
  },
  'GET /api/v4/invitations/:token/accept': { scope: 'public' },
  'POST /api/v4/invitations/:token/accept': { scope: 'public' },
  'GET /api/v4/invitations/:token/reject': { scope: 'public' },
  'POST /api/v4/invitations/:token/reject': { scope: 'public' },
  'GET /api/v4/web/version': { scope: 'public' },
}

/**
 * The rule of a route: its explicit entry, else by shape: a route with `:workspaceId` needs a
 * viewer to GET and a tester for anything else (catalog changes and deploys); a route with
 * `:accountId` needs an account admin; any other route is open to every authenticated member
 * (its handler shows only what the caller may see); `auth: 'none'` routes are public.
 *
 * @example
 * ruleOf({ method: 'DELETE', path: '/api/v1/workspaces/:workspaceId/services/:serviceId', ... }) // { scope: 'workspace', need: 'tester' }
 */
export function ruleOf(route: Pick<Route, 'method' | 'path' | 'auth'>): AccessRule {
  const given = explicit[`${route.method} ${route.path}`]
  if (given !== undefined) return given
  if (route.auth === 'none') return { scope: 'public' }
  if (route.path.includes(':workspaceId')) {
    return { scope: 'workspace', need: route.method === 'GET' ? 'viewer' : 'tester' }
  }
  if (route.path.includes(':accountId')) return { scope: 'account', roles: ACCOUNT_ADMINS }
  return { scope: 'member' }
}

/**
 * The monitoring API (the monitoring specification, served under `/`, `/v1` and `//`): who may call
 * what. Its tokens carry scopes (what the token may do), and on top of them the caller's workspace
 * role decides (what the person may do): a viewer's token with `test:write` still cannot change a
 * test. A route naming a bucket (`:bucketKey`) or a team (`:teamId`, a workspace) is checked
 * against that workspace: a viewer reads, a tester changes tests, steps, environments and schedules
 * (and runs them), a manager administers the workspace's buckets (creates and deletes them). Other
 * routes (the account, regions, the caller's own applications and tokens) are the caller's own.
 */
const explicitMonitoring: Record<string, AccessRule> = {
  // POST /buckets names its workspace by `team_uuid` (query or body): src/api/monitor/authorize.ts
  'POST /buckets': { scope: 'workspace', need: 'manager' },
  'DELETE /buckets/:bucketKey': { scope: 'workspace', need: 'manager' },
  // A team's notification channels are administered like its buckets.
  'POST /teams/:teamId/integrations': { scope: 'workspace', need: 'manager' },
  'DELETE /teams/:teamId/integrations/:integrationId': { scope: 'workspace', need: 'manager' },
}

/** A route of the monitoring API as the policy sees it (src/api/monitor/types.ts MonitorRoute). */
interface MonitoringRouteShape {
  method: string
  path: string
  auth?: 'bearer' | 'basic' | 'none'
  scope?: string | readonly string[]
}

/**
 * The rule of a monitoring route: its explicit entry, else by shape: `auth: 'none'` (trigger URLs
 * and the OAuth endpoints) is public; a route with `:bucketKey` or `:teamId` needs a viewer to
 * GET and a tester for anything else; any other route is the caller's own.
 *
 * @example
 * monitoringRuleOf({ method: 'PUT', path: '/buckets/:bucketKey/tests/:testId' }) // { scope: 'workspace', need: 'tester' }
 */
export function monitoringRuleOf(route: MonitoringRouteShape): AccessRule {
  const given = explicitMonitoring[`${route.method} ${route.path}`]
  if (given !== undefined) return given
  if (route.auth === 'none') return { scope: 'public' }
  if (route.path.includes(':bucketKey') || route.path.includes(':teamId')) {
    return { scope: 'workspace', need: route.method === 'GET' ? 'viewer' : 'tester' }
  }
  return { scope: 'member' }
}

/** How a monitoring route authenticates, in words (the table's last column). */
export function describeMonitoringAuth(route: MonitoringRouteShape): string {
  const scopes =
    route.scope === undefined ? [] : typeof route.scope === 'string' ? [route.scope] : route.scope
  switch (route.auth ?? 'bearer') {
    case 'none':
      return 'none'
    case 'basic':
      return 'API key (Basic)'
    case 'bearer':
      return scopes.length === 0
        ? 'token'
        : `token with ${scopes.map((s) => `\`${s}\``).join(' or ')}`
  }
}

/**
 * A rule in words, as docs/roles.md shows it.
 *
 * @example
 * describeRule({ scope: 'workspace', need: 'tester' }) // 'workspace tester, manager (account owner, admin)'
 */
export function describeRule(rule: AccessRule): string {
  switch (rule.scope) {
    case 'workspace': {
      const roles = {
        viewer: 'viewer, tester, manager',
        tester: 'tester, manager',
        manager: 'manager',
      }[rule.need]
      return `workspace ${roles} (account owner, admin)${rule.whileDisabled === true ? '; also when disabled' : ''}`
    }
    case 'account':
      return `account ${rule.roles.join(', ')}`
    case 'member':
      return 'any member (sees only its own)'
    case 'catalog':
      return 'account owner, admin; workspace tester, manager'
    case 'public':
      return 'no API key'
  }
}
