import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  resolveEnvironment,
  runTest,
  type RunnableTest,
  type Step,
} from '../../../src/monitor/index.js'
import { closeSandbox } from '../../../src/monitor/sandbox.js'
import { describeRealworld, readRealworld } from '../../helpers/realworld.js'
import { startTarget, type TargetServer } from './server.js'

/** A real export with its public hosts pointed at the local target. */
function load(name: string, target: TargetServer): RunnableTest {
  const text = readRealworld('runscope', name)
    .toString('utf8')
    .replaceAll('http://httpbin.org', target.url)
    .replaceAll('http://deckofcardsapi.com', target.url)
  const doc = JSON.parse(text) as { name: string; steps: Step[] }
  return { id: name, name: doc.name, steps: doc.steps }
}

describeRealworld('the real test exports, run against a local target', () => {
  let target: TargetServer
  beforeAll(async () => {
    target = await startTarget()
  })
  afterAll(async () => {
    await target.close()
    await closeSandbox()
  })

  it('deck_of_cards_api_test.json passes: random_int, JSON variables, a bare variable name as a numeric target', async () => {
    const result = await runTest({
      test: load('deck_of_cards_api_test.json', target),
      environment: resolveEnvironment([]),
      testRunId: 'deck',
    })
    expect(result.requests.map((r) => r.result)).toEqual(['pass', 'pass'])
    expect(result).toMatchObject({
      result: 'pass',
      requests_executed: 2,
      assertions_defined: 6,
      assertions_passed: 6,
      variables_passed: 2,
    })
    const count = Number(new URL(result.requests[0]?.url ?? '').searchParams.get('deck_count'))
    expect(count).toBeGreaterThanOrEqual(2)
    expect(count).toBeLessThanOrEqual(6)
    expect(result.requests[1]?.url).toContain(
      `/api/deck/${result.variables['deck_id'] ?? ''}/draw/`,
    )
  })

  it('runscope-export-1.json sends basic auth, raw, form and JSON bodies; its placeholder scripts and args.u1 assertions fail as they would in the product', async () => {
    const before = target.seen.length
    const result = await runTest({
      test: load('runscope-export-1.json', target),
      environment: resolveEnvironment([]),
      testRunId: 'e1',
    })
    const seen = target.seen.slice(before)
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /get?uk1=uk2',
      'POST /post?uk1=uk2',
      'POST /post?uk1=uk2',
      'POST /post?uk1=uk2',
    ])
    expect(seen[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('BASIC_USERNAME:BASIC_PASSWORD').toString('base64')}`,
    )
    expect(seen[0]?.headers['hk1']).toBe('hv1')
    expect(seen[1]?.body).toBe('RAW BODY')
    expect(seen[2]?.body).toBe('fk1=fv1')
    expect(seen[3]?.headers['content-type']).toBe('application/json')
    expect(JSON.parse(seen[3]?.body ?? '{}')).toEqual({ 'JSON BODY': true })
    expect(
      result.requests.flatMap((r) => r.assertions.map((a) => `${a.source}:${a.result}`)),
    ).toEqual(Array(4).fill(['response_status:pass', 'response_json:fail']).flat())
    expect(result.requests[0]?.scripts.map((s) => [s.kind, s.result])).toEqual([
      ['before_script', 'fail'],
      ['before_script', 'fail'],
      ['script', 'fail'],
      ['script', 'fail'],
    ])
    expect(result.result).toBe('fail')
  })

  it('runscope-export-2.json evaluates every comparison of the product and explains each failure', async () => {
    const result = await runTest({
      test: load('runscope-export-2.json', target),
      environment: resolveEnvironment([]),
      testRunId: 'e2',
    })
    const first = result.requests[0]
    expect(first?.assertions).toHaveLength(20)
    expect(first?.assertions.find((a) => a.comparison === 'is_less_than')).toMatchObject({
      result: 'fail',
      error: 'the target "lessThanValue" is not a number',
    })
    expect(first?.assertions.find((a) => a.source === 'response_xml')).toMatchObject({
      result: 'fail',
      error: 'the response body is not XML',
    })
    expect(first?.assertions[0]).toMatchObject({
      source: 'response_status',
      result: 'pass',
      actual_value: 200,
    })
    // The second step's pre-request scripts are comments and a `var`: they pass.
    expect(result.requests[1]?.scripts.map((s) => s.result)).toEqual(['pass', 'pass', 'pass'])
    expect(result.requests_executed).toBe(4)
  })
})
