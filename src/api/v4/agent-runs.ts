import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { JsonObject } from '../../store/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { claimPayload, completedDoc, LOCAL_REGION, runTermsOf } from '../monitor/index.js'
import { invalidField, validatorOf } from '../validation.js'
import { shipOfAgent } from './agent-auth.js'

/*
 * Monitoring runs for agents (`understudy agent --monitor --region R`): a ship claims the next
 * queued run of its region under a lease, renews the lease while it runs, and posts the result.
 * A lease not renewed in time makes the run claimable again; only the run's current, live lease
 * may complete it, so a run reclaimed from a stopped agent is stored once. docs/monitor-api.md#regions-and-leases
 */

/** A region code: what environments' `regions` name (`local` is this platform's own runner). */
const REGION = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' }

const readClaim = validatorOf<{ region: string }>({
  type: 'object',
  required: ['region'],
  additionalProperties: false,
  properties: { region: REGION },
})

const readRenewal = validatorOf<{ leaseId: string }>({
  type: 'object',
  required: ['leaseId'],
  additionalProperties: false,
  properties: { leaseId: { type: 'string', minLength: 1, maxLength: 100 } },
})

const readResult = validatorOf<{
  leaseId: string
  result: JsonObject & { result: 'pass' | 'fail' }
}>({
  type: 'object',
  required: ['leaseId', 'result'],
  additionalProperties: false,
  properties: {
    leaseId: { type: 'string', minLength: 1, maxLength: 100 },
    result: {
      type: 'object',
      required: ['result'],
      // The runner's result; the parts the results views walk must have the runner's shape.
      properties: {
        result: { enum: ['pass', 'fail'] },
        requests: { type: 'array', maxItems: 10_000, items: { type: 'object' } },
        scripts: { type: 'array', items: { type: 'object' } },
        variables: { type: 'object', additionalProperties: { type: 'string' } },
        error: { type: ['string', 'null'] },
      },
    },
  },
})

/**
 * An idle agent asks about once a second: its region's `seen` is written at most once a minute
 * (or a third of the run wait, when shorter), not on every claim. Forgotten wholesale past a bound (a write more, nothing lost).
 */
const RECORD_EVERY_MS = 60_000
const recorded = new Map<string, number>()

function shouldRecord(shipId: string, region: string, now: number, everyMs: number): boolean {
  const key = `${shipId}\n${region}`
  if (now - (recorded.get(key) ?? -Infinity) < everyMs) return false
  if (recorded.size >= 10_000) recorded.clear()
  recorded.set(key, now)
  return true
}

/** Records that a ship serves `region` (from its claims and its heartbeats), at most once a minute. */
export async function recordServedRegion(
  store: ApiContext['deps']['store'],
  shipId: string,
  region: string,
  now: number,
): Promise<void> {
  // Often enough that an agent claiming runs is never taken for gone (see the run wait).
  const everyMs = Math.min(RECORD_EVERY_MS, runTermsOf(store).runWaitMs / 3)
  if (region === LOCAL_REGION || !shouldRecord(shipId, region, now, everyMs)) return
  await store.monitoring.recordAgentRegion(shipId, region, now)
}

function leaseLost(runId: string): Error {
  return createError('ERR_API_CONFLICT', [
    `this agent holds no live lease on run ${runId}: it ended or another agent took the run`,
  ])
}

async function claim(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const { region } = readClaim(await ctx.json())
  if (region === LOCAL_REGION) {
    throw invalidField('/region', `names ${LOCAL_REGION}, this platform's own runner`)
  }
  const store = ctx.deps.store
  const { leaseMs } = runTermsOf(store)
  const now = Date.now()
  // A ship that claims with a region serves it: triggers send that region's runs to the agents.
  await recordServedRegion(store, ship.id, region, now)
  const lease = { id: randomUUID(), expiresAt: now + leaseMs, durationMs: leaseMs }
  const run = await store.monitoring.claimRun({
    shipId: ship.id,
    harborId: ship.harborId,
    region,
    leaseId: lease.id,
    now,
    expires: lease.expiresAt,
  })
  const payload = run === undefined ? undefined : await claimPayload(store, run, lease)
  if (payload === undefined) return { status: 204, raw: null }
  return { result: payload }
}

async function renew(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const runId = ctx.params['runId'] ?? ''
  const { leaseId } = readRenewal(await ctx.json())
  const { leaseMs } = runTermsOf(ctx.deps.store)
  const now = Date.now()
  const expiresAt = now + leaseMs
  const renewed = await ctx.deps.store.monitoring.renewRunLease(
    { runId, shipId: ship.id, leaseId, now },
    expiresAt,
  )
  if (!renewed) throw leaseLost(runId)
  // An agent busy with a long run claims nothing meanwhile: its renewals show that it serves the
  // region, so that the runs queued behind are not judged stranded.
  const region = (await ctx.deps.store.monitoring.getRunsByIds([runId]))[0]?.region ?? null
  if (region !== null) await recordServedRegion(ctx.deps.store, ship.id, region, now)
  return { result: { id: runId, lease: { id: leaseId, expiresAt, durationMs: leaseMs } } }
}

async function complete(ctx: ApiContext): Promise<HandlerResult> {
  const ship = await shipOfAgent(ctx)
  const runId = ctx.params['runId'] ?? ''
  const input = readResult(await ctx.json())
  const store = ctx.deps.store
  const now = Date.now()
  const lease = { runId, shipId: ship.id, leaseId: input.leaseId, now }
  const stored = await store.write(async (tx) => {
    const run = (await tx.monitoring.getRunsByIds([runId]))[0]
    if (run === undefined) return undefined
    return await tx.monitoring.completeLeasedRun(lease, {
      result: input.result.result,
      finished: now,
      doc: completedDoc(run, ship.id, input.result, now),
    })
  })
  if (stored === undefined) throw leaseLost(runId)
  const terms = runTermsOf(store)
  await store.monitoring.pruneRuns(stored.testId, terms.retention)
  terms.completed?.(stored)
  return { result: { id: stored.id, result: stored.result, agent: stored.agent } }
}

const base = '/api/v4/private-locations/:harborId/servers/:shipId/runs'

/** The agents' run routes: `auth: 'none'` for API keys, each checks the ship's own token. */
export const agentRunRoutes: Route[] = [
  { method: 'POST', path: `${base}/claim`, family: 'v4', auth: 'none', handler: claim },
  { method: 'POST', path: `${base}/:runId/lease`, family: 'v4', auth: 'none', handler: renew },
  { method: 'POST', path: `${base}/:runId/result`, family: 'v4', auth: 'none', handler: complete },
]
