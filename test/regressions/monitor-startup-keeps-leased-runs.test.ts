import http from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startMonitorPlatform, type MonitorPlatform } from '../e2e/monitor/helpers.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies loosely and assert their shape
type Loose = any

/*
 * A platform starting used to mark failed every run left queued or working in the store: right
 * for runs of its own previous process, wrong for runs another platform instance on the same
 * store is executing, or that an agent holds under a live lease. Now only runs whose lease ended
 * (or that have none) fail at start.
 */

/** An API whose answers wait until the test releases them. */
async function startTarget(): Promise<{ url: string; release: () => void }> {
  let release = (): void => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const server = http.createServer((_req, res) => {
    released.then(
      () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      },
      () => undefined,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    release()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, release }
}

async function createTest(m: MonitorPlatform, url: string, regions?: string[]): Promise<Loose> {
  const key = await m.bucket()
  const test = (
    await m.call('POST', `/buckets/${key}/tests`, {
      json: { name: 'slow', steps: [{ step_type: 'request', method: 'GET', url }] },
    })
  ).body.data
  if (regions !== undefined) {
    const env = await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id}`,
      { json: { name: 'regional', regions } },
    )
    expect(env.status).toBe(200)
  }
  return { ...test, key }
}

async function runOf(m: MonitorPlatform, test: Loose, runId: string): Promise<Loose> {
  const res = await m.call('GET', `/buckets/${test.key}/tests/${test.id}/results/${runId}`)
  expect(res.status).toBe(200)
  return res.body.data
}

async function v4(m: MonitorPlatform, path: string, json: unknown): Promise<Loose> {
  const res = await fetch(m.url + path, {
    method: 'POST',
    headers: { authorization: m.basic, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  })
  expect(res.status, path).toBe(201)
  return ((await res.json()) as { result: Loose }).result
}

describe('platform start-up leaves runs held under a live lease alone', () => {
  it('a second platform instance on the same store does not fail the run the first one executes', async () => {
    const first = await startMonitorPlatform()
    const target = await startTarget()
    const test = await createTest(first, `${target.url}/slow`)
    const trigger = await fetch(test.trigger_url, { method: 'POST' })
    const runId = ((await trigger.json()) as Loose).data.runs[0].test_run_id as string
    await expect.poll(async () => (await runOf(first, test, runId)).result).toBe('working')

    const second = await startMonitorPlatform({
      dataDir: first.dataDir,
      apiKeySecret: first.apiKeySecret,
    })
    expect((await runOf(second, test, runId)).result).toBe('working')
    target.release()
    await expect
      .poll(async () => (await runOf(second, test, runId)).result, { timeout: 10_000 })
      .toBe('pass')
  })

  it("a restarted platform keeps an agent's run and takes its result under the lease", async () => {
    const before = await startMonitorPlatform()
    const harbor = await v4(before, '/api/v4/private-locations', {
      name: 'h',
      accountId: before.platform.bootstrap.accountId,
      workspacesId: [before.platform.bootstrap.workspaceId],
    })
    const ship = await v4(before, `/api/v4/private-locations/${harbor.id}/servers`, { name: 's' })
    const agent = async (base: string, path: string, json: unknown) =>
      await fetch(`${base}/api/v4/private-locations/${harbor.id}/servers/${ship.id}/runs${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ship.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      })
    expect((await agent(before.url, '/claim', { region: 'eu-west' })).status).toBe(204)
    const test = await createTest(before, 'http://127.0.0.1:9/unused', ['eu-west'])
    const trigger = await fetch(test.trigger_url, { method: 'POST' })
    const runId = ((await trigger.json()) as Loose).data.runs[0].test_run_id as string
    const claim = await agent(before.url, '/claim', { region: 'eu-west' })
    expect(claim.status).toBe(200)
    const leaseId = ((await claim.json()) as Loose).result.lease.id as string
    await before.platform.close()

    const after = await startMonitorPlatform({
      dataDir: before.dataDir,
      apiKeySecret: before.apiKeySecret,
    })
    expect((await runOf(after, test, runId)).result).toBe('working')
    const posted = await agent(after.url, `/${runId}/result`, {
      leaseId,
      result: { result: 'pass', requests: [] },
    })
    expect(posted.status).toBe(200)
    expect(await runOf(after, test, runId)).toMatchObject({ result: 'pass', agent: ship.id })
  })
})
