import { describe, expect, it } from 'vitest'
import { expectMonitorError, startMonitorPlatform } from '../e2e/monitor/helpers.js'
import { startUpstream } from '../helpers/upstream.js'
import { waitFor } from '../helpers/wait.js'

/* The fields clients of the product decode from teams, buckets, metrics and bucket triggers. */

const person = { uuid: expect.any(String), name: expect.any(String), email: expect.any(String) }

// Defect: teams were `{id, name}` only; clients read owners, counts and people as `{uuid, name, email}`.
describe('teams carry their owner, counts and people', () => {
  it('answers GET /account teams[].owner, GET /teams/{id} and its people', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket('counted')
    const account = (await m.call('GET', '/account')).body.data
    expect(account.teams[0]).toEqual({
      id: m.teamId,
      uuid: m.teamId,
      name: expect.any(String),
      owner: person,
    })
    const team = (await m.call('GET', `/teams/${m.teamId}`)).body.data
    expect(team).toMatchObject({
      uuid: m.teamId,
      name: account.teams[0].name,
      user_count: 1,
      bucket_count: 1,
      created_by: person,
      owned_by: person,
    })
    expect(Number.isInteger(team.created_at)).toBe(true)
    expect(team.buckets).toEqual([expect.objectContaining({ key, name: 'counted' })])
    const people = (await m.call('GET', `/teams/${m.teamId}/people`)).body.data
    expect(people[0]).toMatchObject(person)
    expect(people[0].uuid).toBe(team.owned_by.uuid)
  })
})

// Defect: buckets had no created_at or is_private.
describe('buckets carry created_at and is_private', () => {
  it('answers them on create, read and list', async () => {
    const m = await startMonitorPlatform()
    const before = Math.floor(Date.now() / 1000)
    const created = await m.call('POST', `/buckets?name=dated&team_uuid=${m.teamId}`)
    const key = created.body.data.key as string
    for (const bucket of [
      created.body.data,
      (await m.call('GET', `/buckets/${key}`)).body.data,
      (await m.call('GET', '/buckets')).body.data[0],
    ]) {
      expect(bucket.is_private).toBe(true)
      expect(Number.isInteger(bucket.created_at)).toBe(true)
      expect(bucket.created_at).toBeGreaterThanOrEqual(before)
    }
  })
})

// Defect: intervals of a metrics period without runs answered null, which typed clients reject.
describe('metrics report numbers for intervals without runs', () => {
  it('answers 0 for the ratio and the average, and test_runs 0', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'quiet' } })).body
      .data
    const metrics = (await m.call('GET', `/buckets/${key}/tests/${test.id}/metrics?timeframe=day`))
      .body.data
    expect(metrics.response_times).toHaveLength(24)
    for (const interval of metrics.response_times) {
      expect(interval).toEqual({
        timestamp: expect.any(Number),
        success_ratio: 0,
        avg_response_time_ms: 0,
        test_runs: 0,
      })
    }
  })
})

// Defect: a bucket trigger answered its runs without one id for them, and no resource answered the batch.
describe('a bucket trigger answers runs_id, and the batch is readable', () => {
  it('answers GET /buckets/{key}/results/{runs_id} (and under /v1) until the batch is completed', async () => {
    const target = await startUpstream()
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    for (const name of ['one', 'two']) {
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name,
          steps: [{ step_type: 'request', method: 'GET', url: `${target.url}/${name}` }],
        },
      })
    }
    const bucket = (await m.call('GET', `/buckets/${key}`)).body.data
    const trigger = await fetch(bucket.trigger_url)
    expect(trigger.status).toBe(201)
    const started = (
      (await trigger.json()) as { data: { runs_id: string; runs: Array<{ test_run_id: string }> } }
    ).data
    expect(typeof started.runs_id).toBe('string')
    expect(started.runs).toHaveLength(2)
    let batch: Record<string, unknown> = {}
    await waitFor(
      async () => {
        batch = (await m.call('GET', `/buckets/${key}/results/${started.runs_id}`)).body.data
        return batch['status'] === 'completed'
      },
      'the batch to complete',
      { timeoutMs: 15_000, intervalMs: 50 },
    )
    expect(batch).toMatchObject({
      uuid: started.runs_id,
      status: 'completed',
      total_test_runs: 2,
      test_runs_passed: 2,
      result: 'pass',
    })
    expect(typeof batch['started_at']).toBe('number')
    expect((batch['runs'] as Array<{ test_run_id: string }>).map((r) => r.test_run_id)).toEqual(
      started.runs.map((r) => r.test_run_id),
    )
    expect(
      (await m.call('GET', `/v1/buckets/${key}/results/${started.runs_id}`)).body.data.uuid,
    ).toBe(started.runs_id)
    expectMonitorError(await m.call('GET', `/buckets/${key}/results/unknown`), 404)
    const other = await m.bucket('other')
    expectMonitorError(await m.call('GET', `/buckets/${other}/results/${started.runs_id}`), 404)
  })
})
