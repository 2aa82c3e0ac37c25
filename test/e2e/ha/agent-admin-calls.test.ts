import { describe, expect, it } from 'vitest'
import { freePortBlock, startGroup } from '../../helpers/agent.js'
import { startPlatformInstances } from '../../helpers/instances.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Admin calls of a mock service on an agent, with two platform instances on one PostgreSQL
 * database: the agent talks to instance B only, the API caller to instance A (and then to the
 * round-robin proxy in front of both). The call A queues is taken by the agent's long poll on B
 * and answered through B, and A answers with the runtime's real answer: inspection, detail,
 * verification, count, and the dashboard's live view served by A. With the agent killed, A answers 503 naming the ship within its
 * --agent-call-timeout, never an empty 200.
 */

if (!hasPostgres) console.warn(`agent admin calls across instances skipped: ${PG_SKIP_REASON}`)

interface Envelope<T> {
  result: T
  error: { code: string; message: string } | null
  total?: number
}

async function call<T>(
  base: string,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  return { status: res.status, body: (await res.json()) as Envelope<T> }
}

async function api<T>(
  base: string,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<T> {
  const { status, body } = await call<T>(base, auth, method, path, json)
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body.error)}`)
  return body.result
}

interface Entry {
  id: number
  url: string
}

describe.skipIf(!hasPostgres)('admin calls to an agent across platform instances', () => {
  it(
    'are answered by the runtime through an instance the agent does not talk to, and fail closed with 503 once the agent is killed',
    { timeout: 180_000 },
    async () => {
      const store = await freshPgDatabase()
      if (store === undefined) return
      const group = await startPlatformInstances(
        2,
        store,
        {},
        // The ship stays `ready` after the kill: the 503 comes from the relay, not a lost ship.
        ['--agent-call-timeout', '2', '--ship-lost-after', '120'],
      )
      const [a, b] = group.instances.map((i) => i.url) as [string, string]
      const auth = group.auth
      const harbor = await api<{ id: string }>(a, auth, 'POST', '/api/v4/private-locations', {
        name: 'lab',
        accountId: group.accountId,
        workspacesId: [group.workspaceId],
      })
      const ship = await api<{ id: string; token: string }>(
        a,
        auth,
        'POST',
        `/api/v4/private-locations/${harbor.id}/servers`,
        { name: 'lab-1' },
      )
      const block = await freePortBlock(5)
      const agent = await startGroup(
        [
          'agent',
          '--platform',
          b,
          '--harbor',
          harbor.id,
          '--ship',
          ship.id,
          '--advertise-host',
          '127.0.0.1',
          '--port-range',
          `${block}-${block + 4}`,
          '--data-dir',
          tempDir('understudy-ha-agent-'),
          '--heartbeat',
          '1',
        ],
        /^agent ready$/m,
        { env: { UNDERSTUDY_AGENT_TOKEN: ship.token } },
      )

      const w = `/api/v1/workspaces/${group.workspaceId}`
      const service = await api<{ id: number }>(a, auth, 'POST', `${w}/services`, {
        name: 'pets',
      })
      await api(a, auth, 'POST', `${w}/transactions?serviceId=${service.id}`, {
        name: 'list',
        dsl: {
          requestDsl: { method: 'GET', path: '/pets' },
          responseDsl: { status: 200, json: [{ id: 1 }] },
        },
      })
      const mock = await api<{ id: number }>(a, auth, 'POST', `${w}/service-mocks`, {
        serviceId: service.id,
        name: 'pets',
        harborId: harbor.id,
        shipId: ship.id,
      })
      const path = `${w}/service-mocks/${mock.id}`
      // Deployed through A; the agent pulls it and reports it RUNNING through B.
      const tracking = await api<{ trackingId: string }>(a, auth, 'GET', `${path}/deploy`)
      await waitFor(
        async () =>
          (
            await api<{ status: string }>(
              a,
              auth,
              'GET',
              `/api/v1/trackings/${tracking.trackingId}`,
            )
          ).status === 'FINISHED',
        'the deploy to finish',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      const record = await api<{ status: string; httpEndpoint: string }>(a, auth, 'GET', path)
      expect(record.status).toBe('RUNNING')
      expect(await (await fetch(`${record.httpEndpoint}/pets`)).json()).toEqual([{ id: 1 }])
      expect((await fetch(`${record.httpEndpoint}/pets?second=1`)).status).toBe(200)
      expect((await fetch(`${record.httpEndpoint}/nothing-here`)).status).toBe(404)

      // Inspection through A: the runtime's records, newest first, and one record's detail.
      const list = `/reports/api/v1/workspaces/${group.workspaceId}/inspection-data/service-mock/${mock.id}`
      const listed = await call<Entry[]>(a, auth, 'GET', list)
      expect(listed.status).toBe(200)
      expect(listed.body.total).toBe(3)
      expect(listed.body.result.map((e) => e.url.replace(/^https?:\/\/[^/]+/, ''))).toEqual([
        '/nothing-here',
        '/pets?second=1',
        '/pets',
      ])
      const oldest = listed.body.result[2] as Entry
      const detail = await api<Record<string, unknown>>(
        a,
        auth,
        'GET',
        `/reports/api/v1/workspaces/${group.workspaceId}/inspection-data/requests/${oldest.id}`,
      )
      expect(detail).toMatchObject({ id: oldest.id, serviceMockId: mock.id, statusCode: 200 })

      // Verification and counts through A, then through the proxy (either instance).
      const verify = `${path}/inspection/verify`
      for (const base of [a, group.url, group.url, group.url]) {
        expect(
          await api(base, auth, 'POST', verify, {
            request: { method: 'GET', path: '/pets' },
            count: 2,
          }),
        ).toMatchObject({ verified: true, actual: 2 })
      }
      expect(
        await api(a, auth, 'POST', verify, { request: { path: '/pets' }, atLeast: 3 }),
      ).toMatchObject({ verified: false, actual: 2 })
      expect(await api(group.url, auth, 'GET', `${path}/inspection/count?matched=false`)).toEqual({
        count: 1,
      })

      // The dashboard's live view on A (signed in through the proxy) follows the agent's runtime.
      const signed = await fetch(`${group.url}/ui/session`, {
        method: 'POST',
        headers: { 'x-requested-with': 'test', 'content-type': 'application/json' },
        body: JSON.stringify({
          keyId: group.apiKeyId,
          // The bootstrap key's secret, as the Basic credentials carry it.
          secret: Buffer.from(auth.slice('Basic '.length), 'base64').toString().split(':')[1],
        }),
      })
      expect(signed.status).toBe(200)
      const cookie = (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
      const csrf = ((await signed.json()) as { result: { csrfToken: string } }).result.csrfToken
      const tab = new AbortController()
      const stream = await fetch(
        `${a}/ui/events/workspaces/${group.workspaceId}/service-mocks/${mock.id}/inspection?token=${encodeURIComponent(csrf)}`,
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
      const newest = listed.body.result[0] as Entry
      await until(`"id":${newest.id}`)
      expect((await fetch(`${record.httpEndpoint}/pets?live=1`)).status).toBe(200)
      await until(`"id":${newest.id + 1}`)
      tab.abort()

      // The agent's machine is lost: the same calls through A fail closed, naming the ship.
      await agent.killGroup()
      for (const [method, target, json] of [
        ['GET', list, undefined],
        ['POST', verify, { request: { path: '/pets' }, count: 1 }],
      ] as const) {
        const started = Date.now()
        const failed = await call<unknown>(a, auth, method, target, json)
        // --agent-call-timeout 2: the call fails once no agent took it for 2 s (bounded loosely).
        expect(Date.now() - started).toBeLessThan(8000)
        expect(failed.status).toBe(503)
        expect(failed.body.error?.code).toBe('ERR_API_UNAVAILABLE')
        expect(failed.body.error?.message).toContain(ship.id)
        expect(failed.body.result).toBeNull()
      }
    },
  )
})
