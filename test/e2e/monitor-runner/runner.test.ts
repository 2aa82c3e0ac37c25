import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  resolveEnvironment,
  runTest,
  type EnvironmentDoc,
  type RunnableTest,
  type Step,
  type StepResult,
  type TestRunResult,
} from '../../../src/monitor/index.js'
import { closeSandbox } from '../../../src/monitor/sandbox.js'
import { CLIENT, OAUTH1, startTarget, type TargetServer } from './server.js'

let target: TargetServer
beforeAll(async () => {
  target = await startTarget()
})
afterAll(async () => {
  await target.close()
  await closeSandbox()
})

const noSleep = { sleep: async (): Promise<void> => {} }

async function run(
  steps: Step[],
  env: EnvironmentDoc = {},
  extra: Partial<Parameters<typeof runTest>[0]> = {},
): Promise<TestRunResult> {
  const test: RunnableTest = { id: 'test-1', name: 'runner e2e', steps }
  return await runTest(
    {
      test,
      environment: resolveEnvironment([{ initial_variables: { base: target.url }, ...env }]),
      testRunId: 'run-1',
      ...extra,
    },
    noSleep,
  )
}

function only(result: TestRunResult, index = 0): StepResult {
  const step = result.requests[index]
  if (step === undefined) throw new Error(`no step ${index}`)
  return step
}

describe('runTest: request steps', () => {
  it('sends method, url, headers, body and form with substitution, and reports the product result shape', async () => {
    const result = await run(
      [
        {
          step_type: 'request',
          id: 's1',
          method: 'POST',
          url: '{{base}}/echo?q={{url_encode("a b")}}',
          headers: { 'X-One': ['1', '2'], 'Content-Type': 'text/plain' },
          body: 'id={{id}}',
          assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
        },
        {
          step_type: 'request',
          id: 's2',
          method: 'PUT',
          url: '{{base}}/echo',
          form: { a: ['1'], b: 'x {{id}}' },
        },
      ],
      { initial_variables: { base: target.url, id: '42' } },
    )
    expect(result).toMatchObject({
      test_run_id: 'run-1',
      result: 'pass',
      requests_executed: 2,
      assertions_defined: 1,
      assertions_passed: 1,
      assertions_failed: 0,
    })
    expect(typeof result.started_at).toBe('number')
    expect(result.finished_at).toBeGreaterThanOrEqual(result.started_at)
    const first = target.seen.find((s) => s.url === '/echo?q=a%20b')
    expect(first).toMatchObject({ method: 'POST', body: 'id=42' })
    expect(first?.headers['x-one']).toBe('1, 2')
    const form = target.seen.at(-1)
    expect(form).toMatchObject({ method: 'PUT', body: 'a=1&b=x+42' })
    expect(form?.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(only(result)).toMatchObject({
      uuid: 's1',
      step_type: 'request',
      method: 'POST',
      status_code: 200,
      response_status_code: '200',
      result: 'pass',
    })
    expect(only(result).response_size_bytes).toBeGreaterThan(0)
    expect(only(result).request?.headers['X-One']).toEqual(['1', '2'])
  })

  it('merges environment headers under step headers', async () => {
    await run(
      [
        {
          step_type: 'request',
          url: '{{base}}/echo?env-headers',
          headers: { 'X-Step': 's', 'X-Both': 'step' },
        },
      ],
      { headers: { 'X-Env': ['e'], 'X-Both': ['env'] } },
    )
    const seen = target.seen.find((s) => s.url === '/echo?env-headers')
    expect(seen?.headers['x-env']).toBe('e')
    expect(seen?.headers['x-step']).toBe('s')
    expect(seen?.headers['x-both']).toBe('step')
  })

  it('fails a step that gets no response, with the reason, and keeps running', async () => {
    const result = await run([
      {
        step_type: 'request',
        url: 'http://127.0.0.1:1/nothing',
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
      { step_type: 'request', url: 'not a url' },
      { step_type: 'request', url: '{{base}}/json' },
    ])
    expect(result.result).toBe('fail')
    expect(only(result, 0)).toMatchObject({
      result: 'fail',
      error: expect.stringMatching(/^the request failed/) as unknown,
    })
    expect(only(result, 0).assertions[0]).toMatchObject({ result: 'fail', error: 'no response' })
    expect(only(result, 1)).toMatchObject({
      result: 'fail',
      error: 'the URL "not a url" is not an absolute http(s) URL',
    })
    expect(only(result, 2).result).toBe('pass')
  })
})

describe('runTest: assertions', () => {
  /** [source, property, comparison, passing value, failing value] */
  const table: Array<[string, string, string, unknown, unknown]> = [
    ['response_status', '', 'equal_number', 200, 404],
    ['response_status', '', 'is_equal', 200, 201],
    ['response_status', '', 'is_less_than', 300, 200],
    ['response_status', '', 'is_less_than_or_equal', 200, 199],
    ['response_status', '', 'is_greater_than', 199, 200],
    ['response_status', '', 'is_greater_than_or_equal', 200, 201],
    ['response_headers', 'Content-Type', 'contains', 'json', 'xml'],
    ['response_headers', 'X-Custom', 'equal', 'abc', 'abd'],
    ['response_headers', 'X-Custom', 'not_equal', 'xyz', 'abc'],
    ['response_headers', 'X-Custom', 'does_not_contain', 'zz', 'ab'],
    ['response_headers', 'X-Count', 'is_a_number', null, null],
    ['response_headers', 'X-Custom', 'not_empty', null, null],
    ['response_json', 'name', 'equal', 'widget', 'gadget'],
    ['response_json', 'ok', 'equal', 'true', 'false'],
    ['response_json', 'price', 'equal_number', '12.5', '12'],
    ['response_json', 'tags', 'contains', 'b', 'c'],
    ['response_json', 'tags[0]', 'equal', 'a', 'b'],
    ['response_json', 'nested', 'has_key', 'k', 'x'],
    ['response_json', 'nested', 'has_value', 'v', 'w'],
    ['response_json', 'nothing', 'is_null', null, null],
    ['response_json', 'empty', 'empty', null, null],
    ['response_json', '$.nested.k', 'equal', 'v', 'w'],
    ['response_text', '', 'contains', 'widget', 'gizmo'],
    ['response_time', '', 'is_less_than', 60_000, 0],
    ['response_size', '', 'is_greater_than', 10, 100_000],
  ]

  it.each(table)('%s %s %s', async (source, property, comparison, good, bad) => {
    const unary = good === null
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/json',
        assertions: unary
          ? [{ source, property, comparison, value: null }]
          : [
              { source, property, comparison, value: good as string },
              { source, property, comparison, value: bad as string },
            ],
      },
    ])
    const assertions = only(result).assertions
    expect(assertions[0]?.result, JSON.stringify(assertions[0])).toBe('pass')
    if (!unary) {
      expect(assertions[1]?.result, JSON.stringify(assertions[1])).toBe('fail')
      expect(result.result).toBe('fail')
    }
  })

  it('checks unary comparisons negatively too', async () => {
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/json',
        assertions: [
          { source: 'response_json', property: 'name', comparison: 'is_a_number' },
          { source: 'response_json', property: 'name', comparison: 'is_null' },
          { source: 'response_json', property: 'name', comparison: 'empty' },
          { source: 'response_json', property: 'empty', comparison: 'not_empty' },
        ],
      },
    ])
    expect(only(result).assertions.map((a) => a.result)).toEqual(['fail', 'fail', 'fail', 'fail'])
  })

  it('reads XML with XPath and plain text', async () => {
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/xml',
        assertions: [
          {
            source: 'response_xml',
            property: '/order/status',
            comparison: 'equal',
            value: 'shipped',
          },
          { source: 'response_xml', property: '/order/id', comparison: 'equal_number', value: 8 },
          { source: 'response_text', comparison: 'contains', value: '<id>7</id>' },
        ],
      },
      {
        step_type: 'request',
        url: '{{base}}/text',
        assertions: [{ source: 'response_text', comparison: 'equal', value: 'hello world' }],
      },
    ])
    expect(only(result).assertions.map((a) => [a.result, a.actual_value])).toEqual([
      ['pass', 'shipped'],
      ['fail', '7'],
      ['pass', expect.any(String) as unknown],
    ])
    expect(only(result, 1).result).toBe('pass')
  })

  it('reports the actual and target values, and unknown comparisons or sources', async () => {
    const result = await run(
      [
        {
          step_type: 'request',
          url: '{{base}}/json',
          assertions: [
            {
              source: 'response_json',
              property: 'id',
              comparison: 'equal_number',
              value: '{{expected}}',
            },
            { source: 'response_json', property: 'id', comparison: 'sounds_like', value: '7' },
            { source: 'response_magic', comparison: 'equal', value: '7' },
          ],
        },
      ],
      { initial_variables: { base: target.url, expected: '7' } },
    )
    expect(only(result).assertions).toEqual([
      {
        source: 'response_json',
        property: 'id',
        comparison: 'equal_number',
        target_value: '7',
        actual_value: 7,
        result: 'pass',
        error: null,
      },
      expect.objectContaining({ result: 'fail', error: 'unknown comparison "sounds_like"' }),
      expect.objectContaining({ result: 'fail', error: 'unknown source "response_magic"' }),
    ])
  })
})

describe('runTest: variables, scripts and step types', () => {
  it('passes variables between steps, from every source', async () => {
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/json',
        variables: [
          { name: 'item_id', source: 'response_json', property: 'id' },
          { name: 'custom', source: 'response_headers', property: 'X-Custom' },
          { name: 'status', source: 'response_status' },
          { name: 'size', source: 'response_size' },
          { name: 'time', source: 'response_time' },
          { name: 'whole', source: 'response_text' },
          { name: 'missing', source: 'json', property: 'no.such.thing' },
        ],
      },
      {
        step_type: 'request',
        url: '{{base}}/xml',
        variables: [{ name: 'order_status', source: 'xml', property: '/order/status' }],
      },
      {
        step_type: 'request',
        url: '{{base}}/echo?id={{item_id}}&h={{custom}}&s={{status}}&o={{order_status}}',
        assertions: [
          { source: 'response_json', property: 'args.id', comparison: 'equal', value: '7' },
          { source: 'response_json', property: 'args.o', comparison: 'equal', value: 'shipped' },
        ],
      },
    ])
    expect(
      only(result)
        .variables.slice(0, 3)
        .map((v) => [v.name, v.value, v.result]),
    ).toEqual([
      ['item_id', '7', 'pass'],
      ['custom', 'abc', 'pass'],
      ['status', '200', 'pass'],
    ])
    expect(only(result).variables.at(-1)).toMatchObject({ name: 'missing', result: 'fail' })
    expect(result).toMatchObject({ variables_defined: 8, variables_passed: 7, variables_failed: 1 })
    expect(target.seen.at(-1)?.url).toBe('/echo?id=7&h=abc&s=200&o=shipped')
    expect(result.variables['item_id']).toBe('7')
    expect(result.result).toBe('pass')
  })

  it('runs environment, pre-request and post-response scripts in order, with their results', async () => {
    const result = await run(
      [
        {
          step_type: 'request',
          url: '{{base}}/echo?from_env={{env_var}}&pre={{pre}}',
          before_scripts: [
            "variables.set('pre', 'p' + variables.get('env_var')); request.headers['X-Script'] = 'yes'; log('before')",
          ],
          scripts: [
            "var body = JSON.parse(response.body); variables.set('echoed', body.args.pre); assert.equal(response.status, 200); log('after', body.args.from_env)",
            "assert.equal(1, 2, 'deliberately failing')",
          ],
          assertions: [
            {
              source: 'response_json',
              property: 'args.pre',
              comparison: 'equal',
              value: '{{echoed}}',
            },
          ],
        },
      ],
      { script: "variables.set('env_var', 'E')" },
    )
    expect(target.seen.at(-1)?.url).toBe('/echo?from_env=E&pre=pE')
    expect(target.seen.at(-1)?.headers['x-script']).toBe('yes')
    expect(result.scripts).toEqual([
      { kind: 'environment_script', result: 'pass', output: '', error: null },
    ])
    expect(only(result).scripts).toEqual([
      { kind: 'before_script', result: 'pass', output: 'before', error: null },
      { kind: 'script', result: 'pass', output: 'after E', error: null },
      { kind: 'script', result: 'fail', output: '', error: 'AssertionError: deliberately failing' },
    ])
    expect(only(result).assertions[0]?.result).toBe('pass')
    expect(result).toMatchObject({
      result: 'fail',
      scripts_defined: 4,
      scripts_passed: 3,
      scripts_failed: 1,
    })
  })

  it('reports a runaway script in the result and goes on', async () => {
    const test: RunnableTest = {
      id: 't',
      name: 'loop',
      steps: [
        {
          step_type: 'request',
          url: '{{base}}/json',
          scripts: ['while (true) {}', "require('fs')"],
        },
        { step_type: 'request', url: '{{base}}/json' },
      ],
    }
    const result = await runTest(
      {
        test,
        environment: resolveEnvironment([{ initial_variables: { base: target.url } }]),
        testRunId: 'r',
      },
      { ...noSleep, scriptTimeMs: 200 },
    )
    expect(only(result).scripts.map((s) => s.error)).toEqual([
      'the script was stopped: it ran longer than the time limit',
      "ReferenceError: 'require' is not defined",
    ])
    expect(only(result, 1).result).toBe('pass')
  })

  it('runs every step type: pause, condition (held and not), subtest with variables in and back, skipped, external UI', async () => {
    const slept: number[] = []
    const subtest: RunnableTest = {
      id: 'sub-1',
      name: 'login',
      steps: [
        {
          step_type: 'request',
          url: '{{base}}/echo?user={{user}}',
          variables: [{ name: 'session', source: 'response_json', property: 'args.user' }],
        },
      ],
    }
    const steps: Step[] = [
      {
        step_type: 'request',
        id: 'r1',
        url: '{{base}}/json',
        variables: [{ name: 'name', source: 'response_json', property: 'name' }],
      },
      { step_type: 'pause', id: 'p1', duration: 3 },
      {
        step_type: 'condition',
        id: 'c1',
        left_value: '{{name}}',
        comparison: 'equal',
        right_value: 'widget',
        steps: [{ step_type: 'request', id: 'c1r', url: '{{base}}/echo?cond=yes' }],
      },
      {
        step_type: 'condition',
        id: 'c2',
        left_value: '{{name}}',
        comparison: 'equal',
        right_value: 'gadget',
        steps: [{ step_type: 'request', id: 'c2r', url: '{{base}}/echo?cond=no' }],
      },
      {
        step_type: 'subtest',
        id: 'st',
        test_uuid: 'sub-1',
        params: [{ name: 'user', value: 'u-{{name}}' }],
        variables: [{ name: 'parent_session', source: 'subtest_variable', property: 'session' }],
        assertions: [
          { source: 'response_json', property: 'result', comparison: 'equal', value: 'pass' },
        ],
      },
      { step_type: 'request', id: 'after', url: '{{base}}/echo?session={{parent_session}}' },
      { step_type: 'request', id: 'skip', url: '{{base}}/echo?skipped', skipped: true },
      { step_type: 'external-ui-test', id: 'ui', integration_id: 'i', suite_id: 's', test_id: 't' },
    ]
    const result = await runTest(
      {
        test: { id: 'main', name: 'main', steps },
        environment: resolveEnvironment([{ initial_variables: { base: target.url } }]),
        testRunId: 'run-all',
        resolveSubtest: async (ref) =>
          ref.test_uuid === 'sub-1'
            ? {
                test: subtest,
                environment: resolveEnvironment([{ initial_variables: { base: target.url } }]),
              }
            : null,
      },
      {
        sleep: async (ms) => {
          slept.push(ms)
        },
      },
    )
    expect(slept).toEqual([3000])
    expect(result.requests.map((r) => [r.uuid, r.step_type, r.result])).toEqual([
      ['r1', 'request', 'pass'],
      ['p1', 'pause', 'pass'],
      ['c1', 'condition', 'pass'],
      ['c2', 'condition', 'pass'],
      ['st', 'subtest', 'pass'],
      ['after', 'request', 'pass'],
      ['skip', 'request', 'skipped'],
      ['ui', 'external-ui-test', 'fail'],
    ])
    expect(only(result, 2)).toMatchObject({
      condition_met: true,
      steps: [expect.objectContaining({ uuid: 'c1r', result: 'pass' })],
    })
    expect(only(result, 3)).toMatchObject({ condition_met: false, steps: [] })
    expect(target.seen.some((s) => s.url === '/echo?cond=no')).toBe(false)
    expect(target.seen.some((s) => s.url === '/echo?skipped')).toBe(false)
    expect(only(result, 4).subtest).toMatchObject({
      result: 'pass',
      test_id: 'sub-1',
      initial_variables: { user: 'u-widget' },
    })
    expect(target.seen.some((s) => s.url === '/echo?session=u-widget')).toBe(true)
    expect(only(result, 7).error).toMatch(/^integration not configured/)
    expect(result.result).toBe('fail')
    expect(result.requests_executed).toBe(3)
  })

  it('refuses a pause outside 1-120 s, an unknown step type, and a subtest that runs itself', async () => {
    const result = await runTest(
      {
        test: {
          id: 'self',
          name: 'self',
          steps: [
            { step_type: 'pause', duration: 121 },
            { step_type: 'teleport' } as unknown as Step,
            { step_type: 'subtest', test_uuid: 'self' },
          ],
        },
        environment: resolveEnvironment([]),
        testRunId: 'x',
        resolveSubtest: async () => null,
      },
      noSleep,
    )
    expect(result.requests.map((r) => r.error)).toEqual([
      'duration must be an integer from 1 to 120 seconds, got 121',
      'unknown step_type "teleport"',
      'the subtest self would run itself (self -> self)',
    ])
  })

  it('stops after the first failure when the environment says stop_on_failure', async () => {
    const result = await run(
      [
        {
          step_type: 'request',
          url: '{{base}}/status/500',
          assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
        },
        { step_type: 'request', url: '{{base}}/json' },
      ],
      { stop_on_failure: true },
    )
    expect(result.requests).toHaveLength(1)
    expect(result.result).toBe('fail')
  })
})

describe('runTest: step authentication', () => {
  it('sends basic credentials', async () => {
    await run(
      [
        {
          step_type: 'request',
          url: '{{base}}/echo?basic',
          auth: { auth_type: 'basic', username: '{{user}}', password: 'p:w' },
        },
      ],
      { initial_variables: { base: target.url, user: 'ada' } },
    )
    expect(target.seen.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from('ada:p:w').toString('base64')}`,
    )
  })

  it.each(['auth_header', 'query', 'body'] as const)(
    'signs OAuth 1.0a HMAC-SHA1 in %s',
    async (signatureType) => {
      const result = await run([
        {
          step_type: 'request',
          method: 'POST',
          url: '{{base}}/oauth1?x=1',
          form: signatureType === 'body' ? { field: 'value' } : {},
          auth: { auth_type: 'oauth_1', ...OAUTH1, signature_type: signatureType },
          assertions: [
            { source: 'response_json', property: 'valid', comparison: 'equal', value: 'true' },
          ],
        },
      ])
      expect(only(result).assertions[0]?.result).toBe('pass')
      const seen = target.seen.at(-1)
      if (signatureType === 'auth_header') {
        expect(seen?.headers.authorization).toMatch(/^OAuth .*oauth_signature=/)
      }
      if (signatureType === 'query') expect(seen?.url).toMatch(/oauth_signature=/)
      if (signatureType === 'body') expect(seen?.body).toMatch(/field=value&.*oauth_signature=/)
    },
  )

  it('obtains OAuth 2.0 tokens by client credentials and password, once per run', async () => {
    const tokenUrl = `${target.url}/token`
    const before = target.seen.filter((s) => s.url === '/token').length
    const auth = {
      auth_type: 'oauth_2' as const,
      grant_type: 'client_credentials' as const,
      access_token_url: tokenUrl,
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
    }
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth,
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth,
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth: {
          ...auth,
          grant_type: 'password_credentials',
          username: 'ada',
          password: 'pw',
          client_authentication: 'body',
          token_location: 'query',
        },
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
    ])
    expect(result.requests.map((r) => r.result)).toEqual(['pass', 'pass', 'pass'])
    expect(target.seen.filter((s) => s.url === '/token').length - before).toBe(2)
    expect(target.seen.at(-1)?.url).toMatch(/^\/protected\?access_token=password-/)
  })

  it('refreshes a refused stored token when is_auto_refresh_token is set', async () => {
    const auth = {
      auth_type: 'oauth_2' as const,
      grant_type: 'authorization_code_pkce' as const,
      access_token: 'expired',
      refresh_token: 'refresh-1',
      is_auto_refresh_token: true,
      access_token_url: `${target.url}/token`,
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      code_challenge_method: 'S256' as const,
      code_verifier: 'v'.repeat(43),
    }
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth,
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
    ])
    expect(only(result).result).toBe('pass')
    expect(only(result).request?.headers['Authorization']?.[0]).toMatch(/^Bearer refresh_token-/)
    const stored = await run([
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth: { ...auth, access_token: 'stored-token', is_auto_refresh_token: false },
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
    ])
    expect(only(stored).result).toBe('pass')
    const refused = await run([
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth: { ...auth, is_auto_refresh_token: false },
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
    ])
    expect(only(refused).result).toBe('fail')
  })

  it('fails the step with the reason when the token endpoint refuses', async () => {
    const result = await run([
      {
        step_type: 'request',
        url: '{{base}}/protected',
        auth: {
          auth_type: 'oauth_2',
          grant_type: 'client_credentials',
          access_token_url: `${target.url}/token`,
          client_id: CLIENT.id,
          client_secret: 'wrong',
        },
      },
    ])
    expect(only(result)).toMatchObject({
      result: 'fail',
      error: expect.stringMatching(/^authentication failed/) as unknown,
    })
  })
})

describe('runTest: cancellation', () => {
  it('stops at the next step when the signal aborts, failing the run with a reason', async () => {
    const controller = new AbortController()
    const result = await runTest(
      {
        test: {
          id: 'c',
          name: 'cancel',
          steps: [
            { step_type: 'pause', duration: 120 },
            { step_type: 'request', url: `${target.url}/json` },
          ],
        },
        environment: resolveEnvironment([]),
        testRunId: 'cancel',
        signal: controller.signal,
        onProgress: () => {},
      },
      {
        sleep: async () => {
          controller.abort()
        },
      },
    )
    expect(result.requests).toHaveLength(1)
    expect(result).toMatchObject({ result: 'fail', error: 'the run was cancelled' })
  })
})

describe('runTest: cookies', () => {
  it('sends cookies set by earlier steps only when the environment preserves cookies', async () => {
    const steps: Step[] = [
      { step_type: 'request', url: '{{base}}/set-cookie' },
      {
        step_type: 'request',
        url: '{{base}}/echo?cookies',
        variables: [{ name: 'cookie', source: 'response_json', property: 'headers.cookie' }],
      },
    ]
    const kept = await run(steps, { preserve_cookies: true })
    expect(kept.variables['cookie']).toBe('session=s1; theme=dark')
    const dropped = await run(steps, { preserve_cookies: false })
    expect(dropped.variables['cookie']).toBeUndefined()
  })
})
