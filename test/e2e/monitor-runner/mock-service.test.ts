import { afterAll, describe, expect, it } from 'vitest'
import {
  resolveEnvironment,
  runTest,
  type RunnableTest,
  type Step,
} from '../../../src/monitor/index.js'
import { closeSandbox } from '../../../src/monitor/sandbox.js'
import { startServer } from '../../helpers/server.js'

afterAll(async () => {
  await closeSandbox()
})

/** An Understudy mock service: a login that issues a token, and orders behind it. */
const yaml = `
- name: login
  dsl:
    requestDsl: { method: POST, path: /login, body: [{ key: user, matcherName: equals, matchingValue: ada }] }
    responseDsl: { status: 200, json: { token: tok-1, user: ada } }
- name: order
  dsl:
    requestDsl: { method: GET, path: '/orders/{id}', headers: [{ key: Authorization, matcherName: equals, matchingValue: Bearer tok-1 }] }
    responseDsl: { status: 200, headers: [{ name: X-Region, value: local }], json: { id: 42, status: shipped, items: [{ sku: a1, qty: 2 }] } }
- name: invoice
  dsl:
    requestDsl: { method: GET, path: /invoice }
    responseDsl: { status: 200, contentType: xml, text: '<invoice><total>19.90</total></invoice>' }
`

describe('runTest against an Understudy mock service', () => {
  it('runs a test with every step type, variables flowing between steps and into a subtest', async () => {
    const mock = await startServer({ yaml })
    const invoiceTest: RunnableTest = {
      id: 'invoice',
      name: 'invoice',
      steps: [
        {
          step_type: 'request',
          url: '{{base}}/invoice',
          headers: { 'X-Order': ['{{order_id}}'] },
          variables: [{ name: 'total', source: 'response_xml', property: '/invoice/total' }],
          assertions: [
            {
              source: 'response_xml',
              property: '/invoice/total',
              comparison: 'is_greater_than',
              value: '10',
            },
          ],
        },
      ],
    }
    const steps: Step[] = [
      {
        step_type: 'request',
        id: 'login',
        method: 'POST',
        url: '{{base}}/login',
        form: { user: ['ada'] },
        variables: [{ name: 'token', source: 'response_json', property: 'token' }],
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
      {
        step_type: 'request',
        id: 'order',
        url: '{{base}}/orders/42',
        headers: { Authorization: ['Bearer {{token}}'] },
        variables: [
          { name: 'order_id', source: 'response_json', property: 'id' },
          { name: 'region', source: 'response_headers', property: 'X-Region' },
        ],
        scripts: [
          "var o = JSON.parse(response.body); assert.equal(o.items[0].qty, 2); variables.set('first_sku', o.items[0].sku)",
        ],
        assertions: [
          { source: 'response_json', property: 'status', comparison: 'equal', value: 'shipped' },
          { source: 'response_json', property: 'items[0].sku', comparison: 'equal', value: 'a1' },
          { source: 'response_headers', property: 'X-Region', comparison: 'equal', value: 'local' },
          { source: 'response_time', comparison: 'is_less_than', value: 10_000 },
        ],
      },
      { step_type: 'pause', id: 'wait', duration: 1 },
      {
        step_type: 'condition',
        id: 'if-shipped',
        left_value: '{{first_sku}}',
        comparison: 'equal',
        right_value: 'a1',
        steps: [
          {
            step_type: 'subtest',
            id: 'sub',
            test_uuid: 'invoice',
            params: [
              { name: 'base', value: '{{base}}' },
              { name: 'order_id', value: '{{order_id}}' },
            ],
            variables: [{ name: 'invoice_total', source: 'subtest_variable', property: 'total' }],
          },
        ],
      },
      {
        step_type: 'request',
        id: 'missing',
        url: '{{base}}/orders/42',
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 404 }],
      },
      { step_type: 'external-ui-test', id: 'ui' },
    ]
    const slept: number[] = []
    const result = await runTest(
      {
        test: { id: 'orders', name: 'orders', steps },
        environment: resolveEnvironment([{ initial_variables: { base: mock.url } }]),
        testRunId: 'mock-run',
        resolveSubtest: async (ref) =>
          ref.test_uuid === 'invoice'
            ? { test: invoiceTest, environment: resolveEnvironment([]) }
            : null,
      },
      {
        sleep: async (ms) => {
          slept.push(ms)
        },
      },
    )
    expect(result.requests.map((r) => `${r.uuid ?? ''}:${r.result}`)).toEqual([
      'login:pass',
      'order:pass',
      'wait:pass',
      'if-shipped:pass',
      'missing:pass',
      'ui:fail',
    ])
    expect(result.variables).toMatchObject({
      token: 'tok-1',
      order_id: '42',
      region: 'local',
      first_sku: 'a1',
      invoice_total: '19.90',
    })
    expect(result.requests[3]?.steps?.[0]?.subtest).toMatchObject({
      result: 'pass',
      variables: { order_id: '42', total: '19.90' },
    })
    expect(slept).toEqual([1000])
    expect(result).toMatchObject({
      result: 'fail',
      requests_executed: 3,
      assertions_failed: 0,
      scripts_passed: 1,
    })
  })
})
