import type { Logger } from '../../log/index.js'
import {
  notify,
  resolveEnvironment,
  runTest,
  type EnvironmentDoc,
  type ResolvedEnvironment,
  type RunnableTest,
  type RunOptions,
  type Step,
} from '../../monitor/index.js'
import type { MonitorEnvironment, MonitorIntegration, MonitorTest } from '../../store/index.js'
import type { Execute, Notify } from './run-queue.js'

interface ExecutorOptions {
  log: Logger
  /** The platform's base URL, for the result link in notifications. */
  baseUrl: string
  smtpUrl?: string
  /** Runner options (tests shorten pauses). */
  run?: RunOptions
}

function runnable(test: MonitorTest): RunnableTest {
  // Steps are stored as the API validated them, in the runner's Step shape (snake_case, as sent).
  return {
    id: test.id,
    name: test.name,
    steps: test.steps as unknown as Step[],
    bucket_key: test.bucketKey,
  }
}

function chainOf(environments: MonitorEnvironment[]): EnvironmentDoc[] {
  return environments.map((e) => ({ ...e.doc, id: e.id }))
}

/** Adds the deliveries of the environment's integrations: a webhook's URL, an e-mail integration's recipients. */
function withIntegrations(
  environment: ResolvedEnvironment,
  integrations: readonly MonitorIntegration[],
): ResolvedEnvironment {
  const webhooks = [...environment.webhooks]
  const recipients = [...environment.emails.recipients]
  for (const integration of integrations) {
    const { url, recipients: more } = integration.doc
    if (integration.type === 'webhook' && typeof url === 'string' && !webhooks.includes(url)) {
      webhooks.push(url)
    }
    if (integration.type === 'email' && Array.isArray(more)) {
      for (const r of more as Array<{ email: string }>) {
        if (!recipients.some((x) => x.email === r.email)) recipients.push({ email: r.email })
      }
    }
  }
  return { ...environment, webhooks, emails: { ...environment.emails, recipients } }
}

/**
 * Sends the environment's notifications of a finished run (webhooks, e-mails through `smtpUrl`),
 * whoever ran it: the platform's runner or an agent.
 */
export function createMonitorNotifier(options: ExecutorOptions): Notify {
  return async (input) => {
    const { result } = input
    const environment = resolveEnvironment(chainOf(input.environments))
    let consecutiveFailures = 0
    if (result.result === 'fail') {
      consecutiveFailures = 1
      for (const previous of await input.previousResults()) {
        if (previous !== 'fail') break
        consecutiveFailures++
      }
    }
    const testRunUrl = `${options.baseUrl}/buckets/${input.bucket.key}/tests/${input.test.id}/results/${input.runId}`
    const notifications = await notify(result, withIntegrations(environment, input.integrations), {
      ...(options.smtpUrl === undefined ? {} : { smtpUrl: options.smtpUrl }),
      ...(options.run?.egress === undefined ? {} : { egress: options.run.egress }),
      consecutiveFailures,
      extra: { bucket_key: input.bucket.key, test_run_url: testRunUrl },
    })
    if (notifications.some((n) => n.result === 'failed')) {
      options.log.warn(
        { testId: input.test.id, runId: input.runId, notifications },
        'notification failed',
      )
    }
    return notifications
  }
}

/**
 * Runs a test with the runner of src/monitor (environment inheritance resolved, the trigger's
 * variables, subtests loaded from the same bucket), then sends the environment's notifications
 * and records their outcome in the result.
 */
export function createMonitorExecutor(options: ExecutorOptions): Execute {
  const sendNotifications = createMonitorNotifier(options)
  return async (input) => {
    const environment = resolveEnvironment(chainOf(input.environments))
    const result = await runTest(
      {
        test: runnable(input.test),
        environment,
        initialVariables: input.variables,
        testRunId: input.runId,
        resolveSubtest: async (ref) => {
          const loaded = await input.loadTest(ref.test_uuid, ref.environment_uuid)
          return loaded === undefined
            ? null
            : {
                test: runnable(loaded.test),
                environment: resolveEnvironment(chainOf(loaded.environments)),
              }
        },
      },
      options.run,
    )
    const notifications = await sendNotifications({ ...input, result })
    return { pass: result.result === 'pass', doc: { ...result, notifications } }
  }
}
