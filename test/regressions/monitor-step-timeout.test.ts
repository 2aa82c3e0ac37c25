import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  resolveEnvironment,
  runTest,
  type Step,
  type TestRunResult,
} from '../../src/monitor/index.js'

// A request step's time limit is enforced by undici's own timers and a deadline checked as the
// body arrives (no per-step AbortSignal): a target that never answers, or that sends its headers
// and then trickles its body past the limit, still fails the step after the configured time.
let server: Server
let base: string
const open = new Set<ServerResponse>()

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res)
    res.once('close', () => open.delete(res))
    if (req.url === '/silent') return
    if (req.url === '/trickle') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      const timer = setInterval(() => res.write('x'), 50)
      res.once('close', () => clearInterval(timer))
      return
    }
    res.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  for (const res of open) res.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

async function runStep(
  path: string,
  requestTimeoutMs: number,
): Promise<{ result: TestRunResult; ms: number }> {
  const steps: Step[] = [
    { step_type: 'request', url: `{{base}}${path}` },
    { step_type: 'request', url: '{{base}}/fine' },
  ]
  const started = Date.now()
  const result = await runTest(
    {
      test: { id: 't', name: 'timeout', steps },
      environment: resolveEnvironment([{ initial_variables: { base } }]),
      testRunId: 'r',
    },
    { requestTimeoutMs },
  )
  return { result, ms: Date.now() - started }
}

describe("a request step that takes longer than the runner's request timeout", () => {
  it('fails with the limit named when the target never answers, and the run goes on', async () => {
    const { result, ms } = await runStep('/silent', 300)
    expect(result.requests[0]).toMatchObject({
      result: 'fail',
      error: 'the request failed: no complete response within 300 ms',
    })
    expect(result.requests[1]?.result).toBe('pass')
    expect(ms).toBeGreaterThanOrEqual(290)
    expect(ms).toBeLessThan(10_000)
  })

  it('fails when the headers came in time but the body keeps trickling past the limit', async () => {
    const { result, ms } = await runStep('/trickle', 400)
    expect(result.requests[0]).toMatchObject({
      result: 'fail',
      error: 'the request failed: no complete response within 400 ms',
    })
    expect(ms).toBeGreaterThanOrEqual(390)
    expect(ms).toBeLessThan(10_000)
  })
})
