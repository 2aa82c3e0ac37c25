import { describe, expect, it } from 'vitest'
import { expectMonitorError, startMonitorPlatform } from './helpers.js'

describe('monitoring API: root, account, buckets', () => {
  it('answers the root links, the account with its teams, a region, under /, /v1 and a doubled slash', async () => {
    const m = await startMonitorPlatform()
    const root = await m.call('GET', '/')
    expect(root.status).toBe(200)
    expect(root.body.meta).toEqual({ status: 'success' })
    expect(root.body.error).toBeNull()
    expect(root.body.data.bucket_list_url).toBe(`${m.url}/buckets`)
    expect(root.body.data.current_account_url).toBe(`${m.url}/account`)
    for (const path of ['/account', '/v1/account', '//account', '/v1//account']) {
      const account = await m.call('GET', path)
      expect(account.status, path).toBe(200)
      expect(account.body.data.teams).toEqual([
        {
          id: m.teamId,
          uuid: m.teamId,
          name: 'Default workspace',
          owner: { uuid: expect.any(String), name: expect.any(String), email: expect.any(String) },
        },
      ])
      expect(account.body.data.email).toBe('admin@understudy.local')
    }
    const regions = await m.call('GET', '/regions')
    expect(regions.body.data.regions).toHaveLength(1)
    const people = await m.call('GET', `/teams/${m.teamId}/people`)
    expect(people.body.data[0].email).toBe('admin@understudy.local')
    expectMonitorError(await m.call('GET', '/teams/999/people'), 404)
  })

  it('creates a bucket from query parameters, lists, reads and deletes it', async () => {
    const m = await startMonitorPlatform()
    const created = await m.call('POST', `/buckets?name=Smoke&team_uuid=${m.teamId}`)
    expect(created.status).toBe(201)
    const bucket = created.body.data
    expect(bucket).toMatchObject({
      name: 'Smoke',
      default: false,
      auth_token: null,
      verify_ssl: true,
      team: { id: m.teamId, name: 'Default workspace' },
    })
    expect(bucket.key).toMatch(/^[a-z0-9]{12}$/)
    expect(bucket.trigger_url).toMatch(new RegExp(`^${m.url}/radar/bucket/[0-9a-f-]{36}/trigger$`))
    expect(bucket.tests_url).toBe(`${m.url}/buckets/${bucket.key}/tests`)
    const list = await m.call('GET', '//buckets')
    expect(list.body.data.map((b: { key: string }) => b.key)).toEqual([bucket.key])
    expect((await m.call('GET', `/v1/buckets/${bucket.key}`)).body.data).toEqual(bucket)
    expect((await m.call('DELETE', `/buckets/${bucket.key}`)).status).toBe(204)
    expectMonitorError(await m.call('GET', `/buckets/${bucket.key}`), 404)
  })

  it('refuses a bucket without name or team, naming the field', async () => {
    const m = await startMonitorPlatform()
    expect(
      expectMonitorError(await m.call('POST', `/buckets?team_uuid=${m.teamId}`), 400),
    ).toContain('/name')
    expect(expectMonitorError(await m.call('POST', '/buckets?name=x'), 400)).toContain('/team_uuid')
    expectMonitorError(await m.call('POST', '/buckets?name=x&team_uuid=424242'), 404)
  })

  it('takes name and team_uuid from a form-encoded body too, as go-runscope sends them', async () => {
    const m = await startMonitorPlatform()
    const res = await fetch(`${m.url}/buckets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${m.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `name=From+Go&team_uuid=${m.teamId}`,
    })
    expect(res.status).toBe(201)
    expect(((await res.json()) as { data: { name: string } }).data.name).toBe('From Go')
  })

  it('answers 401 without a token, with a bad one, and with a platform key (HTTP Basic: tokens only, docs/monitor-api.md)', async () => {
    const m = await startMonitorPlatform()
    const none = await m.call('GET', '/buckets', { token: null })
    expectMonitorError(none, 401)
    expect(none.headers.get('www-authenticate')).toContain('Bearer')
    expectMonitorError(await m.call('GET', '/buckets', { token: 'not-a-token' }), 401)
    expect(
      expectMonitorError(
        await m.call('GET', '/buckets', { token: null, headers: { authorization: m.basic } }),
        401,
      ),
    ).toBe('Missing or invalid credentials')
    expectMonitorError(
      await m.call('GET', '/buckets', {
        token: null,
        headers: { authorization: 'Basic bm9wZTpub3Bl' },
      }),
      401,
    )
    expectMonitorError(await m.call('GET', '/buckets/nope/tests', { token: null }), 401)
    expectMonitorError(await m.call('GET', '/buckets/x/no-such-thing/at/all'), 404)
    expectMonitorError(await m.call('PATCH', '/buckets'), 405)
  })
})

describe('monitoring API: tests', () => {
  it('creates a test with a default environment and a default request step, and shows the list view', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const created = await m.call('POST', `/buckets/${key}/tests`, {
      json: { name: 'New Test', description: 'Made from Python now' },
    })
    expect(created.status).toBe(201)
    const test = created.body.data
    expect(test).toMatchObject({
      name: 'New Test',
      description: 'Made from Python now',
      last_run: null,
      schedules: [],
    })
    expect(typeof test.created_at).toBe('number')
    expect(test.created_at).toBeLessThan(1e11)
    expect(test.created_by).toEqual({
      id: expect.any(String),
      name: 'Understudy Admin',
      email: 'admin@understudy.local',
    })
    expect(test.environments).toHaveLength(1)
    expect(test.environments[0]).toMatchObject({
      id: test.default_environment_id,
      test_id: test.id,
      name: 'Test Settings',
      parent_environment_id: null,
      verify_ssl: true,
    })
    expect(test.steps).toHaveLength(1)
    expect(test.steps[0]).toMatchObject({ step_type: 'request', method: 'GET', skipped: null })
    expect(test.trigger_url).toMatch(new RegExp(`^${m.url}/radar/[0-9a-f-]{36}/trigger$`))
    const list = await m.call('GET', `/buckets/${key}/tests`)
    expect(list.body.data).toEqual([
      {
        id: test.id,
        name: 'New Test',
        description: 'Made from Python now',
        created_at: test.created_at,
        created_by: test.created_by,
        default_environment_id: test.default_environment_id,
      },
    ])
  })

  it('creates an array of tests, pages with count and offset (default 10)', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const many = await m.call('POST', `/buckets/${key}/tests`, {
      json: Array.from({ length: 12 }, (_, i) => ({ name: `t${i}` })),
    })
    expect(many.status).toBe(201)
    expect(many.body.data).toHaveLength(12)
    expect((await m.call('GET', `/buckets/${key}/tests`)).body.data).toHaveLength(10)
    const page = await m.call('GET', `/buckets/${key}/tests?count=3&offset=10`)
    // Newest first, as the product lists them.
    expect(page.body.data.map((t: { name: string }) => t.name)).toEqual(['t1', 't0'])
    expect(
      expectMonitorError(await m.call('GET', `/buckets/${key}/tests?count=-1`), 400),
    ).toContain('count')
  })

  it('updates only the attributes sent, records revisions, and deletes with cascade', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'a', description: 'keep me' } })
    ).body.data
    const put = await m.call('PUT', `/buckets/${key}/tests/${test.id}`, { json: { name: 'b' } })
    expect(put.status).toBe(200)
    expect(put.body.data).toMatchObject({
      name: 'b',
      description: 'keep me',
      default_environment_id: test.default_environment_id,
    })
    expect(put.body.data.steps).toEqual(test.steps)
    const steps = await m.call('PUT', `/buckets/${key}/tests/${test.id}`, {
      json: { steps: [{ step_type: 'pause', duration: 2 }] },
    })
    expect(steps.body.data.steps).toEqual([
      { id: expect.any(String), step_type: 'pause', duration: 2, note: null, skipped: null },
    ])
    const revisions = await m.call('GET', `/buckets/${key}/tests/${test.id}/revisions`)
    expect(revisions.body.data.test_revisions).toHaveLength(3)
    expect(revisions.body.data.test_revisions[0]).toMatchObject({
      item_type: 'radar_test',
      author_email: 'admin@understudy.local',
      bucket_key: key,
    })
    expect(revisions.body.data.env_revisions[test.default_environment_id]).toHaveLength(1)
    const schedule = await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
      json: { environment_id: test.default_environment_id, interval: '1h', note: 'hourly' },
    })
    expect(schedule.status).toBe(201)
    const del = await m.call('DELETE', `/buckets/${key}/tests/${test.id}`)
    expect(del.status).toBe(204)
    expectMonitorError(await m.call('GET', `/buckets/${key}/tests/${test.id}`), 404)
    expectMonitorError(await m.call('GET', `/buckets/${key}/tests/${test.id}/schedules`), 404)
    expect(await m.platform.store.monitoring.listSchedules(test.id)).toEqual([])
    expect(await m.platform.store.monitoring.listEnvironments(key, test.id)).toEqual([])
  })

  it('refuses malformed tests with 400 naming the field, and keeps what was stored', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/tests`, { json: { description: 'no name' } }),
        400,
      ),
    ).toContain('/name')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/tests`, {
          json: { name: 'x', steps: [{ step_type: 'pause', duration: 500 }] },
        }),
        400,
      ),
    ).toContain('/steps/0/duration')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/tests`, {
          json: [{ name: 'ok' }, { name: 'bad', steps: [{ step_type: 'teleport' }] }],
        }),
        400,
      ),
    ).toContain('/1/steps/0/step_type')
    expect((await m.call('GET', `/buckets/${key}/tests`)).body.data).toEqual([])
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'a' } })).body.data
    expect(
      expectMonitorError(
        await m.call('PUT', `/buckets/${key}/tests/${test.id}`, {
          json: { steps: [{ step_type: 'request', headers: { a: { b: 1 } } }] },
        }),
        400,
      ),
    ).toContain('/steps/0/headers/a')
    expect(
      expectMonitorError(
        await m.call('PUT', `/buckets/${key}/tests/${test.id}`, {
          json: { default_environment_id: 'nope' },
        }),
        400,
      ),
    ).toContain('/default_environment_id')
    const res = await fetch(`${m.url}/buckets/${key}/tests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
      body: '{"name": ',
    })
    expect(res.status).toBe(400)
    expect((await m.call('GET', `/buckets/${key}/tests/${test.id}`)).body.data.name).toBe('a')
  })
})

describe('monitoring API: steps', () => {
  it('adds steps (answering the steps, the new one last), reads, updates, reorders and deletes one', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'steps' } })).body
      .data
    const base = `/buckets/${key}/tests/${test.id}/steps`
    const added = await m.call('POST', base, {
      json: {
        step_type: 'request',
        method: 'post',
        url: 'http://example.com/{{id}}',
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 201 }],
      },
    })
    expect(added.status).toBe(201)
    expect(added.body.data).toHaveLength(2)
    const step = added.body.data[1]
    expect(step).toMatchObject({
      step_type: 'request',
      method: 'POST',
      url: 'http://example.com/{{id}}',
      body: null,
      headers: null,
      scripts: null,
      before_scripts: null,
    })
    const pause = (await m.call('POST', base, { json: { step_type: 'pause', duration: 1 } })).body
      .data[2]
    const condition = await m.call('POST', base, {
      json: {
        step_type: 'condition',
        left_value: '{{a}}',
        comparison: 'equal',
        right_value: '1',
        steps: [{ step_type: 'request', url: 'http://x' }],
      },
    })
    expect(condition.body.data[3].steps[0]).toMatchObject({
      step_type: 'request',
      url: 'http://x',
      id: expect.any(String),
    })
    expect((await m.call('GET', `${base}/${step.id}`)).body.data).toEqual(step)
    const updated = await m.call('PUT', `${base}/${step.id}`, { json: { note: 'create it' } })
    expect(updated.body.data).toMatchObject({ id: step.id, note: 'create it', method: 'POST' })
    const order = [pause.id, step.id, test.steps[0].id, condition.body.data[3].id]
    const reordered = await m.call('PUT', base, { json: order })
    expect(reordered.status).toBe(200)
    expect(reordered.body.data.map((s: { id: string }) => s.id)).toEqual(order)
    expect(expectMonitorError(await m.call('PUT', base, { json: [pause.id] }), 400)).toContain(
      'all 4 steps',
    )
    expect((await m.call('DELETE', `${base}/${pause.id}`)).status).toBe(204)
    expect((await m.call('GET', base)).body.data.map((s: { id: string }) => s.id)).toEqual(
      order.slice(1),
    )
    expectMonitorError(await m.call('GET', `${base}/${pause.id}`), 404)
    expect(
      expectMonitorError(await m.call('POST', base, { json: { step_type: 'subtest' } }), 400),
    ).toContain('/test_uuid')
    expect(
      expectMonitorError(
        await m.call('POST', base, {
          json: { step_type: 'request', assertions: [{ comparison: 'equal' }] },
        }),
        400,
      ),
    ).toContain('/assertions/0/source')
  })
})

describe('monitoring API: environments and schedules', () => {
  it('shares bucket environments, inherits through parent_environment_id, and refuses loops and bad fields', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const shared = await m.call('POST', `/buckets/${key}/environments`, {
      json: {
        name: 'Shared',
        initial_variables: { base_url: 'http://a' },
        headers: { 'x-team': 'qa' },
      },
    })
    expect(shared.status).toBe(201)
    expect(shared.body.data).toMatchObject({
      name: 'Shared',
      test_id: null,
      initial_variables: { base_url: 'http://a' },
    })
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const child = await m.call('POST', `/buckets/${key}/tests/${test.id}/environments`, {
      json: {
        name: 'Child',
        parent_environment_id: shared.body.data.id,
        initial_variables: { x: 1 },
      },
    })
    expect(child.status).toBe(201)
    expect(child.body.data).toMatchObject({
      test_id: test.id,
      parent_environment_id: shared.body.data.id,
      initial_variables: { x: '1' },
    })
    const put = await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${child.body.data.id}`,
      { json: { verify_ssl: false } },
    )
    expect(put.body.data).toMatchObject({
      name: 'Child',
      verify_ssl: false,
      initial_variables: { x: '1' },
    })
    expect((await m.call('GET', `/buckets/${key}/environments`)).body.data).toHaveLength(1)
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}/environments`)).body.data,
    ).toHaveLength(2)
    expect(
      expectMonitorError(
        await m.call('PUT', `/buckets/${key}/environments/${shared.body.data.id}`, {
          json: { parent_environment_id: shared.body.data.id },
        }),
        400,
      ),
    ).toContain('loop')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, { json: { initial_variables: {} } }),
        400,
      ),
    ).toContain('/name')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, {
          json: { name: 'e', webhooks: ['ftp://x'] },
        }),
        400,
      ),
    ).toContain('/webhooks/0')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, {
          json: { name: 'e', emails: { notify_on: 'sometimes' } },
        }),
        400,
      ),
    ).toContain('/emails/notify_on')
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, {
          json: { name: 'e', parent_environment_id: 'nope' },
        }),
        400,
      ),
    ).toContain('/parent_environment_id')
  })

  it('creates, reads, updates and deletes schedules; refuses unknown intervals and environments', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const base = `/buckets/${key}/tests/${test.id}/schedules`
    const created = await m.call('POST', base, {
      json: { environment_id: test.default_environment_id, interval: '1d' },
    })
    expect(created.body.data).toMatchObject({
      environment_id: test.default_environment_id,
      interval: '1.0d',
      note: null,
    })
    const put = await m.call('PUT', `${base}/${created.body.data.id}`, { json: { note: 'daily' } })
    expect(put.body.data).toMatchObject({ interval: '1.0d', note: 'daily' })
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}`)).body.data.schedules,
    ).toHaveLength(1)
    expect(
      expectMonitorError(
        await m.call('POST', base, {
          json: { environment_id: test.default_environment_id, interval: '2m' },
        }),
        400,
      ),
    ).toContain('/interval')
    expect(
      expectMonitorError(
        await m.call('POST', base, { json: { environment_id: 'nope', interval: '1m' } }),
        400,
      ),
    ).toContain('/environment_id')
    expect((await m.call('DELETE', `${base}/${created.body.data.id}`)).status).toBe(204)
    expect((await m.call('GET', base)).body.data).toEqual([])
  })
})

describe('monitoring API: hostile input', () => {
  it('answers 400, never 500, for deeply nested, oversized or mistyped bodies, and keeps serving', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const res = await fetch(`${m.url}/buckets/${key}/tests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
      body: `{"name":"x","steps":[{"step_type":"request","args":${deep}}]}`,
    })
    expect(res.status).toBe(400)
    expectMonitorError(
      await m.call('POST', `/buckets/${key}/tests`, {
        json: Array.from({ length: 101 }, () => ({ name: 'x' })),
      }),
      400,
    )
    expectMonitorError(
      await m.call('POST', `/buckets/${key}/tests`, { json: 'just a string' }),
      400,
    )
    expectMonitorError(
      await m.call('POST', `/buckets/${key}/tests`, {
        json: { name: 'x' },
        headers: { 'content-type': 'text/plain' },
      }),
      415,
    )
    expectMonitorError(await m.call('GET', `/buckets/${'k'.repeat(2000)}/tests`), 404)
    expect((await m.call('GET', '/buckets')).status).toBe(200)
  })
})

describe('monitoring API: trigger URLs', () => {
  it('starts one run per environment named, answers 400 for an environment of another test, 404 for an unknown trigger', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: { name: 't', steps: [{ step_type: 'pause', duration: 1 }] },
      })
    ).body.data
    const other = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'o' } })).body.data
    const shared = (
      await m.call('POST', `/buckets/${key}/environments`, { json: { name: 'Staging' } })
    ).body.data
    const res = await fetch(
      `${test.trigger_url}?runscope_environment=${test.default_environment_id}&runscope_environment=${shared.id}&x=1`,
    )
    expect(res.status).toBe(201)
    const body = (await res.json()) as {
      data: {
        runs: Array<{
          environment_id: string
          environment_name: string
          variables: Record<string, string>
          status: string
        }>
        runs_started: number
      }
    }
    expect(body.data.runs_started).toBe(2)
    expect(body.data.runs.map((r) => r.environment_name)).toEqual(['Test Settings', 'Staging'])
    expect(body.data.runs[0]?.variables).toEqual({ x: '1' })
    const wrong = await fetch(
      `${test.trigger_url}?runscope_environment=${other.default_environment_id}`,
    )
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toContain(
      'runscope_environment',
    )
    expect((await fetch(`${m.url}/radar/nope/trigger`, { method: 'POST' })).status).toBe(404)
    expect((await fetch(`${m.url}/radar/bucket/nope/trigger`)).status).toBe(404)
  })
})
