import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  notify,
  resolveEnvironment,
  shouldNotify,
  type EnvironmentDoc,
  type TestRunResult,
} from '../../../src/monitor/index.js'

interface Received {
  body: string
  contentType: string | undefined
}
interface Mail {
  from: string
  to: string[]
  data: string
}

let hooks: Server
let hookUrl = ''
const received: Received[] = []
let smtp: SMTPServer
let smtpUrl = ''
const mails: Mail[] = []
let waiters: Array<() => void> = []

beforeAll(async () => {
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString(),
        contentType: req.headers['content-type'],
      })
      res.writeHead(req.url === '/broken' ? 500 : 204)
      res.end()
    })
  })
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve))
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString(),
        })
        for (const w of waiters) w()
        waiters = []
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`
})

afterAll(async () => {
  hooks.closeAllConnections()
  await new Promise<void>((resolve) => hooks.close(() => resolve()))
  await new Promise<void>((resolve) => smtp.close(resolve))
})

function result(outcome: 'pass' | 'fail'): TestRunResult {
  return {
    test_run_id: `run-${outcome}`,
    test_id: 't1',
    test_name: 'Checkout',
    environment_id: 'e1',
    environment_name: 'Prod',
    result: outcome,
    started_at: 1,
    finished_at: 2,
    requests_executed: 1,
    assertions_defined: 1,
    assertions_passed: outcome === 'pass' ? 1 : 0,
    assertions_failed: outcome === 'pass' ? 0 : 1,
    variables_defined: 0,
    variables_passed: 0,
    variables_failed: 0,
    scripts_defined: 0,
    scripts_passed: 0,
    scripts_failed: 0,
    initial_variables: {},
    variables: {},
    scripts: [],
    requests: [],
    error: null,
  }
}

const env = (doc: EnvironmentDoc): ReturnType<typeof resolveEnvironment> =>
  resolveEnvironment([doc])

describe('notify', () => {
  it('posts the result as JSON to every webhook and mails the recipients through SMTP', async () => {
    const before = received.length
    const mailed = new Promise<void>((resolve) => waiters.push(resolve))
    const reports = await notify(
      result('fail'),
      env({
        webhooks: [`${hookUrl}/hook`, `${hookUrl}/broken`],
        emails: { notify_on: 'all', recipients: [{ email: 'ops@example.com', name: 'Ops' }] },
      }),
      { smtpUrl, extra: { test_run_url: 'http://platform/results/run-fail' } },
    )
    await mailed
    expect(reports).toEqual([
      { channel: 'webhook', target: `${hookUrl}/hook`, result: 'sent', note: null },
      {
        channel: 'webhook',
        target: `${hookUrl}/broken`,
        result: 'failed',
        note: 'the webhook answered 500',
      },
      { channel: 'email', target: 'ops@example.com', result: 'sent', note: null },
    ])
    const posted = received.slice(before)
    expect(posted).toHaveLength(2)
    expect(posted[0]?.contentType).toBe('application/json')
    expect(JSON.parse(posted[0]?.body ?? '{}')).toMatchObject({
      test_run_id: 'run-fail',
      result: 'fail',
      test_name: 'Checkout',
      test_run_url: 'http://platform/results/run-fail',
    })
    const mail = mails.at(-1)
    expect(mail?.to).toEqual(['ops@example.com'])
    expect(mail?.data).toMatch(/Subject: \[Understudy\] Checkout: failed/)
    expect(mail?.data).toMatch(/Assertions: 0 passed, 1 failed of 1/)
  })

  it('skips e-mail with a note when no SMTP host is configured', async () => {
    const reports = await notify(
      result('fail'),
      env({ emails: { notify_on: 'failures', recipients: [{ email: 'ops@example.com' }] } }),
    )
    expect(reports).toEqual([
      {
        channel: 'email',
        target: 'ops@example.com',
        result: 'skipped',
        note: 'no SMTP host configured (start the platform with --smtp-url)',
      },
    ])
  })

  it('reports an unreachable webhook instead of throwing', async () => {
    const reports = await notify(result('pass'), env({ webhooks: ['http://127.0.0.1:1/hook'] }), {
      timeoutMs: 2000,
    })
    expect(reports[0]).toMatchObject({ channel: 'webhook', result: 'failed' })
  })

  it('honours notify_on and notify_threshold', async () => {
    const all = env({ emails: { notify_on: 'all' } })
    const failures = env({ emails: { notify_on: 'failures' } })
    const threshold = env({ emails: { notify_on: 'threshold', notify_threshold: 3 } })
    expect(shouldNotify(result('pass'), all)).toBe(true)
    expect(shouldNotify(result('pass'), failures)).toBe(false)
    expect(shouldNotify(result('fail'), failures)).toBe(true)
    expect(shouldNotify(result('fail'), threshold, 2)).toBe(false)
    expect(shouldNotify(result('fail'), threshold, 3)).toBe(true)
    expect(shouldNotify(result('pass'), threshold, 0)).toBe(false)
    const before = received.length
    expect(
      await notify(
        result('pass'),
        env({ webhooks: [`${hookUrl}/hook`], emails: { notify_on: 'failures' } }),
      ),
    ).toEqual([])
    expect(received.length).toBe(before)
  })
})
