import http from 'node:http'
import { expect, onTestFinished } from 'vitest'
import { waitFor } from '../../helpers/wait.js'
import type { MonitorPlatform } from './helpers.js'

/*
 * What the tests of monitoring in regions share: the API their runs call, private locations and
 * ships made through the administration API, a test whose environment names regions, triggers,
 * results, and the agents' run routes called directly.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies loosely and assert their shape
export type Loose = any

/**
 * The API the tests run against: `/hang-once` never answers its first request (a run that an
 * agent is stopped in the middle of) and answers every later one; everything else answers at once.
 */
export async function startTarget(): Promise<{ url: string; hits: (path: string) => number }> {
  const hits = new Map<string, number>()
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const count = (hits.get(path) ?? 0) + 1
    hits.set(path, count)
    if (path === '/hang-once' && count === 1) return
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ path }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    hits: (path) => hits.get(path) ?? 0,
  }
}

export interface Ship {
  harborId: string
  shipId: string
  token: string
}

/** A harbor offered to the platform's workspace (through the private locations API) and its ships. */
export async function createShips(
  m: MonitorPlatform,
  count: number,
  workspacesId = [m.platform.bootstrap.workspaceId],
): Promise<Ship[]> {
  const v4 = async (path: string, json: unknown): Promise<Loose> => {
    const res = await fetch(m.url + path, {
      method: 'POST',
      headers: { authorization: m.basic, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    })
    expect(res.status, path).toBe(201)
    return ((await res.json()) as { result: Loose }).result
  }
  const harbor = await v4('/api/v4/private-locations', {
    name: 'checks',
    accountId: m.platform.bootstrap.accountId,
    workspacesId,
  })
  const ships: Ship[] = []
  for (let i = 0; i < count; i++) {
    const ship = await v4(`/api/v4/private-locations/${harbor.id}/servers`, { name: `agent-${i}` })
    ships.push({ harborId: harbor.id, shipId: ship.id, token: ship.token })
  }
  return ships
}

/** Deletes a ship through the administration API. */
export async function deleteShip(m: MonitorPlatform, ship: Ship): Promise<void> {
  const res = await fetch(
    `${m.url}/api/v4/private-locations/${ship.harborId}/servers/${ship.shipId}`,
    { method: 'DELETE', headers: { authorization: m.basic } },
  )
  expect(res.status).toBe(200)
}

/** A test with one request step to `url`, its default environment running in `regions`. */
export async function regionalTest(
  m: MonitorPlatform,
  url: string,
  regions: string[],
  settings: Record<string, unknown> = {},
): Promise<{ key: string; test: Loose }> {
  const key = await m.bucket()
  const test = (
    await m.call('POST', `/buckets/${key}/tests`, {
      json: {
        name: 'regional',
        steps: [
          {
            step_type: 'request',
            method: 'GET',
            url,
            assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
          },
        ],
      },
    })
  ).body.data
  const env = await m.call(
    'PUT',
    `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id}`,
    { json: { name: 'regional', regions, ...settings } },
  )
  expect(env.status).toBe(200)
  return { key, test }
}

export async function regionCodes(m: MonitorPlatform): Promise<string[]> {
  const res = await m.call('GET', '/regions')
  expect(res.status).toBe(200)
  return (res.body.data.regions as Array<{ region_code: string }>).map((r) => r.region_code)
}

export async function trigger(test: Loose): Promise<Loose[]> {
  const res = await fetch(test.trigger_url, { method: 'POST' })
  expect(res.status).toBe(201)
  return ((await res.json()) as { data: { runs: Loose[] } }).data.runs
}

export async function result(m: MonitorPlatform, key: string, testId: string, runId: string) {
  const res = await m.call('GET', `/buckets/${key}/tests/${testId}/results/${runId}`)
  expect(res.status).toBe(200)
  return res.body.data
}

/** Every stored run of a test, newest first. */
export async function results(m: MonitorPlatform, key: string, testId: string): Promise<Loose[]> {
  const res = await m.call('GET', `/buckets/${key}/tests/${testId}/results?count=50`)
  expect(res.status).toBe(200)
  return res.body.data as Loose[]
}

export async function finished(
  m: MonitorPlatform,
  key: string,
  testId: string,
  runId: string,
  timeoutMs = 15_000,
) {
  let data: Loose
  await waitFor(
    async () => {
      data = await result(m, key, testId, runId)
      return data.result === 'pass' || data.result === 'fail'
    },
    `run ${runId} to finish`,
    { timeoutMs, intervalMs: 100 },
  )
  return data
}

/** The agents' run routes of a ship, called directly (an agent that holds a lease and dies). */
export function agentCall(m: MonitorPlatform, ship: Ship) {
  return async (path: string, json: unknown, token = ship.token) => {
    const res = await fetch(
      `${m.url}/api/v4/private-locations/${ship.harborId}/servers/${ship.shipId}/runs${path}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      },
    )
    const text = await res.text()
    return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as Loose }
  }
}
