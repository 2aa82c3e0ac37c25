import { createError } from '../../errors/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { isoDate } from '../format.js'
import { mockServiceView } from './service-mock-views.js'

/** The one environment of a platform: the local runtime host (docs/decisions.md#one-location). */
const LOCAL_ENVIRONMENT_ID = 1

async function environmentOf(ctx: ApiContext) {
  const workspace = await ctx.workspace()
  const figures = await ctx.deps.deployer.environment()
  const store = ctx.deps.store
  const mocks = await store.mockServices.list(
    workspace.id,
    {},
    { limit: Number.MAX_SAFE_INTEGER, skip: 0 },
  )
  const running = mocks.items.filter((m) => figures.runningMockServiceIds.includes(m.id))
  const serviceMocks = []
  for (const mock of running) {
    serviceMocks.push(mockServiceView(mock, await store.services.get(workspace.id, mock.serviceId)))
  }
  const assets = (
    await store.assets.list(workspace.id, {}, { limit: Number.MAX_SAFE_INTEGER, skip: 0 })
  ).items
    .filter((a) => a.platformVseId === LOCAL_ENVIRONMENT_ID)
    .map((a) => ({
      id: a.id,
      name: a.name,
      type: a.type,
      serviceId: a.serviceId,
      fileId: a.fileId,
    }))
  return {
    id: LOCAL_ENVIRONMENT_ID,
    workspaceId: workspace.id,
    harborId: 'local',
    shipId: 'local',
    locationName: 'Local runtime host',
    type: 'FUNCTIONAL',
    status: figures.status,
    statusMessages: [],
    lastHeartBeat: isoDate(figures.lastHeartBeat),
    svProperties: '',
    memoryUsage: figures.memoryUsage,
    msRunningCount: running.length,
    // Only this workspace's runtimes: another account's traffic is none of the caller's business.
    totalTxnCount: running.reduce(
      (sum, m) => sum + (figures.txnCountByMockService?.[m.id] ?? 0),
      0,
    ),
    pendingUpdate: false,
    assets,
    serviceMocks,
  }
}

/**
 * Virtual service environments (`platformvses`, docs/api.md#environments): the platform has one,
 * the local runtime host, with live figures (memory, running mock services, transactions served).
 */
export const platformVseRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/platformvses',
    family: 'v1',
    handler: async (ctx) => ({
      result: [await environmentOf(ctx)],
      paging: { limit: 1, skip: 0, total: 1 },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/platformvses/:platformVseId',
    family: 'v1',
    handler: async (ctx) => {
      const id = ctx.intParam('platformVseId')
      if (id !== LOCAL_ENVIRONMENT_ID) {
        await ctx.workspace()
        throw createError('ERR_API_NOT_FOUND', [`Environment ${id}`])
      }
      return { result: await environmentOf(ctx) }
    },
  },
]
