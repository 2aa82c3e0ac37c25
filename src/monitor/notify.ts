import { Agent, request } from 'undici'
import { createTransport } from 'nodemailer'
import { egressConnector, type EgressPolicy } from '../net/index.js'
import { runnerEgress } from './http.js'
import type { NotificationReport, ResolvedEnvironment, TestRunResult } from './types.js'

interface NotifyOptions {
  /** `smtp://user:pass@host:port`; without it, e-mails are skipped with a note. */
  smtpUrl?: string
  /** The sender address; default `understudy@localhost`. */
  from?: string
  /** Failed runs in a row, this one included (for `notify_on: threshold`); default 1 when it failed. */
  consecutiveFailures?: number
  /** Per delivery timeout; default 10 000 ms. */
  timeoutMs?: number
  /** Merged into the webhook payload (links such as `test_run_url`). */
  extra?: Record<string, unknown>
  /** Where webhooks may go (docs/security.md "Egress"); default the default policy. */
  egress?: EgressPolicy
}

/** One agent per policy: every webhook's connection is checked where it connects. */
const webhookAgents = new WeakMap<EgressPolicy, Agent>()

function webhookAgent(egress: EgressPolicy): Agent {
  let agent = webhookAgents.get(egress)
  if (agent === undefined) {
    agent = new Agent({ connect: egressConnector(egress) })
    webhookAgents.set(egress, agent)
  }
  return agent
}

/**
 * Whether a run is notified: `all` every run, `failures` failed runs, `threshold` a failed run
 * that makes `notify_threshold` failures in a row (and every further one).
 */
export function shouldNotify(
  result: TestRunResult,
  environment: ResolvedEnvironment,
  consecutiveFailures?: number,
): boolean {
  const { notify_on: on, notify_threshold: threshold } = environment.emails
  if (on === 'all') return true
  if (result.result === 'pass') return false
  if (on === 'failures') return true
  return (consecutiveFailures ?? 1) >= Math.max(1, threshold)
}

function summary(result: TestRunResult): string {
  const lines = [
    `Test: ${result.test_name} (${result.test_id})`,
    `Environment: ${result.environment_name ?? '-'}`,
    `Result: ${result.result}`,
    `Run: ${result.test_run_id}`,
    `Requests executed: ${result.requests_executed}`,
    `Assertions: ${result.assertions_passed} passed, ${result.assertions_failed} failed of ${result.assertions_defined}`,
    `Scripts: ${result.scripts_passed} passed, ${result.scripts_failed} failed of ${result.scripts_defined}`,
  ]
  for (const step of result.requests) {
    if (step.result !== 'fail') continue
    lines.push(
      `Failed step: ${step.step_type} ${step.method ?? ''} ${step.url ?? ''} ${step.error ?? ''}`.trimEnd(),
    )
  }
  return lines.join('\n') + '\n'
}

async function postWebhook(
  url: string,
  payload: unknown,
  timeoutMs: number,
  egress: EgressPolicy,
): Promise<NotificationReport> {
  try {
    const res = await request(url, {
      dispatcher: webhookAgent(egress),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'understudy-monitor' },
      body: JSON.stringify(payload),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    })
    await res.body.dump()
    if (res.statusCode >= 200 && res.statusCode < 300) {
      return { channel: 'webhook', target: url, result: 'sent', note: null }
    }
    return {
      channel: 'webhook',
      target: url,
      result: 'failed',
      note: `the webhook answered ${res.statusCode}`,
    }
  } catch (err) {
    return {
      channel: 'webhook',
      target: url,
      result: 'failed',
      note: err instanceof Error ? err.message : String(err),
    }
  }
}

async function sendEmails(
  result: TestRunResult,
  environment: ResolvedEnvironment,
  options: NotifyOptions,
): Promise<NotificationReport[]> {
  const recipients = environment.emails.recipients.map((r) => r.email)
  if (recipients.length === 0) return []
  const target = recipients.join(', ')
  if (options.smtpUrl === undefined || options.smtpUrl === '') {
    return [
      {
        channel: 'email',
        target,
        result: 'skipped',
        note: 'no SMTP host configured (start the platform with --smtp-url)',
      },
    ]
  }
  const timeout = options.timeoutMs ?? 10_000
  const transport = createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  })
  try {
    await transport.sendMail({
      from: options.from ?? 'understudy@localhost',
      to: recipients,
      subject: `[Understudy] ${result.test_name}: ${result.result === 'pass' ? 'passed' : 'failed'}`,
      text: summary(result),
    })
    return [{ channel: 'email', target, result: 'sent', note: null }]
  } catch (err) {
    return [
      {
        channel: 'email',
        target,
        result: 'failed',
        note: err instanceof Error ? err.message : String(err),
      },
    ]
  } finally {
    transport.close()
  }
}

/**
 * Sends a finished run's notifications: each webhook gets the result as a JSON POST, the
 * recipients an e-mail, when `notify_on` / `notify_threshold` say so. Never throws: every
 * delivery is reported (sent, failed with why, or skipped); a webhook the egress policy refuses
 * is `failed` with the policy's reason.
 */
export async function notify(
  result: TestRunResult,
  environment: ResolvedEnvironment,
  options: NotifyOptions = {},
): Promise<NotificationReport[]> {
  if (!shouldNotify(result, environment, options.consecutiveFailures)) return []
  const payload = { ...result, ...options.extra }
  const timeout = options.timeoutMs ?? 10_000
  const deliveries = await Promise.all([
    ...environment.webhooks.map(
      async (url) => await postWebhook(url, payload, timeout, runnerEgress(options.egress)),
    ),
    sendEmails(result, environment, options),
  ])
  return deliveries.flat()
}
