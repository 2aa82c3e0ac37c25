import { describe, expect, it } from 'vitest'
import {
  freePortBlock,
  harborWithShips,
  PLATFORM_KEY,
  platformProcessApi,
  startAgent,
  startPlatformProcess,
  type HarborShip,
} from '../../helpers/agent.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startUpstream } from '../../helpers/upstream.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * What the platform does through a runtime's admin API works for a mock service running on an
 * agent, though the platform never connects to the agent: the platform and one agent as a user
 * runs them (separate processes on loopback), the agent taking the platform's admin calls with a
 * long poll and answering them from its own runtime. Inspection (list and detail), verification,
 * recording, scenarios, the dashboard's live view, the history kept at a stop; and when the agent
 * is gone, the same call answers 503 naming its ship within the platform's --agent-call-timeout,
 * never an empty 200.
 */

interface Entry {
  id: number
  url: string
  operation: string
  previousRun?: boolean
}

/** The path of an inspection entry's URL. */
const pathOf = (e: Entry): string => e.url.replace(/^https?:\/\/[^/]+/, '')

describe('understudy agent: admin calls relayed to the agent', () => {
  it(
    'serves inspection, verification, recording and scenarios of a mock service on an agent through the platform, and answers 503 naming the ship once the agent is killed',
    { timeout: 120_000 },
    async () => {
      const upstream = await startUpstream((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ live: true, url: req.url }))
      })
      const block = await freePortBlock(10)
      const base = `http://127.0.0.1:${block}`
      await startPlatformProcess(block, tempDir('understudy-relay-platform-'), [
        '--agent-call-timeout',
        '2',
        // The ship must stay `ready` after the kill: the 503 comes from the relay, not from a lost ship.
        '--ship-lost-after',
        '120',
      ])
      const platformApi = platformProcessApi(base)
      const { api, call } = platformApi
      const { ws, harbor, ships } = await harborWithShips(platformApi, ['lab-1'])
      const ship = ships[0] as HarborShip
      const agent = await startAgent({
        platform: base,
        harborId: harbor.id,
        ship,
        ports: [block + 1, block + 5],
        dataDir: tempDir('understudy-relay-agent-'),
      })

      // A mock service in record mode on the agent: /pets is a transaction, the rest goes live.
      const w = `/api/v1/workspaces/${ws}`
      const service = await api<{ id: number }>('POST', `${w}/services`, { name: 'pets' })
      await api('POST', `${w}/transactions?serviceId=${service.id}`, {
        name: 'list',
        dsl: {
          requestDsl: { method: 'GET', path: '/pets' },
          responseDsl: { status: 200, json: [{ id: 1 }] },
        },
      })
      const mock = await api<{ id: number }>('POST', `${w}/service-mocks`, {
        serviceId: service.id,
        name: 'pets',
        harborId: harbor.id,
        shipId: ship.id,
        noMatchingRequestPreference: 'record',
        liveSystemHost: upstream.url,
      })
      const path = `${w}/service-mocks/${mock.id}`
      const deployAndWait = async (): Promise<string> => {
        const tracking = await api<{ trackingId: string }>('GET', `${path}/deploy`)
        let status = ''
        await waitFor(
          async () => {
            status = (
              await api<{ status: string }>('GET', `/api/v1/trackings/${tracking.trackingId}`)
            ).status
            return status === 'FINISHED' || status === 'FAILED'
          },
          'the deploy to finish',
          { timeoutMs: 30_000, intervalMs: 200 },
        )
        expect(status).toBe('FINISHED')
        const record = await api<{ status: string; httpEndpoint: string }>('GET', path)
        expect(record.status).toBe('RUNNING')
        return record.httpEndpoint
      }
      const endpoint = await deployAndWait()
      expect(new URL(endpoint).port).not.toBe(String(block))
      expect((await fetch(`${endpoint}/pets`)).status).toBe(200)
      expect(await (await fetch(`${endpoint}/orders/7`)).json()).toEqual({
        live: true,
        url: '/orders/7',
      })
      expect(await (await fetch(`${endpoint}/pets`)).json()).toEqual([{ id: 1 }])

      // Inspection: the list, newest first, and one request's detail.
      const list = `/reports/api/v1/workspaces/${ws}/inspection-data/service-mock/${mock.id}`
      const listed = await call<Entry[]>('GET', list)
      expect(listed.status).toBe(200)
      expect(listed.body.result).toHaveLength(3)
      expect(listed.body.total).toBe(3)
      expect(listed.body.result.map(pathOf)).toEqual(['/pets', '/orders/7', '/pets'])
      const newest = listed.body.result[0] as Entry
      expect(Math.floor(newest.id / 1e10)).toBe(mock.id)
      const detail = await api<Record<string, unknown>>(
        'GET',
        `/reports/api/v1/workspaces/${ws}/inspection-data/requests/${newest.id}`,
      )
      expect(detail).toMatchObject({
        id: newest.id,
        serviceMockId: mock.id,
        operation: 'GET',
        url: '/pets',
        statusCode: 200,
      })
      expect(Buffer.from(String(detail['responseBody']), 'base64').toString()).toBe('[{"id":1}]')

      // Verification, passing and failing.
      const verify = `${path}/inspection/verify`
      expect(
        await api('POST', verify, { request: { method: 'GET', path: '/pets' }, count: 2 }),
      ).toMatchObject({ verified: true, actual: 2 })
      expect(await api('POST', verify, { request: { path: '/pets' }, atLeast: 5 })).toMatchObject({
        verified: false,
        actual: 2,
      })
      expect(await api('GET', `${path}/inspection/count?path=/orders/*`)).toEqual({
        count: 1,
      })

      // Recording: read it, then save it into the service.
      const recorded = await api<{ count: number }>('GET', `${path}/recordings`)
      expect(recorded.count).toBe(1)
      const saved = await api<{ recorded: number; created: number[] }>('POST', `${path}/recordings`)
      expect(saved).toMatchObject({ recorded: 1 })
      expect(saved.created).toHaveLength(1)

      // Scenarios: the runtime's state, read through the relay.
      const scenarios = await api<{ scenarios: unknown[] }>('GET', `${path}/scenarios`)
      expect(Array.isArray(scenarios.scenarios)).toBe(true)

      // The dashboard's live view polls the analytics API, so it follows the agent's runtime too.
      const signed = await fetch(`${base}/ui/session`, {
        method: 'POST',
        headers: { 'x-requested-with': 'test', 'content-type': 'application/json' },
        body: JSON.stringify({ keyId: PLATFORM_KEY.id, secret: PLATFORM_KEY.secret }),
      })
      expect(signed.status).toBe(200)
      const cookie = (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
      const csrf = ((await signed.json()) as { result: { csrfToken: string } }).result.csrfToken
      const tab = new AbortController()
      const stream = await fetch(
        `${base}/ui/events/workspaces/${ws}/service-mocks/${mock.id}/inspection?token=${encodeURIComponent(csrf)}`,
        { headers: { cookie }, signal: tab.signal },
      )
      expect(stream.headers.get('content-type')).toContain('text/event-stream')
      const reader = stream.body?.getReader()
      const decoder = new TextDecoder()
      let streamed = ''
      const until = async (needle: string): Promise<void> => {
        await waitFor(
          async () => {
            if (streamed.includes(needle)) return true
            const chunk = await reader?.read()
            if (chunk === undefined || chunk.done) throw new Error(`stream ended: ${streamed}`)
            streamed += decoder.decode(chunk.value)
            return streamed.includes(needle)
          },
          `${needle} in the live view`,
          { timeoutMs: 15_000, intervalMs: 0 },
        )
      }
      await until(`"id":${newest.id}`)
      expect((await fetch(`${endpoint}/pets`)).status).toBe(200)
      // The request served after the tab opened arrives live, with the next id.
      await until(`"id":${newest.id + 1}`)
      tab.abort()

      // A stop keeps what the runtime recorded, read through the relay before the agent stops it.
      const stopped = await api<{ trackingId: string }>('GET', `${path}/stop`)
      await waitFor(
        async () =>
          (await api<{ status: string }>('GET', `/api/v1/trackings/${stopped.trackingId}`))
            .status === 'FINISHED',
        'the stop to finish',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      const kept = await call<Entry[]>('GET', list)
      expect(kept.status).toBe(200)
      expect(kept.body.result.map((e) => [pathOf(e), e.previousRun])).toEqual([
        ['/pets', true],
        ['/pets', true],
        ['/orders/7', true],
        ['/pets', true],
      ])

      // Running again, then the agent's machine is lost: the same calls fail closed, naming the ship.
      const again = await deployAndWait()
      expect((await fetch(`${again}/pets`)).status).toBe(200)
      await waitFor(
        async () => (await call<Entry[]>('GET', list)).body.result.length === 5,
        'the new request to be listed after the kept ones',
        { timeoutMs: 10_000, intervalMs: 100 },
      )
      const continued = (await call<Entry[]>('GET', list)).body.result
      expect(continued[0]?.previousRun).toBeUndefined()
      // The new run's ids continue past the kept ones.
      expect(continued[0]?.id).toBeGreaterThan(continued[1]?.id ?? Infinity)
      await agent.killGroup()
      for (const [method, target, json] of [
        ['GET', list, undefined],
        ['POST', verify, { request: { path: '/pets' }, count: 1 }],
        ['GET', `${path}/recordings`, undefined],
      ] as const) {
        const started = Date.now()
        const failed = await call<unknown>(method, target, json)
        // --agent-call-timeout 2: the call fails once no agent took it for 2 s (bounded loosely).
        expect(Date.now() - started).toBeLessThan(8000)
        expect(failed.status).toBe(503)
        expect(failed.body.error?.code).toBe('ERR_API_UNAVAILABLE')
        expect(failed.body.error?.message).toContain(ship.id)
        expect(failed.body.result).toBeNull()
      }
      await upstream.close()
    },
  )
})
