import { createError } from '../../errors/index.js'
import type { JsonObject, MonitorRun } from '../../store/index.js'
import { bucketOf, pageOf, testOf } from './access.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { runSummaryView, runView } from './views.js'

/*
 * Results of a test's runs: the list (newest first, `count` default 10, at most 50), `latest`, one
 * run with its per-request detail, and one step of a run. The platform keeps the newest runs of each
 * test only (MonitorOptions.resultRetention, 100 by default; docs/monitor-api.md).
 */

async function runOf(ctx: MonitorContext): Promise<MonitorRun> {
  const { test } = await testOf(ctx)
  const id = ctx.params['runId'] ?? ''
  const run =
    id === 'latest'
      ? (await ctx.deps.store.monitoring.listRuns(test.id, 1))[0]
      : await ctx.deps.store.monitoring.getRun(test.id, id)
  if (run === undefined) {
    throw createError('ERR_API_NOT_FOUND', [
      id === 'latest' ? `Results of test ${test.id}` : `Test run ${id}`,
    ])
  }
  return run
}

const runRoute = async (ctx: MonitorContext): Promise<{ data: JsonObject }> => ({
  data: runView(await runOf(ctx), ctx.deps.options.baseUrl),
})

/** A trigger call's runs together: `working` until each has passed or failed, then `completed`. */
async function batchRoute(ctx: MonitorContext): Promise<{ data: JsonObject }> {
  const { bucket } = await bucketOf(ctx)
  const id = ctx.params['runsId'] ?? ''
  const batch = await ctx.deps.store.monitoring.getBatch(bucket.key, id)
  if (batch === undefined) throw createError('ERR_API_NOT_FOUND', [`Test runs ${id}`])
  const runs = await ctx.deps.store.monitoring.getRunsByIds(batch.runIds)
  const done = runs.filter((r) => r.result === 'pass' || r.result === 'fail')
  const passed = done.filter((r) => r.result === 'pass').length
  const finished = done.reduce<number | null>(
    (last, r) => (r.finished === null ? last : Math.max(last ?? 0, r.finished)),
    null,
  )
  const completed = done.length === runs.length
  return {
    data: {
      uuid: batch.id,
      runs_id: batch.id,
      bucket_key: bucket.key,
      status: completed
        ? 'completed'
        : runs.some((r) => r.result === 'working')
          ? 'working'
          : 'queued',
      result: completed
        ? passed === runs.length && batch.runsFailed === 0
          ? 'pass'
          : 'fail'
        : null,
      started_at: batch.created / 1000,
      finished_at: completed && finished !== null ? finished / 1000 : null,
      total_test_runs: batch.runIds.length,
      test_runs_passed: passed,
      test_runs_failed: done.length - passed,
      test_runs_not_started: batch.runsFailed,
      runs: runs.map((r) => runSummaryView(r, ctx.deps.options.baseUrl)),
    },
  }
}

export const resultRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/buckets/:bucketKey/results/:runsId',
    scope: 'test:read',
    handler: batchRoute,
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/results',
    scope: 'test:read',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const { count } = pageOf(ctx.query, 10, 50)
      const runs = await ctx.deps.store.monitoring.listRuns(test.id, count)
      return { data: runs.map((r) => runSummaryView(r, ctx.deps.options.baseUrl)) }
    },
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/results/:runId',
    scope: 'test:read',
    handler: runRoute,
  },
  // The result address the CI plugins poll (`runs[].url` of a trigger answer).
  {
    method: 'GET',
    path: '/buckets/:bucketKey/radar/:testId/results/:runId',
    scope: 'test:read',
    handler: runRoute,
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/results/:runId/steps/:stepId',
    scope: 'test:read',
    handler: async (ctx) => {
      const run = await runOf(ctx)
      const stepId = ctx.params['stepId'] ?? ''
      const requests = Array.isArray(run.doc['requests'])
        ? (run.doc['requests'] as JsonObject[])
        : []
      const step = requests.find((r) => r['step_id'] === stepId || r['uuid'] === stepId)
      if (step === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Step ${stepId} of test run ${run.id}`])
      }
      return { data: step }
    },
  },
]
