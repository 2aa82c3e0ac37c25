import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  expectMonitorError,
  startMonitorPlatform,
  type MonitorPlatform,
} from '../e2e/monitor/helpers.js'
import { startUpstream, type UpstreamRequest } from '../helpers/upstream.js'
import { waitFor } from '../helpers/wait.js'

/** Triggers a test and returns its finished run (`result` pass or fail). */
async function runToEnd(
  m: MonitorPlatform,
  triggerUrl: string,
): Promise<{
  result: string
  requests: Array<{ error?: string | null }>
  notifications: Array<{ channel: string; target: string; result: string }>
}> {
  const trigger = await fetch(triggerUrl)
  expect(trigger.status).toBe(201)
  const url =
    ((await trigger.json()) as { data: { runs: Array<{ test_run_url: string }> } }).data.runs[0]
      ?.test_run_url ?? ''
  let run: Awaited<ReturnType<typeof runToEnd>> | undefined
  await waitFor(
    async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${m.token}` } })
      run = ((await res.json()) as { data: NonNullable<typeof run> }).data
      return run.result === 'pass' || run.result === 'fail'
    },
    'the run to finish',
    { timeoutMs: 15_000, intervalMs: 50 },
  )
  return run as NonNullable<typeof run>
}

/** A server that speaks only HTTP/2 without TLS (h2c, prior knowledge). */
async function startH2cServer(): Promise<string> {
  const server = http2.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ version: req.httpVersion }))
  })
  // The runner keeps its connection alive: close() waits for the sessions, so they are ended here.
  const sessions = new Set<http2.ServerHttp2Session>()
  server.on('session', (session) => {
    sessions.add(session)
    session.on('close', () => sessions.delete(session))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    for (const session of sessions) session.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

// Defect: environments had no http_version_support / force_h2c (a Python client's model requires
// them), and the runner spoke HTTP/1.1 only.
describe('environments carry http_version_support and force_h2c, and the runner honours them', () => {
  it('reads them back with their defaults, refuses a bad value, and reaches an h2c-only server only with force_h2c', async () => {
    const m = await startMonitorPlatform()
    const target = await startH2cServer()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'h2c',
          steps: [
            {
              step_type: 'request',
              method: 'GET',
              url: `${target}/status`,
              assertions: [
                { source: 'response_json', property: 'version', comparison: 'equal', value: '2.0' },
              ],
            },
          ],
        },
      })
    ).body.data
    const envPath = `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id as string}`
    expect((await m.call('GET', envPath)).body.data).toMatchObject({
      http_version_support: 'h1_1',
      force_h2c: false,
    })
    expect(
      expectMonitorError(
        await m.call('PUT', envPath, { json: { http_version_support: 'h3' } }),
        400,
      ),
    ).toContain('/http_version_support')
    expect(
      expectMonitorError(await m.call('PUT', envPath, { json: { force_h2c: 'yes' } }), 400),
    ).toContain('/force_h2c')

    expect((await runToEnd(m, test.trigger_url)).result).toBe('fail')
    const put = await m.call('PUT', envPath, {
      json: { http_version_support: 'h2', force_h2c: true },
    })
    expect(put.body.data).toMatchObject({ http_version_support: 'h2', force_h2c: true })
    expect((await runToEnd(m, test.trigger_url)).result).toBe('pass')
  })
})

// Defect: a team had no integrations (GET answered [] always), so environments could reference none.
describe('the integrations an environment references are notified', () => {
  it('posts the finished run to a webhook integration, also through a parent environment', async () => {
    const hooks: UpstreamRequest[] = []
    const hook = await startUpstream((req, res) => {
      hooks.push(req)
      res.end('ok')
    })
    const target = await startUpstream()
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const integration = (
      await m.call('POST', `/teams/${m.teamId}/integrations`, {
        json: { integration_type: 'webhook', url: `${hook.url}/runs` },
      })
    ).body.data
    const shared = (
      await m.call('POST', `/buckets/${key}/environments`, {
        json: { name: 'shared', integrations: [{ id: integration.id }] },
      })
    ).body.data
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'notified',
          steps: [{ step_type: 'request', method: 'GET', url: `${target.url}/ok` }],
        },
      })
    ).body.data
    const envPath = `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id as string}`
    expect(
      (await m.call('PUT', envPath, { json: { parent_environment_id: shared.id } })).status,
    ).toBe(200)
    const run = await runToEnd(m, test.trigger_url)
    expect(run.notifications).toContainEqual(
      expect.objectContaining({ channel: 'webhook', target: `${hook.url}/runs`, result: 'sent' }),
    )
    expect(hooks).toHaveLength(1)
    expect(hooks[0]?.url).toBe('/runs')
    expect(JSON.parse(hooks[0]?.body.toString() ?? '{}')).toMatchObject({
      test_id: test.id,
      bucket_key: key,
    })
  })
})
