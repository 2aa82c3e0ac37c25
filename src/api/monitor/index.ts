import type { Logger } from '../../log/index.js'
import type { EgressPolicy } from '../../net/index.js'
import type { Store } from '../../store/index.js'
import { Authenticator } from '../auth.js'
import { offerFunctionality } from '../v4/functionalities.js'
import { createMonitorExecutor, createMonitorNotifier } from './executor.js'
import { createScheduler, type RunOptions } from '../../monitor/index.js'
import { RunQueue } from './run-queue.js'
import { DEFAULT_RESULT_RETENTION, setRunTerms } from './run-terms.js'
import { monitoringRoutes } from './routes.js'
import { createMonitoringApi, type MonitoringApi } from './server.js'

// The dashboard issues its sessions' tokens the way the OAuth provider does (src/api/ui/monitor-tokens.ts).
export { issueToken, newSecret } from './bearer.js'
export { SCOPES } from './types.js'
// What the agents' run routes (served with the ships' routes) need of monitoring runs.
export { claimPayload, completedDoc } from './run-claims.js'
export { LOCAL_REGION } from './run-context.js'
export { runTermsOf } from './run-terms.js'

export interface MonitoringOptions {
  store: Store
  log: Logger
  baseUrl: string
  jsonLimit: number
  /** The platform's one checker of secrets, shared with the other APIs (default: one of its own). */
  authenticator?: Authenticator
  /** Runs kept per test (default 100). */
  resultRetention?: number
  /** SMTP server for e-mail notifications (`smtp://host:port`); without it e-mails are skipped. */
  smtpUrl?: string
  /**
   * How long a run's lease lasts unless renewed, in ms (default 30 s): an agent or a platform
   * instance that dies leaves its runs to others after this long.
   */
  leaseMs?: number
  /**
   * How long a run waits for an agent when no agent that could claim it shows life, in ms
   * (default 5 min): it fails then, with a reason.
   */
  runWaitMs?: number
  /** Test hooks: the clock, a divisor of schedule intervals, runner options. */
  now?: () => number
  scheduleScale?: number
  run?: RunOptions
  /** Where runs (steps, token requests, notification webhooks) may send: docs/security.md "Egress". */
  egress?: EgressPolicy
}

/** The monitoring API and its run queue, as the platform runs them. */
interface Monitoring {
  api: MonitoringApi
  runs: RunQueue
  /** Stops the schedules and waits for runs under way. */
  close: () => Promise<void>
}

/**
 * Starts the monitoring API (the monitoring specification): its routes, the run queue, and every
 * stored schedule.
 *
 * @example
 * const monitoring = await startMonitoring({ store, log, baseUrl: 'http://127.0.0.1:8080', jsonLimit: 1 << 20 })
 * server.on('request', (req, res) => monitoring.api.handles(req) ? monitoring.api.handle(req, res) : api(req, res))
 */
export async function startMonitoring(options: MonitoringOptions): Promise<Monitoring> {
  const now = options.now ?? Date.now
  const executorOptions = {
    log: options.log,
    baseUrl: options.baseUrl,
    ...(options.smtpUrl === undefined ? {} : { smtpUrl: options.smtpUrl }),
    ...(options.run === undefined && options.egress === undefined
      ? {}
      : {
          run: {
            ...options.run,
            ...(options.egress === undefined ? {} : { egress: options.egress }),
          },
        }),
  }
  const runs = new RunQueue({
    store: options.store,
    log: options.log,
    execute: createMonitorExecutor(executorOptions),
    notify: createMonitorNotifier(executorOptions),
    // The runner's scheduler: one croner timer per schedule, armed again from the store at start.
    timers: createScheduler({
      scale: options.scheduleScale ?? 1,
      onError: (err, scheduleId) => options.log.error({ err, scheduleId }, 'scheduled run failed'),
    }),
    retention: options.resultRetention ?? DEFAULT_RESULT_RETENTION,
    now,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.runWaitMs === undefined ? {} : { runWaitMs: options.runWaitMs }),
    ...(options.scheduleScale === undefined ? {} : { scheduleScale: options.scheduleScale }),
  })
  setRunTerms(options.store, {
    leaseMs: runs.leaseMs,
    runWaitMs: runs.runWaitMs,
    retention: options.resultRetention ?? DEFAULT_RESULT_RETENTION,
    completed: (run) => {
      runs.notifyCompleted(run).catch((err: unknown) => {
        options.log.warn({ err, runId: run.id }, 'notifications of an agent run failed')
      })
    },
  })
  await runs.loadSchedules()
  const api = createMonitoringApi(
    {
      store: options.store,
      log: options.log,
      runs,
      authenticator: options.authenticator ?? new Authenticator(options.store),
      options: {
        baseUrl: options.baseUrl,
        jsonLimit: options.jsonLimit,
        resultRetention: options.resultRetention ?? DEFAULT_RESULT_RETENTION,
        now,
      },
    },
    monitoringRoutes,
  )
  // The administration API's functionalities and workspace feature flags show API testing only
  // where this API is served.
  offerFunctionality('functionalApi', 'API Functional Testing')
  return { api, runs, close: async () => await runs.close() }
}
