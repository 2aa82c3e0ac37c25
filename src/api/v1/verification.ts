import type { RuntimeAdmin } from '../../deploy/index.js'
import { filterFromQuery, readVerification, verify } from '../../inspect/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { requestIdOf } from './inspection.js'
import { mockServiceOf } from './mock-lookup.js'
import { adminCall } from './runtime-admin.js'

const base = '/api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/inspection'

/**
 * The verification API of a deployed mock service (docs/api.md, "Verification"), passed to its
 * runtime's admin API: filtered list, reset, count, unmatched requests with their diagnosis, and
 * verify. Filters and bodies are validated here first, so a bad one is a 400 even when the mock
 * service is not running; a mock service that is not running has recorded nothing.
 */
export const verificationRoutes: Route[] = [
  { method: 'GET', path: base, family: 'v1', handler: async (ctx) => list(ctx, '') },
  {
    method: 'GET',
    path: `${base}/unmatched`,
    family: 'v1',
    handler: async (ctx) => list(ctx, '/unmatched'),
  },
  {
    method: 'DELETE',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const adminUrl = await runningAdmin(ctx)
      if (adminUrl === null) return { result: { deleted: 0 } }
      return { result: (await adminCall(adminUrl, 'DELETE', '/inspection')).result }
    },
  },
  {
    method: 'GET',
    path: `${base}/count`,
    family: 'v1',
    handler: async (ctx) => {
      filterFromQuery(ctx.query)
      const adminUrl = await runningAdmin(ctx)
      if (adminUrl === null) return { result: { count: 0 } }
      return {
        result: (await adminCall(adminUrl, 'GET', `/inspection/count?${ctx.query.toString()}`))
          .result,
      }
    },
  },
  {
    method: 'POST',
    path: `${base}/verify`,
    family: 'v1',
    handler: async (ctx) => {
      const verification = readVerification(await ctx.json())
      const { mock } = await mockServiceOf(ctx)
      const adminUrl = await ctx.deps.deployer.admin(mock.id)
      if (adminUrl === null) return { result: verify([], verification, mock.id) }
      const { result } = await adminCall(adminUrl, 'POST', '/inspection/verify', verification)
      const answer = result as { matching?: Array<Record<string, unknown>> }
      const base = await idBaseOf(ctx, mock.id)
      return {
        result: {
          ...answer,
          matching: (answer.matching ?? []).map((e) => platformEntry(mock.id, e, base)),
        },
      }
    },
  },
]

async function runningAdmin(ctx: ApiContext): Promise<RuntimeAdmin | null> {
  const { mock } = await mockServiceOf(ctx)
  return await ctx.deps.deployer.admin(mock.id)
}

async function list(ctx: ApiContext, suffix: string): Promise<HandlerResult> {
  filterFromQuery(ctx.query)
  const { mock } = await mockServiceOf(ctx)
  const skip = Number(ctx.query.get('skip') ?? 0) || 0
  const limit = Math.min(Number(ctx.query.get('limit') ?? 50) || 50, 1000)
  const adminUrl = await ctx.deps.deployer.admin(mock.id)
  if (adminUrl === null) return { result: [], paging: { limit, skip, total: 0 } }
  const query = new URLSearchParams(ctx.query)
  // a filtered list even without filters: `GET /inspection` with one is the same page
  if (suffix === '') query.set('skip', String(skip))
  query.set('limit', String(limit))
  const { result, body } = await adminCall(
    adminUrl,
    'GET',
    `/inspection${suffix}?${query.toString()}`,
  )
  const base = await idBaseOf(ctx, mock.id)
  const entries = (result as Array<Record<string, unknown>>).map((e) =>
    platformEntry(mock.id, e, base),
  )
  return {
    result: entries,
    paging: {
      limit,
      skip,
      total: typeof body['total'] === 'number' ? body['total'] : entries.length,
    },
  }
}

/** Ids as the analytics API names requests (unique across mock services and their runs). */
function platformEntry(
  mockId: number,
  entry: Record<string, unknown>,
  base: number,
): Record<string, unknown> {
  return { ...entry, id: requestIdOf(mockId, base + Number(entry['id'])), serviceMockId: mockId }
}

/** What the running process's ids are offset by: past the ids of the runs kept before it. */
async function idBaseOf(ctx: ApiContext, mockId: number): Promise<number> {
  return (await ctx.deps.deployer.history?.of(mockId))?.base ?? 0
}
