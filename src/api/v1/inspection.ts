import { createError } from '../../errors/index.js'
import type { Route } from '../http/types.js'
import { invalidField } from '../validation.js'
import { mockServiceOf } from './mock-lookup.js'
import { adminCall } from './runtime-admin.js'

/**
 * Inspection ids are per runtime; the analytics API names a request by one integer (the mock
 * services specification: "Request ID ... read from result[].id of the inspection list"). The
 * platform's request id is `mockServiceId * 1e10 + inspection id`: unique across mock services, an
 * integer, and decodable without a lookup (10^10 ids is five days at 20,000 requests a second).
 */
const ID_SPACE = 10_000_000_000

export function requestIdOf(mockServiceId: number, inspectionId: number): number {
  return mockServiceId * ID_SPACE + inspectionId
}

function decodeRequestId(requestId: number): { mockServiceId: number; inspectionId: number } {
  return { mockServiceId: Math.floor(requestId / ID_SPACE), inspectionId: requestId % ID_SPACE }
}

const DEFAULT_PAGE = 50
const MAX_PAGE = 1000

/**
 * The analytics API (`/reports/api/v1`, the mock services specification, docs/api.md#analytics):
 * the inspection list of a mock service, newest first, merged across its replicas by the runtime,
 * and the detail of one request. After the running process's records come those the platform kept
 * of earlier runs (deploy/inspection-history.ts, marked `previousRun: true`): a mock service that
 * is not running lists only those.
 */
export const inspectionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/reports/api/v1/workspaces/:workspaceId/inspection-data/service-mock/:serviceMockId',
    family: 'reports',
    handler: async (ctx) => {
      const { mock } = await mockServiceOf(ctx)
      const skip = intOf(ctx.query, 'skip', 0)
      const limit = Math.min(intOf(ctx.query, 'limit', DEFAULT_PAGE) || DEFAULT_PAGE, MAX_PAGE)
      const kept = (await ctx.deps.deployer.history?.of(mock.id)) ?? { base: 0, entries: [] }
      const adminUrl = await ctx.deps.deployer.admin(mock.id)
      let entries: Array<Record<string, unknown>> = []
      let running = 0
      if (adminUrl !== null) {
        const { result, body } = await adminCall<Array<Record<string, unknown>>>(
          adminUrl,
          'GET',
          `/inspection?skip=${skip}&limit=${limit}`,
        )
        entries = result.map((entry) => ({
          ...entry,
          id: requestIdOf(mock.id, kept.base + Number(entry['id'])),
          serviceMockId: mock.id,
        }))
        running = typeof body['total'] === 'number' ? body['total'] : entries.length
      }
      // The kept records are older than every record of the running process: they follow them.
      const from = Math.max(0, skip - running)
      for (const entry of kept.entries.slice(from, from + limit - entries.length)) {
        entries.push({ ...entry, id: requestIdOf(mock.id, entry.id), serviceMockId: mock.id })
      }
      return { result: entries, paging: { limit, skip, total: running + kept.entries.length } }
    },
  },
  {
    method: 'GET',
    path: '/reports/api/v1/workspaces/:workspaceId/inspection-data/requests/:requestId',
    family: 'reports',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const requestId = ctx.intParam('requestId')
      const { mockServiceId, inspectionId } = decodeRequestId(requestId)
      const mock = await ctx.deps.store.mockServices.get(workspace.id, mockServiceId)
      const notFound = createError('ERR_API_NOT_FOUND', [`Request ${requestId}`])
      if (mock === undefined || inspectionId === 0) throw notFound
      const history = ctx.deps.deployer.history
      const base = (await history?.of(mock.id))?.base ?? 0
      const adminUrl = await ctx.deps.deployer.admin(mockServiceId)
      if (inspectionId <= base) {
        const kept = await history?.detail(mock.id, inspectionId)
        if (kept === undefined) throw notFound
        return { result: { ...kept, id: requestId, serviceMockId: mock.id } }
      }
      if (adminUrl === null) throw notFound
      const { result } = await adminCall<Record<string, unknown>>(
        adminUrl,
        'GET',
        `/inspection/${inspectionId - base}`,
      )
      return { result: { ...result, id: requestId, serviceMockId: mock.id } }
    },
  },
]

function intOf(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw invalidField(`/${name}`, 'must be an integer >= 0')
  return Number(raw)
}
