import type { ResponseDelay } from '../../dsl/index.js'
import type { WireMockContext } from './context.js'
import { invalidInput, malformed, WireMockError } from './errors.js'
import type { Route } from './route.js'
import { listScenarios, setScenarioState } from './scenarios.js'

/** The version `GET /__admin/health` reports: the WireMock API generation these routes follow. */
const WIREMOCK_API_VERSION = '3.13.0'

/** Scenarios, recordings, and the global calls: reset, settings, health, shutdown. */
export function globalRoutes(ctx: WireMockContext): Route[] {
  const { host, layer, recorder } = ctx
  return [
    [
      'GET',
      '/__admin/scenarios',
      () => ({ status: 200, body: { scenarios: listScenarios(host, layer) } }),
    ],
    [
      'POST',
      '/__admin/scenarios/reset',
      async () => {
        await host.scenarios().reset()
        return { status: 200, body: {} }
      },
    ],
    [
      'PUT',
      '/__admin/scenarios/:name/state',
      async ({ params, body }) => {
        const state =
          typeof body === 'object' && body !== null
            ? (body as Record<string, unknown>)['state']
            : undefined
        await setScenarioState(host, layer, params['name'] ?? '', state)
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/recordings/start',
      async ({ body }) => {
        await recorder.start(body)
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/recordings/stop',
      async () => ({ status: 200, body: await recorder.stop(await ctx.converter()) }),
    ],
    [
      'POST',
      '/__admin/recordings/snapshot',
      async ({ body }) => ({
        status: 200,
        body: await recorder.snapshot(body, await ctx.converter()),
      }),
    ],
    [
      'GET',
      '/__admin/recordings/status',
      () => ({ status: 200, body: { status: recorder.status } }),
    ],
    [
      'POST',
      '/__admin/reset',
      async () => {
        await ctx.resetMappings()
        await ctx.journal.clear()
        await host.scenarios().reset()
        return { status: 200, body: {} }
      },
    ],
    [
      'GET',
      '/__admin/settings',
      () => ({ status: 200, body: { settings: settingsView(layer.currentSettings.thinkTime) } }),
    ],
    [
      'POST',
      '/__admin/settings',
      async ({ body }) => {
        await layer.configure({ thinkTime: thinkTimeOf(body) })
        return { status: 200, body: {} }
      },
    ],
    // The Java client's updateGlobalSettings.
    [
      'PUT',
      '/__admin/settings',
      async ({ body }) => {
        await layer.configure({ thinkTime: thinkTimeOf(body) })
        return { status: 200, body: {} }
      },
    ],
    ['GET', '/__admin/version', () => ({ status: 200, body: { version: WIREMOCK_API_VERSION } })],
    [
      'GET',
      '/__admin/health',
      () => ({
        status: 200,
        body: {
          status: 'healthy',
          message: 'Wiremock is ok',
          version: WIREMOCK_API_VERSION,
          uptimeInSeconds: Math.round((Date.now() - ctx.started) / 1000),
          timestamp: new Date().toISOString(),
        },
      }),
    ],
    [
      'POST',
      '/__admin/shutdown',
      () => {
        if (ctx.shutdown === null) {
          throw new WireMockError(403, [
            {
              code: 10,
              title:
                'shutdown is not enabled on this runtime: start it with --wiremock-shutdown to allow POST /__admin/shutdown',
            },
          ])
        }
        // After the answer is written: the shutdown drains in-flight requests, this one included.
        setImmediate(ctx.shutdown)
        return { status: 200, body: {} }
      },
    ],
  ]
}

/**
 * `POST /__admin/settings`: `{fixedDelay}` and/or `{delayDistribution}` (or a bare distribution,
 * as wiremock-rest-client sends it) become the mock service's think time; `{fixedDelay: 0}` or
 * `{}` remove it. A transaction's own delay wins, as everywhere in Understudy.
 */
function thinkTimeOf(body: unknown): ResponseDelay | null {
  if (body === undefined) return null
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw malformed('the body must be a JSON object {fixedDelay, delayDistribution}')
  }
  const input = body as Record<string, unknown>
  const distribution = 'type' in input ? input : input['delayDistribution']
  for (const key of Object.keys(input)) {
    if (
      !['fixedDelay', 'delayDistribution', 'type', 'median', 'sigma', 'lower', 'upper'].includes(
        key,
      )
    ) {
      throw invalidInput(
        `/${key}`,
        `${key} is not a setting Understudy supports (fixedDelay, delayDistribution)`,
      )
    }
  }
  const fixed = input['fixedDelay']
  if (
    fixed !== undefined &&
    fixed !== null &&
    (typeof fixed !== 'number' || !Number.isFinite(fixed) || fixed < 0)
  ) {
    throw invalidInput('/fixedDelay', 'fixedDelay must be a number of milliseconds >= 0')
  }
  if (distribution !== undefined && distribution !== null) {
    if (typeof fixed === 'number' && fixed > 0) {
      throw invalidInput(
        '/delayDistribution',
        'fixedDelay and delayDistribution together are not supported by Understudy: give one',
      )
    }
    return distributionOf(distribution)
  }
  return typeof fixed === 'number' && fixed > 0 ? { type: 'fixed', duration: fixed } : null
}

function distributionOf(value: unknown): ResponseDelay {
  const d = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  const num = (key: string): number => {
    const v = d[key]
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw invalidInput(`/delayDistribution/${key}`, `${key} must be a number >= 0`)
    }
    return v
  }
  if (d['type'] === 'lognormal') {
    return { type: 'lognormal', median: num('median'), sigma: num('sigma') }
  }
  if (d['type'] === 'uniform') return { type: 'uniform', lower: num('lower'), upper: num('upper') }
  throw invalidInput(
    '/delayDistribution/type',
    'delayDistribution type must be lognormal or uniform',
  )
}

function settingsView(delay: ResponseDelay | null): Record<string, unknown> {
  if (delay === null) return {}
  if (delay.type === 'fixed') return { fixedDelay: delay.duration ?? 0 }
  const { type, ...rest } = delay
  return { delayDistribution: { type, ...rest } }
}
