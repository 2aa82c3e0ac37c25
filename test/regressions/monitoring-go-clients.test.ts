import { describe, expect, it } from 'vitest'
import {
  expectMonitorError,
  startMonitorPlatform,
  type MonitorPlatform,
} from '../e2e/monitor/helpers.js'

/*
 * The requests of the Go clients of the product (nextrevision/go-runscope, its fork
 * ewilde/go-runscope that the Terraform providers use, sport24ru's provider client), replayed as
 * they send them: Go's default User-Agent, every struct field present (unset strings as ""), and
 * the fields each one decodes read back.
 */

const GO = { 'user-agent': 'Go-http-client/1.1', 'accept-encoding': 'gzip' }

/** nextrevision/go-runscope's Environment struct as encoding/json writes a new one: every field. */
function goEnvironment(name: string, parent = ''): Record<string, unknown> {
  return {
    name,
    id: '',
    parent_environment_id: parent,
    preserve_cookies: false,
    regions: null,
    remote_agents: null,
    script: '',
    test_id: '',
    verify_ssl: false,
    webhooks: null,
    emails: { notify_all: false, notify_on: '', notify_threshold: 0, recipients: null },
    initial_variables: { base: 'https://api.example.com' },
    integrations: null,
  }
}

async function goTest(
  m: MonitorPlatform,
  key: string,
  name: string,
): Promise<{ id: string; default_environment_id: string }> {
  const res = await m.call('POST', `/buckets/${key}/tests`, {
    json: { name, description: '', default_environment_id: '' },
    headers: GO,
  })
  expect(res.status).toBe(201)
  return res.body.data
}

// Defect: empty strings in optional fields were refused (400), so the original Go client could
// create neither a shared nor a test environment.
describe('empty strings from Go clients mean "not sent"', () => {
  it('creates shared and test environments from the full Go struct, parent set or empty', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const shared = await m.call('POST', `/buckets/${key}/environments`, {
      json: goEnvironment('shared'),
      headers: GO,
    })
    expect(shared.status).toBe(201)
    expect(shared.body.data).toMatchObject({
      name: 'shared',
      parent_environment_id: null,
      test_id: null,
      emails: { notify_on: 'all' },
    })
    const test = await goTest(m, key, 'go test')
    expect(
      (await m.call('GET', `/buckets/${key}/tests/${test.id}`)).body.data.description,
    ).toBeNull()
    const own = await m.call('POST', `/buckets/${key}/tests/${test.id}/environments`, {
      json: goEnvironment('own', shared.body.data.id),
      headers: GO,
    })
    expect(own.status).toBe(201)
    expect(own.body.data).toMatchObject({
      name: 'own',
      parent_environment_id: shared.body.data.id,
      test_id: test.id,
    })
    // An update from the same struct keeps what the empty strings did not name.
    const put = await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${own.body.data.id as string}`,
      { json: { ...goEnvironment(''), script: '' }, headers: GO },
    )
    expect(put.status).toBe(200)
    expect(put.body.data).toMatchObject({ name: 'own', parent_environment_id: shared.body.data.id })
    // A schedule with an empty note, a step with empty optional strings.
    expect(
      (
        await m.call('POST', `/buckets/${key}/tests/${test.id}/schedules`, {
          json: { environment_id: test.default_environment_id, interval: '5m', note: '' },
          headers: GO,
        })
      ).status,
    ).toBe(201)
    const step = await m.call('POST', `/buckets/${key}/tests/${test.id}/steps`, {
      json: {
        step_type: 'request',
        id: '',
        method: 'GET',
        url: 'https://api.example.com/',
        comparision: '',
        right_value: '',
        left_value: '',
        integration_id: '',
        suite_id: '',
        test_id: '',
        duration: 0,
        steps: null,
        auth: { auth_type: '' },
      },
      headers: GO,
    })
    expect(step.status).toBe(201)
    // A required field stays required: an empty name is still refused, naming it.
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, {
          json: goEnvironment(''),
          headers: GO,
        }),
        400,
      ),
    ).toContain('/name')
  })
})

// Defect: the step POST answer depended on the User-Agent; the Terraform providers decode `data`
// as the list of steps and take the last one as the step created.
describe('the step POST answers the steps, the new one last', () => {
  it('answers the list that ewilde/go-runscope and sport24ru decode, for any User-Agent', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = await goTest(m, key, 'steps')
    for (const agent of [
      'Go-http-client/1.1',
      'Go-http-client/2.0',
      'Terraform/1.6.0 terraform-provider-runscope/0.15',
      'python-requests/2.31',
    ]) {
      const res = await m.call('POST', `/buckets/${key}/tests/${test.id}/steps`, {
        json: {
          step_type: 'request',
          method: 'GET',
          url: `https://api.example.com/${agent}`,
          assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
          variables: [],
          headers: {},
          auth: {},
          body: '',
          form: {},
          scripts: [],
          before_scripts: [],
          note: agent,
          skipped: false,
        },
        headers: { ...GO, 'user-agent': agent },
      })
      expect(res.status).toBe(201)
      expect(Array.isArray(res.body.data)).toBe(true)
      const created = res.body.data[res.body.data.length - 1]
      expect(created).toMatchObject({
        step_type: 'request',
        url: `https://api.example.com/${agent}`,
        note: agent,
      })
      // The provider reads the step back by the id it took from the list.
      expect(
        (
          await m.call('GET', `/buckets/${key}/tests/${test.id}/steps/${created.id as string}`, {
            headers: GO,
          })
        ).body.data.note,
      ).toBe(agent)
    }
  })
})

// Defects found by the fork's acceptance suite: ordering, interval form, roles, integrations,
// reading a deleted bucket, and deleting a parent environment.
describe('what the ewilde/go-runscope acceptance suite reads', () => {
  it('lists tests newest first and reads intervals back in the product form', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const first = await goTest(m, key, 'first')
    await goTest(m, key, 'second')
    expect(
      (await m.call('GET', `/buckets/${key}/tests`, { headers: GO })).body.data.map(
        (t: { name: string }) => t.name,
      ),
    ).toEqual(['second', 'first'])
    const schedule = await m.call('POST', `/buckets/${key}/tests/${first.id}/schedules`, {
      json: { environment_id: first.default_environment_id, interval: '1h', note: 'hourly' },
      headers: GO,
    })
    expect(schedule.body.data.interval).toBe('1.0h')
    expect(
      (
        await m.call(
          'GET',
          `/buckets/${key}/tests/${first.id}/schedules/${schedule.body.data.id as string}`,
        )
      ).body.data.interval,
    ).toBe('1.0h')
    // The form read back is accepted on the way in, too.
    expect(
      (
        await m.call(
          'PUT',
          `/buckets/${key}/tests/${first.id}/schedules/${schedule.body.data.id as string}`,
          { json: { interval: '1.0d' }, headers: GO },
        )
      ).body.data.interval,
    ).toBe('1.0d')
  })

  it('lists the roles of a team, and answers 404 with the envelope for a deleted bucket', async () => {
    const m = await startMonitorPlatform()
    const roles = await m.call('GET', `/teams/${m.teamId}/roles`, { headers: GO })
    expect(roles.status).toBe(200)
    expect(roles.body.data.map((r: { name: string }) => r.name)).toEqual([
      'viewer',
      'tester',
      'manager',
    ])
    for (const role of roles.body.data) {
      expect(typeof role.uuid).toBe('string')
      expect(Array.isArray(role.permissions)).toBe(true)
    }
    expect((await m.call('GET', `/teams/${m.teamId}/roles/tester`)).body.data.name).toBe('tester')
    const key = await m.bucket('doomed')
    expect((await m.call('DELETE', `/buckets/${key}`, { headers: GO })).status).toBe(204)
    expectMonitorError(await m.call('GET', `/buckets/${key}`, { headers: GO }), 404)
  })

  it('creates and lists integrations, which environments reference by id', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    expect(
      (await m.call('GET', `/teams/${m.teamId}/integrations`, { headers: GO })).body.data,
    ).toEqual([])
    const hook = await m.call('POST', `/teams/${m.teamId}/integrations`, {
      json: {
        integration_type: 'webhook',
        description: 'On-call relay',
        url: 'https://hooks.example.com/runs',
      },
    })
    expect(hook.status).toBe(201)
    const mail = await m.call('POST', `/teams/${m.teamId}/integrations`, {
      json: { type: 'email', recipients: ['ops@example.com'] },
    })
    expect(mail.status).toBe(201)
    const list = (await m.call('GET', `/teams/${m.teamId}/integrations`, { headers: GO })).body.data
    expect(list).toHaveLength(2)
    // go-runscope decodes id, uuid, type and description; the monitoring specification names the type integration_type.
    expect(list[0]).toMatchObject({
      id: hook.body.data.id,
      uuid: hook.body.data.id,
      type: 'webhook',
      integration_type: 'webhook',
      description: 'On-call relay',
    })
    expect(list[1]).toMatchObject({ type: 'email', description: 'ops@example.com' })
    const env = await m.call('POST', `/buckets/${key}/environments`, {
      json: {
        ...goEnvironment('notified'),
        integrations: [
          { id: hook.body.data.id, integration_type: 'webhook', description: '' },
          { id: '', uuid: mail.body.data.id, type: 'email', description: '' },
        ],
      },
      headers: GO,
    })
    expect(env.status).toBe(201)
    expect(env.body.data.integrations).toEqual([
      { id: hook.body.data.id, integration_type: 'webhook', description: 'On-call relay' },
      { id: mail.body.data.id, integration_type: 'email', description: 'ops@example.com' },
    ])
    expect(
      expectMonitorError(
        await m.call('POST', `/buckets/${key}/environments`, {
          json: { name: 'x', integrations: [{ id: 'nope' }] },
        }),
        400,
      ),
    ).toContain('/integrations/0/id')
    expect(
      expectMonitorError(
        await m.call('POST', `/teams/${m.teamId}/integrations`, {
          json: { integration_type: 'slack' },
        }),
        400,
      ),
    ).toContain('/integration_type')
    expect(
      expectMonitorError(
        await m.call('POST', `/teams/${m.teamId}/integrations`, {
          json: { integration_type: 'webhook', url: 'ftp://x' },
        }),
        400,
      ),
    ).toContain('/url')
    expect(
      (await m.call('DELETE', `/teams/${m.teamId}/integrations/${mail.body.data.id as string}`))
        .status,
    ).toBe(204)
    expect((await m.call('GET', `/teams/${m.teamId}/integrations`)).body.data).toHaveLength(1)
  })

  it('refuses (409) to delete a shared environment that a test environment inherits from', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const parent = (
      await m.call('POST', `/buckets/${key}/environments`, {
        json: goEnvironment('parent'),
        headers: GO,
      })
    ).body.data
    const test = await goTest(m, key, 't')
    const child = (
      await m.call('POST', `/buckets/${key}/tests/${test.id}/environments`, {
        json: goEnvironment('child', parent.id),
        headers: GO,
      })
    ).body.data
    expect(
      expectMonitorError(
        await m.call('DELETE', `/buckets/${key}/environments/${parent.id as string}`, {
          headers: GO,
        }),
        409,
      ),
    ).toContain(child.id)
    expect(
      (await m.call('GET', `/buckets/${key}/environments/${parent.id as string}`)).status,
    ).toBe(200)
    expect(
      (
        await m.call(
          'DELETE',
          `/buckets/${key}/tests/${test.id}/environments/${child.id as string}`,
        )
      ).status,
    ).toBe(204)
    expect(
      (await m.call('DELETE', `/buckets/${key}/environments/${parent.id as string}`)).status,
    ).toBe(204)
  })
})
