import { recordServedRegion } from './agent-runs.js'
import { ShipDeployer, type ShipReport } from '../../deploy/index.js'
import { createError } from '../../errors/index.js'
import type { Ship, ShipAssignment } from '../../store/index.js'
import { isoDate } from '../format.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { invalidField, validatorOf } from '../validation.js'
import { shipOfAgent } from './agent-auth.js'

/** Longest long poll of `.../work` in seconds: below the usual idle timeouts of proxies (60 s). */
const MAX_WAIT_S = 30
/** How often a long poll looks at the ship's work version. */
const POLL_MS = 200

const shipPath = '/api/v4/private-locations/:harborId/servers/:shipId'

interface Heartbeat {
  memoryUsage: number
  msRunningCount: number
  transactionsCount: number
  version: string
  advertiseHost: string | null
  regions?: string[]
  running: Array<{
    mockServiceId: number
    documentHash: string
    port: number | null
    status: string
  }>
}

const count = { type: 'integer', minimum: 0 } as const

const readHeartbeat = validatorOf<Heartbeat>({
  type: 'object',
  required: ['memoryUsage', 'msRunningCount', 'transactionsCount', 'version', 'running'],
  properties: {
    memoryUsage: count,
    msRunningCount: count,
    transactionsCount: count,
    version: { type: 'string', maxLength: 100 },
    advertiseHost: { type: ['string', 'null'], maxLength: 255 },
    regions: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 100 },
    },
    running: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['mockServiceId', 'status'],
        properties: {
          mockServiceId: { type: 'integer', minimum: 1 },
          documentHash: { type: ['string', 'null'], maxLength: 128 },
          port: { type: ['integer', 'null'], minimum: 0, maximum: 65535 },
          status: { type: 'string', maxLength: 20 },
        },
      },
    },
  },
})

const problem = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', maxLength: 100 },
    message: { type: 'string', maxLength: 10_000 },
  },
} as const

const readReport = validatorOf<ShipReport>({
  type: 'object',
  required: ['mockServiceId', 'status', 'endpoints'],
  properties: {
    mockServiceId: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['RUNNING', 'PENDING', 'STOPPED', 'FAILED'] },
    endpoints: {
      type: 'object',
      properties: {
        http: { type: ['string', 'null'], maxLength: 2000 },
        https: { type: ['string', 'null'], maxLength: 2000 },
      },
    },
    trackings: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['trackingId', 'status'],
        properties: {
          trackingId: { type: 'string', maxLength: 100 },
          status: { type: 'string', enum: ['FINISHED', 'FAILED'] },
          errors: { type: 'array', maxItems: 100, items: problem },
          warnings: { type: 'array', maxItems: 100, items: problem },
        },
      },
    },
    logs: { type: 'array', maxItems: 10_000, items: { type: 'string', maxLength: 65_536 } },
    error: { anyOf: [{ type: 'null' }, problem] },
  },
})

async function heartbeat(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const input = readHeartbeat(await ctx.json())
  const updated = await ctx.deps.store.locations.heartbeat(ship.harborId, ship.id, {
    memoryUsage: input.memoryUsage,
    msRunningCount: input.msRunningCount,
    transactionsCount: input.transactionsCount,
    agentVersion: input.version,
    advertiseHost: input.advertiseHost ?? null,
    regions: input.regions ?? null,
  })
  // Deleted between the token check and now: the same refusal as an unknown ship.
  if (updated === undefined) throw createError('ERR_API_UNAUTHORIZED')
  // An agent started with --monitor --region serves that region from its first heartbeat on.
  const now = Date.now()
  for (const region of input.regions ?? []) {
    await recordServedRegion(ctx.deps.store, ship.id, region, now)
  }
  return {
    result: {
      state: updated.state,
      lastHeartBeat: isoDate(updated.lastHeartbeat ?? Date.now()),
      desiredVersion: updated.workVersion,
    },
  }
}

function workItem(placed: ShipAssignment) {
  const document = placed.document
  return {
    mockServiceId: placed.mockServiceId,
    name: typeof document['name'] === 'string' ? document['name'] : `mock-${placed.mockServiceId}`,
    harborId: placed.harborId,
    shipId: placed.shipId,
    desired: placed.desired,
    documentHash: placed.documentHash,
    document,
    replicas: typeof document['replicas'] === 'number' ? document['replicas'] : 1,
    endpointPreference: document['endpointPreference'] === 'HTTPS' ? 'HTTPS' : 'HTTP',
    trackingId: placed.trackingId,
  }
}

function queryInt(ctx: ApiContext, name: string, max: number): number | undefined {
  const raw = ctx.query.get(name)
  if (raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max) {
    throw invalidField(`/${name}`, `must be an integer from 0 to ${max}`)
  }
  return Number(raw)
}

/**
 * The ship's desired state. With `version` (the one the agent has) and `wait`, it answers when
 * the version differs, else when it changes, else after `wait` seconds with the same version.
 */
async function work(ctx: ApiContext): Promise<HandlerResult> {
  let ship: Ship = await shipOfAgent(ctx)
  const known = queryInt(ctx, 'version', Number.MAX_SAFE_INTEGER)
  const wait = queryInt(ctx, 'wait', MAX_WAIT_S) ?? 0
  const deadline = Date.now() + wait * 1000
  // The agent may hang up (it stops, its network drops): the poll then ends.
  const request = { gone: false }
  ctx.req.once('close', () => {
    request.gone = true
  })
  while (known === ship.workVersion && Date.now() < deadline && !request.gone) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, deadline - Date.now())))
    const now = await ctx.deps.store.locations.ship(ship.harborId, ship.id)
    if (now === undefined) throw createError('ERR_API_UNAUTHORIZED')
    ship = now
  }
  const placed = await ctx.deps.store.placements.ofShip(ship.id)
  return { result: { version: ship.workVersion, mockServices: placed.map(workItem) } }
}

async function report(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const input = readReport(await ctx.json())
  const deployer = ctx.deps.deployer
  if (!(deployer instanceof ShipDeployer)) {
    throw createError('ERR_API_UNAVAILABLE', ['this platform places no mock services on agents'])
  }
  await deployer.applyReport(ship, input)
  return { result: { mockServiceId: input.mockServiceId, accepted: true } }
}

/**
 * What an agent (`understudy agent`) calls, as its ship: heartbeats with its figures, its desired
 * state (a long poll: the agent opens every connection, so it works behind NAT and firewalls),
 * and reports of what it runs. The user API keys do not open these (`auth: 'none'`): each handler
 * checks the ship's own token first (agent-auth.ts).
 */
export const agentWorkRoutes: Route[] = [
  { method: 'POST', path: `${shipPath}/heartbeat`, family: 'v4', auth: 'none', handler: heartbeat },
  { method: 'GET', path: `${shipPath}/work`, family: 'v4', auth: 'none', handler: work },
  { method: 'POST', path: `${shipPath}/reports`, family: 'v4', auth: 'none', handler: report },
]
