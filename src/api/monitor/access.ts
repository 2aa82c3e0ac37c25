import { createError } from '../../errors/index.js'
import type { MonitorBucket, MonitorTest, Workspace } from '../../store/index.js'
import type { MonitorContext, MonitorPrincipal } from './types.js'
import type { Store } from '../../store/index.js'

/* Lookups scoped to the caller: another account's bucket or test answers 404, never 403. */

/** The workspaces a principal sees: those it holds a role in (src/api/monitor/authorize.ts). */
export async function workspacesOf(
  store: Store,
  principal: MonitorPrincipal,
): Promise<Workspace[]> {
  const out: Workspace[] = []
  for (const id of principal.workspaceRoles.keys()) {
    const workspace = await store.workspaces.get(id)
    if (workspace !== undefined) out.push(workspace)
  }
  return out
}

/** The bucket of `:bucketKey` and its workspace; 404 when unknown or another account's. */
export async function bucketOf(
  ctx: MonitorContext,
): Promise<{ bucket: MonitorBucket; workspace: Workspace }> {
  const key = ctx.params['bucketKey'] ?? ''
  const bucket = await ctx.deps.store.monitoring.getBucket(key)
  const workspace =
    bucket === undefined ? undefined : await ctx.deps.store.workspaces.get(bucket.workspaceId)
  if (
    bucket === undefined ||
    workspace === undefined ||
    !ctx.principal.workspaceRoles.has(workspace.id)
  ) {
    throw createError('ERR_API_NOT_FOUND', [`Bucket ${key}`])
  }
  return { bucket, workspace }
}

/** The test of `:testId` in the bucket of `:bucketKey`; 404 otherwise. */
export async function testOf(
  ctx: MonitorContext,
): Promise<{ bucket: MonitorBucket; workspace: Workspace; test: MonitorTest }> {
  const { bucket, workspace } = await bucketOf(ctx)
  const id = ctx.params['testId'] ?? ''
  const test = await ctx.deps.store.monitoring.getTest(bucket.key, id)
  if (test === undefined) throw createError('ERR_API_NOT_FOUND', [`Test ${id}`])
  return { bucket, workspace, test }
}

/** `count` / `offset` of a list: non-negative integers, `count` default 10, at most `max`. */
export function pageOf(
  query: URLSearchParams,
  defaultCount: number,
  max: number,
): { count: number; offset: number } {
  const read = (name: string, fallback: number): number => {
    const raw = query.get(name)
    if (raw === null || raw === '') return fallback
    if (!/^\d{1,9}$/.test(raw)) {
      throw createError('ERR_API_VALIDATION', [`${name} must be a non-negative integer`], {
        details: [{ path: `/${name}`, message: 'must be a non-negative integer' }],
      })
    }
    return Number(raw)
  }
  return { count: Math.min(read('count', defaultCount), max), offset: read('offset', 0) }
}
