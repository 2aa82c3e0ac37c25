import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startPlatformInstances, type PlatformInstances } from '../../helpers/instances.js'
import { monitoringToken } from '../../helpers/monitor-token.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Two `understudy platform` processes on one PostgreSQL database, behind a round-robin proxy
 * (test/helpers/instances.ts): what one instance writes the other reads, a schedule fires once
 * per slot, a dashboard session and the failed-secret throttle work whichever instance answers,
 * and a SIGKILLed instance loses no acknowledged write and strands no monitoring run.
 */

if (!hasPostgres) console.warn(`two-instance tests skipped: ${PG_SKIP_REASON}`)

type Json = Record<string, unknown>

async function call(
  base: string,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Json }
}

/** A step target in this process: answers 200 after `delayMs`, counting requests. */
async function startTarget(delayMs: number): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    req.resume()
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    }, delayMs)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

/** A monitoring bucket and a test of one request step, through `base`. */
async function monitoredTest(
  base: string,
  token: string,
  url: string,
): Promise<{ key: string; test: Json }> {
  const account = await call(base, token, 'GET', '/account')
  const teams = (account.body['data'] as { teams: Array<{ id: string }> }).teams
  const bucket = await call(base, token, 'POST', `/buckets?name=ha&team_uuid=${teams[0]?.id}`)
  expect(bucket.status).toBe(201)
  const key = (bucket.body['data'] as { key: string }).key
  const test = await call(base, token, 'POST', `/buckets/${key}/tests`, {
    name: 'ha check',
    steps: [
      {
        step_type: 'request',
        method: 'GET',
        url,
        assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
      },
    ],
  })
  expect(test.status).toBe(201)
  return { key, test: test.body['data'] as Json }
}

async function results(
  base: string,
  token: string,
  key: string,
  testId: unknown,
): Promise<Array<{ test_run_id: string; result: string; source: string }>> {
  const list = await call(
    base,
    token,
    'GET',
    `/buckets/${key}/tests/${String(testId)}/results?count=100`,
  )
  return list.body['data'] as Array<{ test_run_id: string; result: string; source: string }>
}

/** Signs in to the dashboard through `base`: the cookie and CSRF token a browser would hold. */
async function signIn(
  base: string,
  keyId: string,
  secret: string,
): Promise<{ status: number; headers: Record<string, string> }> {
  const res = await fetch(`${base}/ui/session`, {
    method: 'POST',
    headers: { 'x-requested-with': 'fetch', 'content-type': 'application/json' },
    body: JSON.stringify({ keyId, secret }),
  })
  const body = (await res.json()) as { result?: { csrfToken: string } }
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  return {
    status: res.status,
    headers: {
      cookie,
      'x-requested-with': 'fetch',
      'x-csrf-token': body.result?.csrfToken ?? '',
    },
  }
}

function secretOf(group: PlatformInstances): string {
  return Buffer.from(group.auth.slice('Basic '.length), 'base64').toString().split(':')[1] ?? ''
}

describe.skipIf(!hasPostgres)('two platform instances on one PostgreSQL database', () => {
  it('read each other’s writes, fire a schedule once per slot, and share dashboard sessions and the throttle', async () => {
    const store = await freshPgDatabase()
    if (store === undefined) return
    // Leases of 3 s: each instance also re-reads the stored schedules every second.
    const group = await startPlatformInstances(2, store, {
      UNDERSTUDY_SCHEDULE_SCALE: '60',
      UNDERSTUDY_RUN_LEASE: '3',
    })
    const [a, b] = group.instances.map((i) => i.url) as [string, string]
    const ws = group.workspaceId

    // A service and its transactions written through A are read through B, a mock service the other way.
    const service = await call(a, group.auth, 'POST', `/api/v1/workspaces/${ws}/services`, {
      name: 'pets',
    })
    expect(service.status, JSON.stringify(service.body)).toBe(201)
    const serviceId = (service.body['result'] as { id: number }).id
    const txns = await call(
      a,
      group.auth,
      'POST',
      `/api/v1/workspaces/${ws}/transactions?serviceId=${serviceId}`,
      {
        name: 'list',
        dsl: {
          requestDsl: { method: 'GET', path: '/pets' },
          responseDsl: { status: 200, content: Buffer.from('[]').toString('base64') },
        },
      },
    )
    expect(txns.status, JSON.stringify(txns.body)).toBe(200)
    const txnId = (txns.body['result'] as { id: number }).id
    const seen = await call(b, group.auth, 'GET', `/api/v1/workspaces/${ws}/services/${serviceId}`)
    expect(seen.status).toBe(200)
    expect(seen.body['result']).toMatchObject({ id: serviceId, name: 'pets' })
    const listed = await call(
      b,
      group.auth,
      'GET',
      `/api/v1/workspaces/${ws}/transactions?serviceId=${serviceId}`,
    )
    expect((listed.body['result'] as Array<{ id: number }>).map((t) => t.id)).toEqual([txnId])
    const mock = await call(b, group.auth, 'POST', `/api/v1/workspaces/${ws}/service-mocks`, {
      serviceId,
      name: 'pets mock',
      mockServiceTransactions: [txnId],
    })
    expect(mock.status, JSON.stringify(mock.body)).toBe(201)
    const mockId = (mock.body['result'] as { id: number }).id
    const mockOnA = await call(
      a,
      group.auth,
      'GET',
      `/api/v1/workspaces/${ws}/service-mocks/${mockId}`,
    )
    expect(mockOnA.body['result']).toMatchObject({ id: mockId, name: 'pets mock' })

    // A monitoring test made through B is read through A; its 1m schedule (a second here), made
    // through A, fires on both instances (B arms it when it re-reads the schedules), and stores
    // one run per slot.
    const target = await startTarget(0)
    const tokenB = await monitoringToken(b, group.auth)
    const { key, test } = await monitoredTest(b, tokenB, `${target.url}/health`)
    const tokenA = await monitoringToken(a, group.auth)
    const onA = await call(a, tokenA, 'GET', `/buckets/${key}/tests/${String(test['id'])}`)
    expect(onA.status).toBe(200)
    expect(onA.body['data']).toMatchObject({ id: test['id'], name: 'ha check' })
    const firstSlot = Math.floor(Date.now() / 1000)
    const schedule = await call(
      a,
      tokenA,
      'POST',
      `/buckets/${key}/tests/${String(test['id'])}/schedules`,
      {
        environment_id: test['default_environment_id'],
        interval: '1m',
      },
    )
    expect(schedule.status).toBe(201)
    await waitFor(
      async () =>
        (await results(b, tokenB, key, test['id'])).filter((r) => r.result === 'pass').length >= 4,
      'four scheduled runs',
      { timeoutMs: 20_000, intervalMs: 200 },
    )
    const scheduleId = (schedule.body['data'] as { id: string }).id
    const removed = await call(
      b,
      tokenB,
      'DELETE',
      `/buckets/${key}/tests/${String(test['id'])}/schedules/${scheduleId}`,
    )
    expect(removed.status).toBe(204)
    // Instances drop a deleted schedule's timer when they reload it; wait out a slot either way.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const lastSlot = Math.floor(Date.now() / 1000)
    const runs = (await results(a, tokenA, key, test['id'])).filter((r) => r.source === 'scheduled')
    // Two schedulers firing every slot: without the slot's unique key there would be twice as many.
    expect(runs.length).toBeGreaterThanOrEqual(4)
    expect(runs.length).toBeLessThanOrEqual(lastSlot - firstSlot + 1)

    // A dashboard session signed in through the proxy works whichever instance answers, its
    // monitoring token too, and signing out on one instance ends it on the other.
    const session = await signIn(group.url, group.apiKeyId, secretOf(group))
    expect(session.status).toBe(200)
    const answered = group.proxy.answeredBy.length
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${group.url}/api/v1/workspaces/${ws}/services`, {
        headers: session.headers,
      })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      const buckets = await fetch(`${group.url}/buckets`, { headers: session.headers })
      expect(buckets.status).toBe(200)
      await buckets.arrayBuffer()
    }
    expect(new Set(group.proxy.answeredBy.slice(answered))).toEqual(new Set([a, b]))
    const out = await fetch(`${b}/ui/session`, { method: 'DELETE', headers: session.headers })
    expect(out.status).toBe(204)
    const after = await fetch(`${a}/api/v1/workspaces/${ws}/services`, { headers: session.headers })
    expect(after.status).toBe(401)
    await after.arrayBuffer()
    const currentOnA = await fetch(`${a}/ui/session`, { headers: session.headers })
    expect(currentOnA.status).toBe(401)
    await currentOnA.arrayBuffer()

    // Wrong secrets alternated between the instances add up: the 11th guess for one key id from
    // one address is throttled on both (ten per key and address a minute), not the 21st.
    const wrong = (i: number): string =>
      `Basic ${Buffer.from(`${group.apiKeyId}-guessed:wrong-${i}`).toString('base64')}`
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${i % 2 === 0 ? a : b}/api/v4/user`, {
        headers: { authorization: wrong(i) },
      })
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429])
    // The key's owner is not affected.
    expect((await call(b, group.auth, 'GET', '/api/v4/user')).status).toBe(200)
  }, 120_000)

  it('loses no acknowledged write and strands no run when one instance is SIGKILLed, and the other keeps serving', async () => {
    const store = await freshPgDatabase()
    if (store === undefined) return
    const group = await startPlatformInstances(2, store, { UNDERSTUDY_RUN_LEASE: '3' })
    const [killed, survivor] = group.instances as [
      PlatformInstances['instances'][0],
      PlatformInstances['instances'][0],
    ]
    const ws = group.workspaceId
    const session = await signIn(group.url, group.apiKeyId, secretOf(group))
    expect(session.status).toBe(200)

    // Slow runs (each step waits 1.5 s) queued on the instance about to die: its lease ends with
    // it, and the survivor takes them over and runs them to the end.
    const target = await startTarget(1500)
    const tokenK = await monitoringToken(killed.url, group.auth)
    const { key, test } = await monitoredTest(killed.url, tokenK, `${target.url}/slow`)
    for (let i = 0; i < 3; i++) {
      const trigger = await fetch(
        String(test['trigger_url']).replace(/^http:\/\/[^/]+/, killed.url),
      )
      expect(trigger.status).toBe(201)
      await trigger.arrayBuffer()
    }

    // A stream of writes through the proxy (four at a time); the instance dies in the middle of it.
    const acknowledged: number[] = []
    let failed = 0
    let n = 0
    const writer = async (): Promise<void> => {
      for (let i = 0; i < 15; i++) {
        const name = `svc-${n++}`
        try {
          const res = await call(
            group.url,
            group.auth,
            'POST',
            `/api/v1/workspaces/${ws}/services`,
            {
              name,
            },
          )
          if (res.status >= 200 && res.status < 300) {
            acknowledged.push((res.body['result'] as { id: number }).id)
          } else failed++
        } catch {
          failed++
        }
      }
    }
    const writers = Promise.all([writer(), writer(), writer(), writer()])
    await waitFor(() => acknowledged.length >= 12, 'writes before the kill', {
      timeoutMs: 20_000,
      intervalMs: 10,
    })
    killed.server.child.kill('SIGKILL')
    await writers
    expect(acknowledged.length + failed).toBe(60)
    expect(acknowledged.length).toBeGreaterThan(12)

    // Every acknowledged write is there, read through the proxy (now the survivor alone).
    const all = await call(
      group.url,
      group.auth,
      'GET',
      `/api/v1/workspaces/${ws}/services?limit=1000`,
    )
    expect(all.status).toBe(200)
    const ids = new Set((all.body['result'] as Array<{ id: number }>).map((s) => s.id))
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([])
    expect(group.proxy.live()).toEqual([survivor.url])

    // No run is left failed: the survivor took the dead instance's runs over and passed them.
    const tokenS = await monitoringToken(survivor.url, group.auth)
    await waitFor(
      async () => {
        const runs = await results(survivor.url, tokenS, key, test['id'])
        return runs.length === 3 && runs.every((r) => r.result === 'pass' || r.result === 'fail')
      },
      'the dead instance’s runs to finish on the survivor',
      { timeoutMs: 30_000, intervalMs: 200 },
    )
    const runs = await results(survivor.url, tokenS, key, test['id'])
    expect(runs.map((r) => r.result)).toEqual(['pass', 'pass', 'pass'])

    // The survivor keeps serving the API and the dashboard through the proxy, the session included.
    const page = await fetch(`${group.url}/ui/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<html')
    const bySession = await fetch(`${group.url}/api/v1/workspaces/${ws}/services?limit=1`, {
      headers: session.headers,
    })
    expect(bySession.status).toBe(200)
    await bySession.arrayBuffer()
  }, 120_000)
})
