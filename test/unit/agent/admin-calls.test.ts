import { describe, expect, it } from 'vitest'
import { answerAdminCall } from '../../../src/agent/admin-calls.js'
import type { MockRunner } from '../../../src/agent/index.js'
import type { RuntimeAdmin } from '../../../src/deploy/index.js'
import { startServer } from '../../helpers/server.js'

/*
 * The agent's side of the relay: it checks every call the platform relays to it again (only paths
 * of the runtime admin API, only mock services it runs and is meant to run) and answers with its
 * runtime's answer as it came, or a 503 that names the agent.
 */

/** A runner whose only part used here is `admin`, counting how often it is asked. */
function runnerWith(admin: RuntimeAdmin | null): { runner: MockRunner; asked: () => number } {
  let asked = 0
  const runner = {
    admin: async () => {
      asked++
      return admin
    },
  } as unknown as MockRunner
  return { runner, asked: () => asked }
}

const call = (method: string, path: string, json?: unknown) => ({
  callId: 'c1',
  mockServiceId: 7,
  method,
  path,
  timeoutMs: 2000,
  ...(json === undefined ? {} : { json }),
})

describe('answerAdminCall', () => {
  it('answers with the runtime answer as it came: status and body', async () => {
    const app = await startServer({
      dsl: [{ requestDsl: { path: '/pets' }, responseDsl: { status: 200, text: 'ok' } }],
      admin: true,
    })
    await fetch(`${app.url}/pets`)
    await fetch(`${app.url}/nope`)
    const { runner } = runnerWith({ url: app.admin?.url as string, token: null })
    const listed = await answerAdminCall(runner, () => true, 'ship-1', call('GET', '/inspection'))
    expect(listed.status).toBe(200)
    expect((listed.body as { total: number }).total).toBe(2)
    const verified = await answerAdminCall(
      runner,
      () => true,
      'ship-1',
      call('POST', '/inspection/verify', { request: { path: '/pets' }, count: 1 }),
    )
    expect((verified.body as { result: { verified: boolean } }).result.verified).toBe(true)
    const missing = await answerAdminCall(
      runner,
      () => true,
      'ship-1',
      call('GET', '/inspection/99'),
    )
    expect(missing.status).toBe(404)
    expect((missing.body as { error: { code: string } }).error.code).toBe('ERR_INSPECT_NOT_FOUND')
  })

  it.each([
    ['PUT', '/config'],
    ['GET', '/config'],
    ['GET', '/log'],
    ['GET', '/__admin/mappings'],
    ['GET', '/'],
    ['GET', '/inspection/../config'],
    ['GET', '//evil.example/inspection'],
    ['GET', 'http://169.254.169.254/inspection'],
    ['POST', '/inspection'],
    ['GET', '/inspection?x=1#frag'],
  ])('refuses %s %s without reaching a runtime: 503 naming the agent', async (method, path) => {
    const { runner, asked } = runnerWith({ url: 'http://127.0.0.1:9', token: null })
    const answer = await answerAdminCall(runner, () => true, 'ship-1', call(method, path))
    expect(answer.status).toBe(503)
    expect(JSON.stringify(answer.body)).toContain('ship-1')
    expect(asked()).toBe(0)
  })

  it('refuses a mock service the agent is not meant to run, or does not run', async () => {
    const stopped = runnerWith({ url: 'http://127.0.0.1:9', token: null })
    const notMeant = await answerAdminCall(
      stopped.runner,
      () => false,
      'ship-1',
      call('GET', '/health'),
    )
    expect(notMeant.status).toBe(503)
    expect(stopped.asked()).toBe(0)
    const none = runnerWith(null)
    const notRunning = await answerAdminCall(
      none.runner,
      () => true,
      'ship-1',
      call('GET', '/health'),
    )
    expect(notRunning).toMatchObject({
      status: 503,
      body: {
        error: {
          code: 'ERR_API_UNAVAILABLE',
          message: 'mock service 7 is not running on agent ship-1',
        },
      },
    })
  })

  it('answers 503 when its runtime does not answer', async () => {
    const { runner } = runnerWith({ url: 'http://127.0.0.1:9', token: null })
    const answer = await answerAdminCall(runner, () => true, 'ship-1', call('GET', '/health'))
    expect(answer.status).toBe(503)
    expect(JSON.stringify(answer.body)).toContain('on agent ship-1 did not answer')
  })
})
