import http from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { expectMonitorError, startMonitorPlatform, type MonitorPlatform } from './helpers.js'
import { waitFor } from '../../helpers/wait.js'

/* The calls of go-runscope and the Terraform providers, and the product resources clients read. */

const GO = { 'user-agent': 'Go-http-client/1.1' }

/** A local API: `/?status=N` answers N, anything else 200 with a small JSON body. */
async function startTarget(): Promise<string> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    res.writeHead(Number(url.searchParams.get('status') ?? 200), {
      'content-type': 'application/json',
    })
    res.end(JSON.stringify({ path: url.pathname }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
}

/** Triggers a test and waits (bounded) until the run is finished. */
async function runOnce(m: MonitorPlatform, triggerUrl: string, query: string): Promise<void> {
  const trigger = await fetch(`${triggerUrl}?${query}`)
  expect(trigger.status).toBe(201)
  const url =
    ((await trigger.json()) as { data: { runs: Array<{ test_run_url: string }> } }).data.runs[0]
      ?.test_run_url ?? ''
  await waitFor(
    async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${m.token}` } })
      const result = ((await res.json()) as { data: { result: string } }).data.result
      return result === 'pass' || result === 'fail'
    },
    'the run to finish',
    { timeoutMs: 10_000, intervalMs: 50 },
  )
}

describe('go-runscope and the Terraform providers', () => {
  it('answers a step POST with the steps, the new one last, whoever asks (what both Terraform providers decode)', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const step = {
      step_type: 'request',
      method: 'GET',
      url: 'https://example.com/a',
      assertions: [],
      variables: [],
      headers: { Accept: ['application/json'] },
      form: {},
      scripts: [],
      before_scripts: [],
      note: 'terraform',
    }

    const go = await m.call('POST', `/buckets/${key}/tests/${test.id}/steps`, {
      json: step,
      headers: GO,
    })
    expect(go.status).toBe(201)
    expect(Array.isArray(go.body.data)).toBe(true)
    expect(go.body.data).toHaveLength(2)
    expect(go.body.data[1]).toMatchObject({
      step_type: 'request',
      url: 'https://example.com/a',
      note: 'terraform',
      headers: { Accept: ['application/json'] },
    })
    expect(typeof go.body.data[1].id).toBe('string')

    // The answer does not depend on the User-Agent.
    const other = await m.call('POST', `/buckets/${key}/tests/${test.id}/steps`, {
      json: { ...step, note: 'curl' },
      headers: { 'user-agent': 'curl/8' },
    })
    expect(other.status).toBe(201)
    expect(other.body.data).toHaveLength(3)
    expect(other.body.data[2].note).toBe('curl')

    // The step's own calls: read, update (answers the step), delete (204).
    const id = go.body.data[1].id as string
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}/steps/${id}`, { headers: GO })).body
        .data.note,
    ).toBe('terraform')
    expect(
      (
        await m.call('PUT', `/buckets/${key}/tests/${test.id}/steps/${id}`, {
          json: { ...step, id, note: 'changed' },
          headers: GO,
        })
      ).body.data,
    ).toMatchObject({ id, note: 'changed' })
    const gone = await m.call('DELETE', `/buckets/${key}/tests/${test.id}/steps/${id}`, {
      headers: GO,
    })
    expect(gone.status).toBe(204)
  })

  it("serves go-runscope's misspelled environment paths and the shapes its decoder needs", async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const shared = (
      await m.call('POST', `/buckets/${key}/environments`, {
        json: { name: 'shared', initial_variables: { a: '1' } },
        headers: GO,
      })
    ).body.data
    // UpdateSharedEnvironment: /buckets/{k}/Environments/{id}
    const updated = await m.call('PUT', `/buckets/${key}/Environments/${shared.id}`, {
      json: { name: 'renamed' },
      headers: GO,
    })
    expect(updated.status).toBe(200)
    expect(updated.body.data).toMatchObject({
      id: shared.id,
      name: 'renamed',
      initial_variables: { a: '1' },
    })
    // DeleteTestEnvironment: /buckets/{k}/environments/{test}/tests/{environment}
    const own = (
      await m.call('POST', `/buckets/${key}/tests/${test.id}/environments`, {
        json: { name: 'own' },
        headers: GO,
      })
    ).body.data
    expect(
      (
        await m.call('DELETE', `/buckets/${key}/environments/${test.id}/tests/${own.id}`, {
          headers: GO,
        })
      ).status,
    ).toBe(204)
    expectMonitorError(
      await m.call('GET', `/buckets/${key}/tests/${test.id}/environments/${own.id}`),
      404,
    )
    expectMonitorError(
      await m.call('DELETE', `/buckets/${key}/environments/${test.id}/tests/${shared.id}`),
      404,
    )

    // Values Go decodes into strings and integers must be JSON strings and integers.
    const account = (await m.call('GET', '/account')).body.data
    expect(typeof account.id).toBe('string')
    expect(typeof account.teams[0].id).toBe('string')
    const detail = (await m.call('GET', `/buckets/${key}/tests/${test.id}`)).body.data
    expect(Number.isInteger(detail.created_at)).toBe(true)
    expect(typeof detail.created_by.id).toBe('string')
    const schedule = (
      await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
        json: { environment_id: test.default_environment_id, interval: '1h', note: 'n' },
        headers: GO,
      })
    ).body.data
    expect(Number.isInteger(schedule.exported_at)).toBe(true)
    expect((await m.call('GET', '/regions')).body.data.regions[0]).toMatchObject({
      region_code: 'local',
    })
  })
})

describe('product resources: metrics, messages, collections', () => {
  it('computes test metrics from stored runs, in the envelope and at the top of the body', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'm',
          steps: [
            {
              step_type: 'request',
              method: 'GET',
              url: '{{base}}/?status={{code}}',
              assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
            },
          ],
        },
      })
    ).body.data
    const empty = await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics`)
    expect(empty.status).toBe(200)
    expect(empty.body.data.this_time_period.total_test_runs).toBe(0)
    expect(empty.body.data.this_time_period.response_time_50th_percentile).toBeNull()

    await runOnce(m, test.trigger_url, `base=${encodeURIComponent(target)}&code=200`)
    await runOnce(m, test.trigger_url, `base=${encodeURIComponent(target)}&code=500`)
    const res = await m.call(
      'GET',
      `/buckets/${key}/tests/${test.id}/metrics?region=all&timeframe=day&environment_uuid=all`,
    )
    expect(res.status).toBe(200)
    const metrics = res.body.data
    expect(metrics).toMatchObject({ timeframe: 'day', region: 'all', environment_uuid: 'all' })
    expect(metrics.response_times).toHaveLength(24)
    const filled = (
      metrics.response_times as Array<{
        timestamp: number
        success_ratio: number
        avg_response_time_ms: number
        test_runs: number
      }>
    ).filter((r) => r.test_runs > 0)
    // Both runs fall in the current hour's interval (or, across an hour boundary, one in each).
    if (filled.length === 1) expect(filled[0]?.success_ratio).toBe(0.5)
    else expect(filled.map((r) => r.success_ratio).sort()).toEqual([0, 1])
    expect(Number.isInteger(filled[0]?.avg_response_time_ms)).toBe(true)
    expect(metrics.this_time_period.total_test_runs).toBe(2)
    expect(typeof metrics.this_time_period.response_time_95th_percentile).toBe('number')
    expect(metrics.change_from_last_period.total_test_runs).toBeNull()
    // go-runscope reads the figures unwrapped.
    const raw = res.body as unknown as Record<string, unknown>
    expect(raw['response_times']).toEqual(metrics.response_times)
    expect(raw['this_time_period']).toEqual(metrics.this_time_period)
    expect(raw['change_from_last_period']).toEqual(metrics.change_from_last_period)
    expect(res.body.meta).toEqual({ status: 'success' })

    // Another environment filters the runs out; bad parameters are 400 naming the field.
    const other = (
      await m.call('POST', `/buckets/${key}/environments`, { json: { name: 'other' } })
    ).body.data
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics?environment_uuid=${other.id}`))
        .body.data.this_time_period.total_test_runs,
    ).toBe(0)
    expect(
      expectMonitorError(
        await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics?timeframe=year`),
        400,
      ),
    ).toContain('/timeframe')
    expect(
      expectMonitorError(
        await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics?region=us1`),
        400,
      ),
    ).toContain('/region')
    expect(
      expectMonitorError(
        await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics?environment_uuid=nope`),
        400,
      ),
    ).toContain('/environment_uuid')
  })

  it('lists the requests of runs as bucket messages, errors apart, with one message in detail; collections are empty', async () => {
    const m = await startMonitorPlatform()
    const target = await startTarget()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'msg',
          steps: [
            { step_type: 'request', method: 'GET', url: '{{base}}/ok' },
            { step_type: 'request', method: 'GET', url: '{{base}}/?status=404' },
          ],
        },
      })
    ).body.data
    expect((await m.call('GET', `/buckets/${key}/messages`)).body.data).toEqual([])
    await runOnce(m, test.trigger_url, `base=${encodeURIComponent(target)}`)

    const list = await m.call('GET', `/buckets/${key}/messages`)
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(2)
    expect(list.body.data.map((x: { request: { url: string } }) => x.request.url).sort()).toEqual([
      `${target}/?status=404`,
      `${target}/ok`,
    ])
    expect(list.body.data[0].request.headers).toBeUndefined()
    expect((await m.call('GET', `/buckets/${key}/stream`)).body.data).toEqual(list.body.data)
    expect((await m.call('GET', `/buckets/${key}/messages?count=1`)).body.data).toHaveLength(1)
    expect((await m.call('GET', `/buckets/${key}/messages?before=1`)).body.data).toEqual([])
    expect(
      expectMonitorError(await m.call('GET', `/buckets/${key}/messages?since=yesterday`), 400),
    ).toContain('/since')

    const errors = (await m.call('GET', `/buckets/${key}/errors`)).body.data
    expect(errors).toHaveLength(1)
    expect(errors[0].response.status).toBe(404)
    const one = await m.call('GET', `/buckets/${key}/messages/${errors[0].uuid as string}`)
    expect(one.body.data).toMatchObject({
      test_id: test.id,
      request: { method: 'GET' },
      response: { status: 404, body: '{"path":"/"}' },
    })
    expect(typeof one.body.data.response.response_time).toBe('number')
    expectMonitorError(await m.call('GET', `/buckets/${key}/messages/unknown`), 404)

    expect((await m.call('GET', '/collections')).body.data).toEqual([])
    expect((await m.call('GET', `/buckets/${key}/collections`)).body.data).toEqual([])
    expect((await m.call('GET', '//v1/collections')).status).toBe(200)
  })
})
