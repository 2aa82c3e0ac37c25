import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveEnvironment, runTest, type RunnableTest } from '../../src/monitor/index.js'
import { startTarget, type TargetServer } from '../e2e/monitor-runner/server.js'

// Defect: the runner's `{{name}}` substitution looked built-in functions up on a plain object, so
// `{{constructor}}`, `{{toString}}` or `{{hasOwnProperty}}` called Object.prototype's members
// (the last one threw out of the step). Only the built-ins resolve; other names stay as written.

let target: TargetServer
beforeAll(async () => {
  target = await startTarget()
})
afterAll(async () => {
  await target.close()
})

describe('monitoring step templates reach only the built-in functions', () => {
  it('leaves prototype member names as written and still sends the request', async () => {
    const test: RunnableTest = {
      id: 'proto-names',
      name: 'proto names',
      steps: [
        {
          step_type: 'request',
          id: 's1',
          method: 'GET',
          url: '{{base}}/echo?a={{constructor}}&b={{hasOwnProperty}}&c={{toString}}&d={{valueOf(x)}}&e={{upper("ok")}}',
        },
      ],
    }
    const result = await runTest(
      {
        test,
        environment: resolveEnvironment([{ initial_variables: { base: target.url } }]),
        testRunId: 'run-proto',
      },
      { sleep: async () => {} },
    )
    expect(result.requests[0]).toMatchObject({ result: 'pass', status_code: 200 })
    const seen = target.seen.find((s) => s.url.startsWith('/echo?a='))
    expect(decodeURIComponent(seen?.url ?? '')).toBe(
      '/echo?a={{constructor}}&b={{hasOwnProperty}}&c={{toString}}&d={{valueOf(x)}}&e=OK',
    )
  })
})
