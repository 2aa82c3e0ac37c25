import http from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { itRealworld, readRealworld } from '../../helpers/realworld.js'
import { waitFor } from '../../helpers/wait.js'
import { startMonitorPlatform, type MonitorPlatform } from './helpers.js'

/** A local API the tests run against: echoes method, path, query and headers as JSON. */
async function startTarget(): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = http.createServer((req, res) => {
    hits++
    const url = new URL(req.url ?? '/', 'http://x')
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (url.pathname === '/slow') {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end('{"ok":true}')
        }, 300)
        return
      }
      const status = Number(url.searchParams.get('status') ?? 200)
      const body = JSON.stringify({
        method: req.method,
        path: url.pathname,
        args: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        success: true,
        shuffled: true,
        deck_id: 'deck42',
        remaining: 52,
      })
      res.writeHead(status, { 'content-type': 'application/json', 'x-trace': 'abc' })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    hits: () => hits,
  }
}

/** Polls a run URL until it is finished, as the Jenkins plugin does; bounded. */
async function poll(m: MonitorPlatform, url: string): Promise<Record<string, unknown>> {
  let data: Record<string, unknown> = {}
  await waitFor(
    async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${m.token}` } })
      expect(res.status).toBe(200)
      data = ((await res.json()) as { data: Record<string, unknown> }).data
      if (data['result'] === 'pass' || data['result'] === 'fail') return true
      expect(['queued', 'working']).toContain(data['result'])
      return false
    },
    'the run to finish',
    { timeoutMs: 10_000, intervalMs: 50 },
  )
  return data
}

/** Waits until `probe` answers a value, and returns it. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  let value: T | undefined
  await waitFor(
    async () => {
      value = await probe()
      return value !== undefined
    },
    what,
    { timeoutMs: ms, intervalMs: 50 },
  )
  return value as T
}

describe('monitoring runs', () => {
  it('runs a test from its trigger URL with query variables, and the client polls it to pass', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'echo',
          steps: [
            {
              step_type: 'request',
              method: 'GET',
              url: '{{base_url}}/things/{{thing}}',
              assertions: [
                { source: 'response_status', comparison: 'equal_number', value: 200 },
                {
                  source: 'response_json',
                  property: 'path',
                  comparison: 'equal',
                  value: '/things/42',
                },
              ],
            },
          ],
        },
      })
    ).body.data
    const trigger = await fetch(
      `${test.trigger_url}?base_url=${encodeURIComponent(target.url)}&thing=42`,
    )
    expect(trigger.status).toBe(201)
    const started = (
      (await trigger.json()) as {
        data: { runs: Array<Record<string, string>>; runs_started: number }
      }
    ).data
    expect(started.runs_started).toBe(1)
    const run = started.runs[0] ?? {}
    expect(run).toMatchObject({
      test_id: test.id,
      bucket_key: key,
      environment_id: test.default_environment_id,
      variables: { base_url: target.url, thing: '42' },
    })
    const result = await poll(m, run['url'] ?? '')
    expect(result['result'], JSON.stringify(result)).toBe('pass')
    expect(result['test_run_id']).toBe(run['test_run_id'])
    expect(Array.isArray(result['requests'])).toBe(true)
    expect(target.hits()).toBe(1)
    const latest = await m.call('GET', `/buckets/${key}/tests/${test.id}/results/latest`)
    expect(latest.body.data.test_run_id).toBe(run['test_run_id'])
    const list = await m.call('GET', `/buckets/${key}/tests/${test.id}/results`)
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0].requests).toBeUndefined()
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}`)).body.data.last_run.result,
    ).toBe('pass')
  })

  it('fails a run whose assertion does not hold, and a POST trigger takes variables from a JSON body', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'fails',
          steps: [
            {
              step_type: 'request',
              method: 'GET',
              url: '{{base_url}}/?status={{code}}',
              assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
            },
          ],
        },
      })
    ).body.data
    const trigger = await fetch(test.trigger_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ base_url: target.url, code: 503 }),
    })
    expect(trigger.status).toBe(201)
    const run =
      ((await trigger.json()) as { data: { runs: Array<Record<string, string>> } }).data.runs[0] ??
      {}
    expect((await poll(m, run['test_run_url'] ?? ''))['result']).toBe('fail')
    const unknown = await fetch(`${m.url}/radar/00000000-0000-0000-0000-000000000000/trigger`)
    expect(unknown.status).toBe(404)
  })

  it("queues a second trigger behind the first run of the same test, and the bucket's trigger runs every test", async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const key = await m.bucket()
    const steps = [{ step_type: 'request', method: 'GET', url: `${target.url}/slow` }]
    const a = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'a', steps } })).body
      .data
    await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'b', steps } })
    const first =
      (
        (await (await fetch(a.trigger_url)).json()) as {
          data: { runs: Array<Record<string, string>> }
        }
      ).data.runs[0] ?? {}
    const second =
      (
        (await (await fetch(a.trigger_url)).json()) as {
          data: { runs: Array<Record<string, string>> }
        }
      ).data.runs[0] ?? {}
    const queued = await m.call(
      'GET',
      `/buckets/${key}/tests/${a.id}/results/${second['test_run_id'] ?? ''}`,
    )
    expect(queued.body.data.result).toBe('queued')
    expect((await poll(m, first['url'] ?? ''))['result']).toBe('pass')
    expect((await poll(m, second['url'] ?? ''))['result']).toBe('pass')
    const bucket = (await m.call('GET', `/buckets/${key}`)).body.data
    const all = (await (await fetch(bucket.trigger_url)).json()) as {
      data: { runs: Array<Record<string, string>>; runs_started: number }
    }
    expect(all.data.runs_started).toBe(2)
    for (const run of all.data.runs) {
      expect((await poll(m, run['url'] ?? ''))['result']).toBe('pass')
    }
  })

  it('runs a 1m schedule (intervals scaled down for the test), never twice at once, and again after a restart', async () => {
    const m = await startMonitorPlatform({ scheduleScale: 600 })
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'scheduled',
          steps: [{ step_type: 'request', method: 'GET', url: `${target.url}/slow` }],
        },
      })
    ).body.data
    const created = await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
      json: { environment_id: test.default_environment_id, interval: '1m' },
    })
    expect(created.status).toBe(201)
    // "1m" / 600 = a tick every second (croner's finest interval); a tick that finds the test running is skipped.
    const runs = await until('two scheduled runs', async () => {
      const list = (await m.call('GET', `/buckets/${key}/tests/${test.id}/results?count=50`)).body
        .data as Array<{ source: string; result: string }>
      return list.filter((r) => r.result === 'pass' || r.result === 'fail').length >= 2
        ? list
        : undefined
    })
    expect(runs.every((r) => r.source === 'scheduled')).toBe(true)
    expect(
      runs.filter((r) => r.result === 'queued' || r.result === 'working').length,
    ).toBeLessThanOrEqual(1)
    await m.platform.close()
    const again = await startMonitorPlatform({
      scheduleScale: 600,
      dataDir: m.dataDir,
      apiKeySecret: m.apiKeySecret,
    })
    const before = (await again.call('GET', `/buckets/${key}/tests/${test.id}/results?count=50`))
      .body.data as Array<{ test_run_id: string }>
    await until('a run after the restart', async () => {
      const list = (await again.call('GET', `/buckets/${key}/tests/${test.id}/results?count=50`))
        .body.data as Array<{ test_run_id: string; result: string }>
      return list.some(
        (r) => !before.some((b) => b.test_run_id === r.test_run_id) && r.result === 'pass',
      )
        ? list
        : undefined
    })
  })

  it('keeps only the newest runs of a test (retention)', async () => {
    const m = await startMonitorPlatform({ resultRetention: 2 })
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: { name: 'r', steps: [{ step_type: 'request', method: 'GET', url: target.url }] },
      })
    ).body.data
    for (let i = 0; i < 4; i++) {
      const run =
        (
          (await (await fetch(test.trigger_url)).json()) as {
            data: { runs: Array<Record<string, string>> }
          }
        ).data.runs[0] ?? {}
      await poll(m, run['url'] ?? '')
    }
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}/results`)).body.data,
    ).toHaveLength(2)
  })

  itRealworld(
    'replays the real test exports through POST /buckets/{k}/tests and runs them',
    async () => {
      const m = await startMonitorPlatform()
      const target = await startTarget()
      const key = await m.bucket()
      for (const file of [
        'minimal_test.json',
        'deck_of_cards_api_test.json',
        'runscope-export-1.json',
        'runscope-export-2.json',
      ]) {
        // The exports call public hosts; the replay points them at the local target instead.
        const text = readRealworld('runscope', file)
          .toString('utf8')
          .replace(/https?:\/\/(httpbin\.org|deckofcardsapi\.com|yourapihere\.com)/g, target.url)
        const created = await m.call('POST', `/buckets/${key}/tests`, { json: JSON.parse(text) })
        expect(created.status, file).toBe(201)
        const exported = JSON.parse(text) as { name: string; steps?: unknown[] }
        expect(created.body.data.name).toBe(exported.name)
        expect(created.body.data.steps).toHaveLength(exported.steps?.length ?? 1)
        const run =
          (
            (await (await fetch(created.body.data.trigger_url)).json()) as {
              data: { runs: Array<Record<string, string>> }
            }
          ).data.runs[0] ?? {}
        const result = await poll(m, run['url'] ?? '')
        expect(['pass', 'fail'], file).toContain(result['result'])
        expect((result['requests'] as unknown[]).length, file).toBeGreaterThan(0)
      }
    },
  )
})
