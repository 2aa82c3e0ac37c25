import { RELAY_ANSWER_LIMIT, ShipDeployer, type AdminRelay } from '../../deploy/index.js'
import { createError } from '../../errors/index.js'
import { readJson } from '../../httpkit/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { invalidField, validatorOf } from '../validation.js'
import { shipOfAgent } from './agent-auth.js'

/** Longest long poll of `.../admin-calls` in seconds: below the usual idle timeouts of proxies (60 s). */
const MAX_WAIT_S = 30
/** Most calls one poll takes. */
const MAX_CALLS = 32
/** Room for the answer's own members around the runtime's body. */
const ENVELOPE_ROOM = 64 * 1024

const shipPath = '/api/v4/private-locations/:harborId/servers/:shipId/admin-calls'

const readAnswer = validatorOf<{ status: number; body: Record<string, unknown> }>({
  type: 'object',
  required: ['status', 'body'],
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599 },
    body: { type: 'object' },
  },
})

function relayOf(ctx: ApiContext): AdminRelay {
  const deployer = ctx.deps.deployer
  if (!(deployer instanceof ShipDeployer)) {
    throw createError('ERR_API_UNAVAILABLE', ['this platform places no mock services on agents'])
  }
  return deployer.relay
}

function queryInt(ctx: ApiContext, name: string, min: number, max: number): number | undefined {
  const raw = ctx.query.get(name)
  if (raw === null || raw === '') return undefined
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw invalidField(`/${name}`, `must be an integer from ${min} to ${max}`)
  }
  return Number(raw)
}

/**
 * The admin calls queued for the ship (`[{callId, mockServiceId, method, path, json?,
 * timeoutMs}]`), at most `max`; with `wait`, a long poll that answers as soon as there is one,
 * else after `wait` seconds with none.
 */
async function take(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const relay = relayOf(ctx)
  const wait = queryInt(ctx, 'wait', 0, MAX_WAIT_S) ?? 0
  const max = queryInt(ctx, 'max', 1, MAX_CALLS) ?? MAX_CALLS
  // An agent that hangs up (it stops, its network drops) takes nothing: the calls wait for its next poll.
  const gone = new AbortController()
  ctx.req.once('close', () => gone.abort())
  ctx.res.once('close', () => gone.abort())
  return { result: await relay.take(ship.id, max, wait * 1000, gone.signal) }
}

/**
 * The agent's answer to a call it took: the runtime's status and JSON body, at most 16 MiB. A
 * call this ship did not take (another ship's, an unknown or expired one) is 404.
 */
async function answer(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const relay = relayOf(ctx)
  const callId = ctx.params['callId'] ?? ''
  const input = readAnswer(await readJson(ctx.req, RELAY_ANSWER_LIMIT + ENVELOPE_ROOM))
  if (!(await relay.answer(ship.id, callId, input))) {
    throw createError('ERR_API_NOT_FOUND', [`Admin call ${callId} of agent ${ship.id}`])
  }
  return { result: { callId, accepted: true } }
}

/**
 * The relay of admin calls to agents (deploy/admin-relay.ts): the agent of a ship takes the calls
 * for the mock services it runs and posts each answer back. Like the other agent routes, the user
 * API keys do not open these (`auth: 'none'`): each handler checks the ship's own token first.
 */
export const agentAdminCallRoutes: Route[] = [
  { method: 'GET', path: shipPath, family: 'v4', auth: 'none', handler: take },
  { method: 'POST', path: `${shipPath}/:callId`, family: 'v4', auth: 'none', handler: answer },
]
