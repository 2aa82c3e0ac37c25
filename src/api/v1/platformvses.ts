import { createError } from '../../errors/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { isoDate } from '../format.js'
import { mockServiceView } from './service-mock-views.js'
import type { Harbor, Ship, Workspace } from '../../store/index.js'
import { offeredHarbors } from '../v4/offered-harbors.js'

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

/** What a ship's state shows as an environment's status. */
const statusOfShip: Record<Ship['state'], string> = {
  ready: 'RUNNING',
  lost: 'LOST',
  empty: 'NOT_CONNECTED',
}

/**
 * A ship of a private location as an environment: its agent's state and the figures of its last
 * heartbeat; `serviceMocks` are this workspace's mock services placed on it.
 */
async function shipEnvironmentOf(
  ctx: ApiContext,
  workspace: Workspace,
  harbor: Harbor,
  ship: Ship,
) {
  const store = ctx.deps.store
  const serviceMocks = []
  for (const placed of await store.placements.ofShip(ship.id)) {
    const mock = await store.mockServices.get(workspace.id, placed.mockServiceId)
    if (mock === undefined) continue
    serviceMocks.push(mockServiceView(mock, await store.services.get(workspace.id, mock.serviceId)))
  }
  const silent = ship.state === 'lost' && ship.lastHeartbeat !== null
  return {
    id: ship.environmentId,
    workspaceId: workspace.id,
    harborId: harbor.id,
    shipId: ship.id,
    locationName: `${harbor.name} / ${ship.name}`,
    type: 'FUNCTIONAL',
    status: statusOfShip[ship.state],
    statusMessages: silent
      ? [`no heartbeat from its agent since ${isoDate(ship.lastHeartbeat as number)}`]
      : ship.state === 'empty'
        ? ['no agent has connected as this ship yet']
        : [],
    lastHeartBeat: ship.lastHeartbeat === null ? null : isoDate(ship.lastHeartbeat),
    svProperties: '',
    memoryUsage: ship.memoryUsage ?? 0,
    msRunningCount: ship.msRunningCount ?? 0,
    totalTxnCount: ship.transactionsCount ?? 0,
    pendingUpdate: false,
    assets: [],
    serviceMocks,
  }
}

/** Every environment of the workspace: the local runtime host, then each ship offered to it. */
async function environmentsOf(ctx: ApiContext) {
  const workspace = await ctx.workspace()
  const out: object[] = [await environmentOf(ctx)]
  for (const { harbor, ships } of await offeredHarbors(ctx.deps.store, workspace)) {
    for (const ship of ships) out.push(await shipEnvironmentOf(ctx, workspace, harbor, ship))
  }
  return out
}

/**
 * Virtual service environments (`platformvses`, docs/api.md#environments): the local runtime
 * host (id 1), with live figures (memory, running mock services, transactions served), and one
 * per ship of the private locations offered to the workspace, with its agent's figures. A mock
 * service whose `platformVseId` names a ship's environment is deployed to that ship.
 */
export const platformVseRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/platformvses',
    family: 'v1',
    handler: async (ctx) => {
      const all = await environmentsOf(ctx)
      return { result: all, paging: { limit: all.length, skip: 0, total: all.length } }
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/platformvses/:platformVseId',
    family: 'v1',
    handler: async (ctx) => {
      const id = ctx.intParam('platformVseId')
      if (id === LOCAL_ENVIRONMENT_ID) return { result: await environmentOf(ctx) }
      const workspace = await ctx.workspace()
      for (const { harbor, ships } of await offeredHarbors(ctx.deps.store, workspace)) {
        const ship = ships.find((s) => s.environmentId === id)
        if (ship !== undefined) {
          return { result: await shipEnvironmentOf(ctx, workspace, harbor, ship) }
        }
      }
      throw createError('ERR_API_NOT_FOUND', [`Environment ${id}`])
    },
  },
]
