import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js'
import { tempDir } from '../helpers/temp-dir.js'

/*
 * Inspection, verification, recording and scenario calls for a mock service placed on an agent's
 * ship used to answer as if it were not running (the platform asked only its local runtimes).
 * They now go through the relay: queued for the ship, taken by its agent's long poll, answered
 * with the runtime's answer. Here the test plays the agent over HTTP with the ships' tokens: a
 * ship sees and answers only its own calls, an unknown call is 404, the runtime's refusal keeps its
 * code, and a call no agent takes fails closed with 503 naming the ship.
 */

interface Envelope<T> {
  result: T
  error: { code: string; message: string } | null
}

interface RelayedCall {
  callId: string
  mockServiceId: number
  method: string
  path: string
  timeoutMs: number
}

async function setUp(platform: TestPlatform) {
  const ws = platform.workspaceId
  const post = async <T>(path: string, json: unknown, auth?: string): Promise<Envelope<T>> => {
    const res = await platform.request(path, {
      method: 'POST',
      json,
      ...(auth === undefined ? {} : { headers: { authorization: auth } }),
    })
    return (await res.json()) as Envelope<T>
  }
  const harbor = (
    await post<{ id: string }>('/api/v4/private-locations', {
      name: 'lab',
      accountId: platform.accountId,
      workspacesId: [ws],
    })
  ).result
  const ships: Array<{ id: string; token: string; path: string; auth: string }> = []
  for (const name of ['a', 'b']) {
    const ship = (
      await post<{ id: string; token: string }>(`/api/v4/private-locations/${harbor.id}/servers`, {
        name,
      })
    ).result
    const path = `/api/v4/private-locations/${harbor.id}/servers/${ship.id}`
    const auth = `Bearer ${ship.token}`
    const beat = await post(
      `${path}/heartbeat`,
      { memoryUsage: 0, msRunningCount: 0, transactionsCount: 0, version: 'test', running: [] },
      auth,
    )
    expect(beat.error).toBeNull()
    ships.push({ ...ship, path, auth })
  }
  const [a, b] = ships as [(typeof ships)[0], (typeof ships)[0]]
  const service = (await post<{ id: number }>(`/api/v1/workspaces/${ws}/services`, { name: 's' }))
    .result
  const mock = (
    await post<{ id: number }>(`/api/v1/workspaces/${ws}/service-mocks`, {
      serviceId: service.id,
      name: 'on-b',
      harborId: harbor.id,
      shipId: b.id,
    })
  ).result
  const deployed = await platform.request(
    `/api/v1/workspaces/${ws}/service-mocks/${mock.id}/deploy`,
  )
  expect(deployed.status).toBe(200)
  // Ship b's agent says it runs it.
  const reported = await post(
    `${b.path}/reports`,
    { mockServiceId: mock.id, status: 'RUNNING', endpoints: { http: 'http://127.0.0.1:9' } },
    b.auth,
  )
  expect(reported.error).toBeNull()
  return { ws, harbor, a, b, mock }
}

async function pull(
  platform: TestPlatform,
  ship: { path: string },
  auth: string,
  wait: number,
): Promise<{ status: number; body: Envelope<RelayedCall[]> }> {
  const res = await platform.request(`${ship.path}/admin-calls?wait=${wait}`, {
    headers: { authorization: auth },
  })
  return { status: res.status, body: (await res.json()) as Envelope<RelayedCall[]> }
}

async function answer(
  platform: TestPlatform,
  ship: { path: string },
  auth: string,
  callId: string,
  json: unknown,
): Promise<number> {
  const res = await platform.request(`${ship.path}/admin-calls/${callId}`, {
    method: 'POST',
    json,
    headers: { authorization: auth },
  })
  await res.body?.cancel()
  return res.status
}

describe('admin calls of a mock service on an agent', () => {
  it('go to its own ship only, are answered with the runtime answer as is, and fail closed naming the ship', async () => {
    const platform = await startTestPlatform({ agentCallTimeoutMs: 1500 })
    const { ws, a, b, mock } = await setUp(platform)
    const list = `/reports/api/v1/workspaces/${ws}/inspection-data/service-mock/${mock.id}`

    // The API call waits for ship b's agent.
    const listed = platform.request(list)
    const taken = await pull(platform, b, b.auth, 5)
    expect(taken.status).toBe(200)
    expect(taken.body.result).toHaveLength(1)
    const relayed = taken.body.result[0] as RelayedCall
    expect(relayed).toMatchObject({ mockServiceId: mock.id, method: 'GET' })
    expect(relayed.path).toMatch(/^\/inspection\?/)

    // Another ship's token opens neither b's calls nor its answers; its own queue is empty.
    expect((await pull(platform, b, a.auth, 0)).status).toBe(401)
    expect(await answer(platform, b, a.auth, relayed.callId, { status: 200, body: {} })).toBe(401)
    expect((await pull(platform, a, a.auth, 0)).body.result).toEqual([])
    expect(await answer(platform, a, a.auth, relayed.callId, { status: 200, body: {} })).toBe(404)
    // An unknown call, and a malformed answer.
    expect(await answer(platform, b, b.auth, 'no-such-call', { status: 200, body: {} })).toBe(404)
    expect(await answer(platform, b, b.auth, relayed.callId, { status: 42, body: {} })).toBe(400)

    const runtimeEntry = { id: 3, operation: 'GET', url: '/pets', statusCode: 200 }
    expect(
      await answer(platform, b, b.auth, relayed.callId, {
        status: 200,
        body: { error: null, result: [runtimeEntry], total: 1 },
      }),
    ).toBe(200)
    const res = await listed
    expect(res.status).toBe(200)
    const body = (await res.json()) as Envelope<Array<Record<string, unknown>>> & { total: number }
    expect(body.result).toEqual([
      { ...runtimeEntry, id: mock.id * 1e10 + 3, serviceMockId: mock.id },
    ])
    expect(body.total).toBe(1)
    // Answered once: a second answer finds no call.
    expect(await answer(platform, b, b.auth, relayed.callId, { status: 200, body: {} })).toBe(404)

    // The runtime's refusal keeps its code, as from a local runtime.
    const detail = platform.request(
      `/reports/api/v1/workspaces/${ws}/inspection-data/requests/${mock.id * 1e10 + 9}`,
    )
    const second = (await pull(platform, b, b.auth, 5)).body.result[0] as RelayedCall
    expect(second.path).toBe('/inspection/9')
    await answer(platform, b, b.auth, second.callId, {
      status: 404,
      body: { error: { code: 'ERR_INSPECT_NOT_FOUND', message: 'Inspection record 9' } },
    })
    const refused = await detail
    expect(refused.status).toBe(404)
    expect(((await refused.json()) as Envelope<null>).error?.code).toBe('ERR_INSPECT_NOT_FOUND')

    // Nobody takes the call: 503 naming the ship, never an empty list.
    const unanswered = await platform.request(
      `/api/v1/workspaces/${ws}/service-mocks/${mock.id}/inspection/count`,
    )
    expect(unanswered.status).toBe(503)
    const failed = (await unanswered.json()) as Envelope<unknown>
    expect(failed.error?.code).toBe('ERR_API_UNAVAILABLE')
    expect(failed.error?.message).toContain(b.id)
    expect(failed.result).toBeNull()
  }, 30_000)

  it.each(['0', '301', '2.5', 'ten'])(
    'understudy platform --agent-call-timeout %s is one line and exit code 2',
    async (value) => {
      const { code, stderr } = await runCli([
        'platform',
        '--port',
        '0',
        '--data-dir',
        tempDir('understudy-relay-flag-'),
        '--agent-call-timeout',
        value,
      ])
      expect(code).toBe(2)
      expect(stderr).toBe(
        `understudy platform: --agent-call-timeout must be a number of seconds from 1 to 300, not "${value}"\n`,
      )
    },
  )
})
