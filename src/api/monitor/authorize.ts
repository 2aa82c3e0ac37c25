import { createError } from '../../errors/index.js'
import { monitoringRuleOf } from '../access/policy.js'
import { satisfies } from '../access/roles.js'
import { bucketInput } from './buckets.js'
import type { MonitorContext, MonitorRoute } from './types.js'

/**
 * The workspace a monitoring request acts on: the bucket's (`:bucketKey`), the team's (`:teamId`),
 * or the `team_uuid` a new bucket names; null when the request names none (the handler answers
 * 400), undefined when it names one the caller cannot see.
 */
async function workspaceOfRequest(
  ctx: MonitorContext,
  route: MonitorRoute,
): Promise<{ id: number | null | undefined; what: string }> {
  const key = ctx.params['bucketKey']
  if (key !== undefined) {
    const bucket = await ctx.deps.store.monitoring.getBucket(key)
    return { id: bucket?.workspaceId, what: `Bucket ${key}` }
  }
  const team =
    ctx.params['teamId'] ??
    (route.method === 'POST' && route.path === '/buckets' ? (await bucketInput(ctx)).team : null)
  if (team === null || team === '') return { id: null, what: '' }
  return { id: /^\d{1,15}$/.test(team) ? Number(team) : undefined, what: `Team ${team}` }
}

/**
 * The access check of a monitoring request, after its token's scopes were checked
 * (src/api/access/policy.ts `monitoringRuleOf` decides the rule): a bucket or team of a workspace
 * the caller cannot see answers 404 (as another account's), a role below the rule's 403, and so
 * does a change to a disabled workspace.
 */
export async function authorizeMonitoring(ctx: MonitorContext, route: MonitorRoute): Promise<void> {
  const rule = monitoringRuleOf(route)
  if (rule.scope !== 'workspace') return
  const { id, what } = await workspaceOfRequest(ctx, route)
  if (id === null) return
  const role = id === undefined ? undefined : ctx.principal.workspaceRoles.get(id)
  if (id === undefined || role === undefined) throw createError('ERR_API_NOT_FOUND', [what])
  if (!satisfies(role, rule.need)) {
    throw createError('ERR_API_FORBIDDEN', [
      `${route.method} ${route.path} needs the workspace role ${rule.need} or stronger (yours: ${role})`,
    ])
  }
  if (rule.need !== 'viewer' && (await ctx.deps.store.workspaces.get(id))?.enabled === false) {
    throw createError('ERR_API_FORBIDDEN', [
      `workspace ${id} is disabled: it accepts no changes until a manager enables it`,
    ])
  }
}
