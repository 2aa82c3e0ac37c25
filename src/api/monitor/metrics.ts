import type { JsonObject, MonitorRun } from '../../store/index.js'
import { invalidField } from '../validation.js'
import { testOf } from './access.js'
import { LOCAL_REGION } from './run-context.js'
import { placementView } from './run-targets.js'
import type { MonitorRoute } from './types.js'

/*
 * GET /buckets/{k}/tests/{t}/metrics?timeframe=&region=&environment_uuid= (the product's public
 * API): response times and pass ratios of the test's stored runs over a timeframe, cut into
 * intervals, with the period's percentiles and their change from the period before. Computed on
 * every call from the runs the platform keeps (the newest `--result-retention` per test).
 */

/** Each timeframe: its length and the width of one `response_times` interval, in seconds. */
const TIMEFRAMES: Readonly<Record<string, { span: number; step: number }>> = {
  hour: { span: 3600, step: 60 },
  day: { span: 86_400, step: 3600 },
  week: { span: 7 * 86_400, step: 86_400 },
  month: { span: 30 * 86_400, step: 86_400 },
}

interface RunSample {
  /** Epoch seconds the run started. */
  at: number
  passed: boolean
  /** Response times (ms) of the run's request steps, nested ones included. */
  times: number[]
}

function requestTimes(requests: unknown, into: number[]): number[] {
  if (!Array.isArray(requests)) return into
  for (const r of requests as JsonObject[]) {
    if (typeof r['response_time_ms'] === 'number') into.push(r['response_time_ms'])
    requestTimes(r['steps'], into)
  }
  return into
}

function sampleOf(run: MonitorRun): RunSample | undefined {
  if (run.result !== 'pass' && run.result !== 'fail') return undefined
  const started = run.doc['started_at']
  return {
    at: typeof started === 'number' ? started : run.created / 1000,
    passed: run.result === 'pass',
    times: requestTimes(run.doc['requests'], []),
  }
}

/** Nearest-rank percentile of sorted values, null without values. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ] as number
}

function periodSummary(samples: RunSample[]): Record<string, number | null> {
  const times = samples.flatMap((s) => s.times).sort((a, b) => a - b)
  return {
    response_time_50th_percentile: percentile(times, 50),
    response_time_95th_percentile: percentile(times, 95),
    response_time_99th_percentile: percentile(times, 99),
    total_test_runs: samples.length,
  }
}

/** Relative change of each figure from the last period (0.1 = 10 % more); null where the last period had none. */
function change(
  now: Record<string, number | null>,
  before: Record<string, number | null>,
): Record<string, number | null> {
  const out: Record<string, number | null> = {}
  for (const [key, value] of Object.entries(now)) {
    const last = before[key]
    out[key] =
      value === null || last === null || last === undefined || last === 0
        ? null
        : Math.round(((value - last) / last) * 10_000) / 10_000
  }
  return out
}

/** The metrics of runs for a timeframe ending at `nowSeconds`. */
function computeMetrics(runs: MonitorRun[], timeframe: string, nowSeconds: number): JsonObject {
  const { span, step } = TIMEFRAMES[timeframe] as { span: number; step: number }
  const intervals = span / step
  const start = (Math.floor(nowSeconds / step) - intervals + 1) * step
  const samples = runs.map(sampleOf).filter((s): s is RunSample => s !== undefined)
  const current = samples.filter((s) => s.at >= start)
  const previous = samples.filter((s) => s.at >= start - intervals * step && s.at < start)
  const responseTimes: JsonObject[] = []
  for (let i = 0; i < intervals; i++) {
    const from = start + i * step
    const inside = current.filter((s) => s.at >= from && s.at < from + step)
    const times = inside.flatMap((s) => s.times)
    // Numbers always (clients' models declare them so): an interval without runs reports 0 for the
    // ratio and the average, and `test_runs` 0 tells it from one whose runs all failed.
    responseTimes.push({
      timestamp: from,
      success_ratio:
        inside.length === 0 ? 0 : inside.filter((s) => s.passed).length / inside.length,
      avg_response_time_ms:
        times.length === 0 ? 0 : Math.round(times.reduce((a, b) => a + b, 0) / times.length),
      test_runs: inside.length,
    })
  }
  const thisPeriod = periodSummary(current)
  return {
    response_times: responseTimes,
    this_time_period: thisPeriod,
    change_from_last_period: change(thisPeriod, periodSummary(previous)),
  }
}

export const metricRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/metrics',
    scope: 'test:read',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      const timeframe = ctx.query.get('timeframe') ?? 'month'
      if (TIMEFRAMES[timeframe] === undefined) {
        throw invalidField('/timeframe', `must be one of ${Object.keys(TIMEFRAMES).join(', ')}`)
      }
      const region = ctx.query.get('region') ?? 'all'
      if (region !== 'all' && region !== LOCAL_REGION) {
        const served = await ctx.deps.store.monitoring.listAgentRegions([bucket.workspaceId])
        if (!served.some((r) => r.region === region)) {
          throw invalidField(
            '/region',
            `must be all, ${LOCAL_REGION} or a region the team's agents serve (GET /regions)`,
          )
        }
      }
      const environment = ctx.query.get('environment_uuid') ?? 'all'
      if (environment !== 'all') {
        const env = await ctx.deps.store.monitoring.getEnvironment(bucket.key, environment)
        if (env === undefined || (env.testId !== null && env.testId !== test.id)) {
          throw invalidField(
            '/environment_uuid',
            'must be all or an environment of this test or its bucket',
          )
        }
      }
      let runs = await ctx.deps.store.monitoring.listRuns(test.id, -1)
      if (environment !== 'all') runs = runs.filter((r) => r.environmentId === environment)
      if (region !== 'all') runs = runs.filter((r) => placementView(r).region === region)
      const metrics: JsonObject = {
        ...computeMetrics(runs, timeframe, Math.floor(ctx.deps.options.now() / 1000)),
        environment_uuid: environment,
        region,
        timeframe,
      }
      // The OpenAPI description spells it `changes_from_last_period`; both are given.
      metrics['changes_from_last_period'] = metrics['change_from_last_period'] ?? null
      // go-runscope's ReadTestMetrics reads the figures at the top of the body (the product's
      // answer), envelope clients read `data`: the body carries both.
      return { data: metrics, top: metrics }
    },
  },
]
