import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type {
  JsonObject,
  MonitorBucket,
  MonitorEnvironment,
  MonitorTest,
} from '../../store/index.js'
import { mediaTypeOf } from '../../httpkit/index.js'
import { fieldCheckOf, invalidField } from '../validation.js'
import { placementView } from './run-targets.js'
import type { MonitorContext, MonitorRoute } from './types.js'

/*
 * Trigger URLs (GET or POST): `/radar/{trigger_id}/trigger` runs one test,
 * `/radar/bucket/{trigger_id}/trigger` every test of a bucket. As in the product, a trigger URL is
 * its own secret: it needs no token. Query parameters (and the fields of a JSON object body) become
 * initial variables, except `runscope_environment` / `environment` (the environments to run in,
 * repeatable; default the test's default environment). Each environment starts one run per region
 * it runs in (run-targets.ts), or per `runscope_region` given (repeatable) instead. Answers 201 with one entry per run started and `runs_id`, the batch
 * of them; a client polls each run's `url` until `result` is `pass` or `fail`,
 * or the batch (`GET /buckets/{key}/results/{runs_id}`) until its `status` is `completed`.
 */

const RESERVED = new Set([
  'runscope_environment',
  'environment',
  'runscope_region',
  'runscope_notification_url',
])
const MAX_VARIABLES = 200

/** A trigger's JSON body: variable names to scalar values. */
const checkTriggerBody = fieldCheckOf({
  type: 'object',
  failure: 'must be a JSON object of variable names to values',
  additionalProperties: {
    type: ['string', 'number', 'boolean'],
    failure: 'must be a string, number or boolean',
  },
})

async function variablesOf(
  ctx: MonitorContext,
): Promise<{ variables: Record<string, string>; environmentIds: string[]; regions: string[] }> {
  // No prototype: a trigger parameter named `__proto__` is a variable like any other.
  const variables: Record<string, string> = Object.create(null) as Record<string, string>
  const environmentIds: string[] = []
  const regions: string[] = []
  const take = (name: string, value: string): void => {
    if (name === 'runscope_environment' || name === 'environment') {
      if (!environmentIds.includes(value)) environmentIds.push(value)
    } else if (name === 'runscope_region') {
      if (!regions.includes(value)) regions.push(value)
    } else if (!RESERVED.has(name)) variables[name] = value
  }
  for (const [name, value] of ctx.query) take(name, value)
  if (ctx.req.method === 'POST' && mediaTypeOf(ctx.req) === 'application/json') {
    const body = await ctx.json()
    checkTriggerBody(body)
    for (const [name, value] of Object.entries(body as Record<string, string | number | boolean>)) {
      take(name, String(value))
    }
  }
  if (Object.keys(variables).length > MAX_VARIABLES) {
    throw invalidField('/', `carries more than ${MAX_VARIABLES} variables`)
  }
  if (environmentIds.length > 20) {
    throw invalidField('/runscope_environment', 'names more than 20 environments')
  }
  if (regions.length > 20) throw invalidField('/runscope_region', 'names more than 20 regions')
  return { variables, environmentIds, regions }
}

async function environmentFor(
  ctx: MonitorContext,
  test: MonitorTest,
  wanted: string | null,
): Promise<MonitorEnvironment> {
  const id = wanted ?? test.defaultEnvironmentId
  const env =
    id === null ? undefined : await ctx.deps.store.monitoring.getEnvironment(test.bucketKey, id)
  if (env === undefined || (env.testId !== null && env.testId !== test.id)) {
    throw invalidField(
      '/runscope_environment',
      `names no environment of test ${test.id}: ${id ?? '(none)'}`,
    )
  }
  return env
}

async function start(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  tests: MonitorTest[],
): Promise<{ status: number; data: JsonObject }> {
  const { variables, environmentIds, regions } = await variablesOf(ctx)
  const base = ctx.deps.options.baseUrl
  const runs: JsonObject[] = []
  let failed = 0
  const wanted = environmentIds.length === 0 ? [null] : environmentIds
  const targets: Array<{ test: MonitorTest; env: MonitorEnvironment }> = []
  for (const test of tests) {
    for (const environmentId of wanted) {
      try {
        targets.push({ test, env: await environmentFor(ctx, test, environmentId) })
      } catch (err) {
        if (tests.length === 1) throw err
        failed++
      }
    }
  }
  for (const { test, env } of targets) {
    const started = await ctx.deps.runs.startAll(
      { test, bucket, environment: env, variables, source: 'trigger' },
      { ...(regions.length === 0 ? {} : { regions }) },
    )
    for (const run of started) {
      runs.push({
        test_id: test.id,
        test_name: test.name,
        test_run_id: run.id,
        bucket_key: bucket.key,
        environment_id: env.id,
        environment_name: env.doc['name'] ?? null,
        ...placementView(run),
        status: 'init',
        variables,
        url: `${base}/buckets/${bucket.key}/radar/${test.id}/results/${run.id}`,
        test_run_url: `${base}/buckets/${bucket.key}/tests/${test.id}/results/${run.id}`,
        test_url: `${base}/buckets/${bucket.key}/tests/${test.id}`,
      })
    }
  }
  // One id for the runs of this call: GET /buckets/{key}/results/{runs_id} answers them together.
  const batch = await ctx.deps.store.monitoring.createBatch({
    id: randomUUID(),
    bucketKey: bucket.key,
    runIds: runs.map((r) => r['test_run_id'] as string),
    runsFailed: failed,
  })
  return {
    status: 201,
    data: {
      runs,
      runs_id: batch.id,
      runs_url: `${base}/buckets/${bucket.key}/results/${batch.id}`,
      runs_started: runs.length,
      runs_failed: failed,
      runs_total: runs.length + failed,
    },
  }
}

const testTrigger = async (ctx: MonitorContext): Promise<{ status: number; data: JsonObject }> => {
  const id = ctx.params['triggerId'] ?? ''
  const test = await ctx.deps.store.monitoring.getTestByTrigger(id)
  const bucket =
    test === undefined ? undefined : await ctx.deps.store.monitoring.getBucket(test.bucketKey)
  if (test === undefined || bucket === undefined) {
    throw createError('ERR_API_NOT_FOUND', [`Trigger ${id}`])
  }
  return await start(ctx, bucket, [test])
}

const bucketTrigger = async (
  ctx: MonitorContext,
): Promise<{ status: number; data: JsonObject }> => {
  const id = ctx.params['triggerId'] ?? ''
  const bucket = await ctx.deps.store.monitoring.getBucketByTrigger(id)
  if (bucket === undefined) throw createError('ERR_API_NOT_FOUND', [`Trigger ${id}`])
  const tests = await ctx.deps.store.monitoring.listTests(bucket.key, -1, 0, 'oldest')
  return await start(ctx, bucket, tests)
}

export const triggerRoutes: MonitorRoute[] = [
  { method: 'GET', path: '/radar/:triggerId/trigger', auth: 'none', handler: testTrigger },
  { method: 'POST', path: '/radar/:triggerId/trigger', auth: 'none', handler: testTrigger },
  { method: 'GET', path: '/radar/bucket/:triggerId/trigger', auth: 'none', handler: bucketTrigger },
  {
    method: 'POST',
    path: '/radar/bucket/:triggerId/trigger',
    auth: 'none',
    handler: bucketTrigger,
  },
]
