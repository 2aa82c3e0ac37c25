import { describe, expect, it } from 'vitest'
import { expectMonitorError, startMonitorPlatform, type MonitorPlatform } from './helpers.js'

/*
 * The monitoring API checks request bodies with compiled JSON Schemas and answers the first
 * failing field in the product's one-message error shape: each bad body below gets 400 with
 * exactly the pointer and the words the API has always used, whatever checks them.
 */

const PAUSE_RANGE = 'must be an integer number of seconds from 1 to 120'
let m: MonitorPlatform
let key = ''
let testId = ''
let triggerUrl = ''

/** A platform (closed when the test ends) with a bucket and a test in it. */
async function setUp(): Promise<void> {
  m = await startMonitorPlatform()
  key = await m.bucket()
  const created = await m.call('POST', `/buckets/${key}/tests`, { json: { name: 'checked' } })
  testId = created.body.data.id as string
  triggerUrl = created.body.data.trigger_url as string
}

async function messageOf(
  method: string,
  path: string,
  json: unknown,
  init: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<string> {
  return expectMonitorError(await m.call(method, path, { json, ...init }), 400)
}

describe('monitoring API: the message of each refused body', () => {
  it('names the failing field of a test and its steps', async () => {
    await setUp()
    const cases: Array<[unknown, string]> = [
      [{ name: '   ' }, '/name is required: a string of 1 to 200 characters'],
      [{ name: 'x'.repeat(201) }, '/name is required: a string of 1 to 200 characters'],
      [{ name: 'x', description: 5 }, '/description must be a string or null'],
      [{ name: 'x', steps: {} }, '/steps must be an array of steps'],
      [
        { name: 'x', steps: [{ step_type: 'pause', duration: 0 }] },
        `/steps/0/duration ${PAUSE_RANGE}`,
      ],
      [{ name: 'x', steps: [{ step_type: 'pause' }] }, `/steps/0/duration ${PAUSE_RANGE}`],
      [
        { name: 'x', steps: [{ method: 'FETCH' }] },
        '/steps/0/method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE)',
      ],
      [
        { name: 'x', steps: [{ headers: { a: { b: 1 } } }] },
        '/steps/0/headers/a must be a string or an array of strings',
      ],
      [
        { name: 'x', steps: [{ form: 'a=1' }] },
        '/steps/0/form must be an object of strings or arrays of strings',
      ],
      [
        { name: 'x', steps: [{ assertions: [{ comparison: 'equal' }] }] },
        '/steps/0/assertions/0/source is required and must be a string',
      ],
      [
        { name: 'x', steps: [{ variables: [{ source: 'response_json' }] }] },
        '/steps/0/variables/0/name is required and must be a string',
      ],
      [{ name: 'x', steps: [{ assertions: ['x'] }] }, '/steps/0/assertions/0 must be an object'],
      [{ name: 'x', steps: [{ scripts: ['a', 1] }] }, '/steps/0/scripts/1 must be a string'],
      [
        { name: 'x', steps: [{ auth: { auth_type: 'digest' } }] },
        '/steps/0/auth/auth_type must be basic, oauth_1, oauth_2 or client_certificate',
      ],
      [{ name: 'x', steps: [{ note: 5 }] }, '/steps/0/note must be a string'],
      [
        { name: 'x', steps: [{ step_type: 'pause', duration: 1, skipped: 'no' }] },
        '/steps/0/skipped must be a boolean',
      ],
      [
        { name: 'x', steps: [{ step_type: 'condition', steps: [{ step_type: 'pause' }] }] },
        `/steps/0/steps/0/duration ${PAUSE_RANGE}`,
      ],
      [
        { name: 'x', steps: [{ step_type: 'subtest' }] },
        '/steps/0/test_uuid is required: the id of the test to run',
      ],
      [
        { name: 'x', steps: [{ step_type: 'external-ui-test', start_url: 1 }] },
        '/steps/0/start_url must be a string',
      ],
    ]
    for (const [body, message] of cases) {
      expect(await messageOf('POST', `/buckets/${key}/tests`, body), JSON.stringify(body)).toBe(
        `Invalid request: ${message}`,
      )
    }
  })

  it('names the failing field of an environment, a schedule, an integration, an application and a trigger', async () => {
    await setUp()
    const environments = `/buckets/${key}/environments`
    const cases: Array<[string, unknown, string]> = [
      [
        environments,
        { initial_variables: {} },
        '/name is required: a string of 1 to 200 characters',
      ],
      [
        environments,
        { name: 'e', initial_variables: { a: [] } },
        '/initial_variables/a must be a string',
      ],
      [environments, { name: 'e', verify_ssl: 'yes' }, '/verify_ssl must be a boolean'],
      [
        environments,
        { name: 'e', http_version_support: 'h3' },
        '/http_version_support must be one of h1_1, h2',
      ],
      [environments, { name: 'e', webhooks: [5] }, '/webhooks/0 must be a string'],
      [
        environments,
        { name: 'e', webhooks: ['ftp://x'] },
        '/webhooks/0 must be an http or https URL',
      ],
      [
        environments,
        { name: 'e', emails: { notify_on: 'sometimes' } },
        '/emails/notify_on must be all, failures, threshold or switch',
      ],
      [
        environments,
        { name: 'e', emails: { notify_threshold: -1 } },
        '/emails/notify_threshold must be a non-negative integer',
      ],
      [
        environments,
        { name: 'e', emails: { recipients: ['nobody'] } },
        '/emails/recipients/0/email must be an e-mail address',
      ],
      [
        `/buckets/${key}/tests/${testId}/schedules`,
        { interval: '1m' },
        '/environment_id is required: the id of an environment of the test or its bucket',
      ],
      [
        `/buckets/${key}/tests/${testId}/schedules`,
        { environment_id: 'x', interval: '2m' },
        '/interval must be one of 1m, 5m, 15m, 30m, 1h, 6h, 1d (or 1.0m, 5.0m, 15.0m, 30.0m, 1.0h, 6.0h, 1.0d)',
      ],
      [
        `/teams/${m.teamId}/integrations`,
        { integration_type: 'email', recipients: [] },
        '/recipients is required for an email integration: 1 to 50 e-mail addresses',
      ],
      [
        `/teams/${m.teamId}/integrations`,
        { integration_type: 'email', recipients: [{ email: 'x' }] },
        '/recipients/0 must be an e-mail address (or {email})',
      ],
      [
        `/teams/${m.teamId}/integrations`,
        { integration_type: 'webhook', url: 'https://x', description: 5 },
        '/description must be a string of at most 200 characters',
      ],
      [
        `/teams/${m.teamId}/integrations`,
        { type: 'webhook' },
        '/url is required for a webhook integration: an http or https URL',
      ],
    ]
    for (const [path, body, message] of cases) {
      expect(await messageOf('POST', path, body), `${path} ${JSON.stringify(body)}`).toBe(
        `Invalid request: ${message}`,
      )
    }
    const basic = { token: null, headers: { authorization: m.basic } }
    expect(
      await messageOf(
        'POST',
        '/apps',
        { name: ' ', website_url: 'https://a', callback_url: 'https://a' },
        basic,
      ),
    ).toBe('Invalid request: /name is required: 1 to 200 characters')
    expect(
      await messageOf(
        'POST',
        '/apps',
        { name: 'x', website_url: 'https://a', callback_url: 'https://a', scope: 5 },
        basic,
      ),
    ).toBe('Invalid request: /scope must be a space-separated string of scopes')
    const trigger = await fetch(triggerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: {} }),
    })
    expect(trigger.status).toBe(400)
    expect(((await trigger.json()) as { error: { message: string } }).error.message).toBe(
      'Invalid request: /a must be a string, number or boolean',
    )
  })
})
