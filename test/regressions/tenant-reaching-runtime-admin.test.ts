import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { hashSecret } from '../../src/api/index.js'
import { adminHeaders, type RuntimeAdmin } from '../../src/deploy/index.js'
import { startMonitorPlatform, type MonitorPlatform } from '../e2e/monitor/helpers.js'
import { waitFor } from '../helpers/wait.js'

/*
 * One account reached another account's runtime through the platform: the runtimes' admin APIs
 * listened on loopback without a token, and nothing limited where a tenant could make the platform
 * or a runtime send requests (a monitoring request step, a `proxyUrl` transaction, `bypasslive`,
 * a `postServe` webhook). The attacker read the victim's configuration and recorded headers
 * (`GET /config`, `GET /inspection`) and replaced it (`PUT /config`). Now every deployed runtime's
 * admin API needs its own token, and the egress policy refuses the admin ports and the platform's
 * own port to every tenant's request.
 */

/** A mock service deployed through the v1 API, with where it answers. */
interface Deployed {
  id: number
  endpoint: string
}

/** An account of its own (Eve), with an API key and a workspace: the attacker. */
async function otherAccount(m: MonitorPlatform): Promise<{ auth: string; ws: number }> {
  const store = m.platform.store
  const account = await store.accounts.create({ name: 'Attacker' })
  const user = await store.users.create({
    email: 'eve@attacker.example',
    firstName: 'Eve',
    lastName: 'A',
    enabled: true,
    accountRoles: ['owner', 'admin'],
    accountId: account.id,
  })
  const workspace = await store.workspaces.create({
    accountId: account.id,
    name: 'Attacker workspace',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: user.id,
  })
  await store.apiKeys.create({
    id: 'eve-key',
    userId: user.id,
    name: 'k',
    secretHash: await hashSecret('eve-secret'),
  })
  return { auth: `Basic ${Buffer.from('eve-key:eve-secret').toString('base64')}`, ws: workspace.id }
}

/** The bootstrap account (the victim): its key and workspace. */
function victimAccount(m: MonitorPlatform): { auth: string; ws: number } {
  return { auth: m.basic, ws: m.platform.bootstrap.workspaceId }
}

async function v1<T>(
  m: MonitorPlatform,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<T> {
  const res = await fetch(m.url + path, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { result: T; error: unknown }
  expect(res.status, JSON.stringify(body)).toBeLessThan(300)
  return body.result
}

/** Creates a service, its transactions and a mock service of them in `ws`, deploys it and waits for RUNNING. */
async function deploy(
  m: MonitorPlatform,
  account: { auth: string; ws: number },
  transactions: unknown[],
  settings: Record<string, unknown> = {},
): Promise<Deployed> {
  const base = `/api/v1/workspaces/${account.ws}`
  const service = await v1<{ id: number }>(m, account.auth, 'POST', `${base}/services`, {
    name: `svc-${Math.random().toString(36).slice(2)}`,
  })
  // One transaction answers as an object, several as a list.
  const created = await v1<{ id: number } | Array<{ id: number }>>(
    m,
    account.auth,
    'POST',
    `${base}/transactions?serviceId=${service.id}`,
    { transactions },
  )
  const txnIds = Array.isArray(created) ? created.map((t) => t.id) : [created.id]
  const mock = await v1<{ id: number }>(m, account.auth, 'POST', `${base}/service-mocks`, {
    serviceId: service.id,
    name: 'm',
    mockServiceTransactions: txnIds,
    ...settings,
  })
  const tracking = await v1<{ trackingId: string }>(
    m,
    account.auth,
    'POST',
    `${base}/service-mocks/${mock.id}/deploy`,
  )
  const ended = await m.platform.deployer.settled(tracking.trackingId)
  expect(ended?.status, JSON.stringify(ended?.errors)).toBe('FINISHED')
  const record = await v1<{ httpEndpoint: string }>(
    m,
    account.auth,
    'GET',
    `${base}/service-mocks/${mock.id}`,
  )
  return { id: mock.id, endpoint: record.httpEndpoint }
}

function text(path: string, body: string): unknown {
  return {
    name: `get ${path}`,
    dsl: {
      requestDsl: { method: 'GET', path },
      responseDsl: {
        status: 200,
        content: Buffer.from(body).toString('base64'),
        contentType: 'text',
      },
    },
  }
}

/** The victim: a deployed mock service answering `GET /secret` with "victim's answer", and its admin API. */
async function victim(
  m: MonitorPlatform,
): Promise<{ mock: Deployed; admin: RuntimeAdmin; port: number }> {
  const mock = await deploy(m, victimAccount(m), [text('/secret', "victim's answer")])
  const admin = await m.platform.deployer.admin(mock.id)
  if (admin === null) throw new Error('the victim is not running')
  // A request with a header worth stealing, recorded by the victim's inspection.
  expect(
    await (
      await fetch(`${mock.endpoint}/secret`, {
        headers: { authorization: 'Bearer victim-credential' },
      })
    ).text(),
  ).toBe("victim's answer")
  return { mock, admin, port: Number(new URL(admin.url).port) }
}

/** The document an attacker would PUT: the victim's mock then answers the attacker's body. */
const hijack = JSON.stringify({
  transactions: [
    {
      id: 1,
      dsl: { requestDsl: { method: 'GET', path: '/secret' }, responseDsl: { text: 'hijacked' } },
    },
  ],
})

async function expectVictimUntouched(v: { mock: Deployed; admin: RuntimeAdmin }): Promise<void> {
  expect(await (await fetch(`${v.mock.endpoint}/secret`)).text()).toBe("victim's answer")
}

describe("a tenant reaching another tenant's runtime admin API", () => {
  it(
    "answers 401 to a runtime admin call without the runtime's token, and serves the platform's calls that carry it",
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform()
      const v = await victim(m)
      for (const [method, path] of [
        ['GET', '/config'],
        ['GET', '/inspection'],
        ['GET', '/log'],
        ['GET', '/scenarios'],
        ['DELETE', '/inspection'],
      ] as const) {
        const res = await fetch(v.admin.url + path, { method })
        expect(res.status, `${method} ${path}`).toBe(401)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
          'ERR_API_UNAUTHORIZED',
        )
      }
      const wrong = await fetch(`${v.admin.url}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: 'Bearer guessed' },
        body: hijack,
      })
      expect(wrong.status).toBe(401)
      await expectVictimUntouched(v)
      // The platform's own calls carry the token: its inspection API still reads the runtime.
      const ws = victimAccount(m).ws
      const entries = await v1<Array<{ url?: string; path?: string }>>(
        m,
        m.basic,
        'GET',
        `/reports/api/v1/workspaces/${ws}/inspection-data/service-mock/${v.mock.id}`,
      )
      // The request of victim() and the one of expectVictimUntouched.
      expect(entries).toHaveLength(2)
      expect(
        (await fetch(`${v.admin.url}/config`, { headers: adminHeaders(v.admin) })).status,
      ).toBe(200)
      // The token is the runtime's own, and not in the arguments every user of the machine can list.
      const { result: health } = (await (await fetch(`${v.admin.url}/health`)).json()) as {
        result: { pid: number }
      }
      expect(v.admin.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      if (existsSync(`/proc/${health.pid}/cmdline`)) {
        const argv = readFileSync(`/proc/${health.pid}/cmdline`, 'utf8')
        expect(argv).toContain('run')
        expect(argv).not.toContain(v.admin.token)
      }
    },
  )

  it(
    "fails a monitoring request step aimed at a runtime's admin API or at the platform itself, naming the egress policy",
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform()
      const v = await victim(m)
      const eve = await otherAccount(m)
      const app = await fetch(`${m.url}/apps`, {
        method: 'POST',
        headers: { authorization: eve.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Eve',
          website_url: 'https://e.example',
          callback_url: 'https://e.example/cb',
        }),
      })
      const token = ((await app.json()) as { data: { access_token: string } }).data.access_token
      const eveCall = async (
        method: string,
        path: string,
        json?: unknown,
      ): Promise<{ data: Record<string, unknown> & { trigger_url: string } }> => {
        const res = await fetch(m.url + path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        })
        expect(res.status).toBeLessThan(300)
        return (await res.json()) as { data: Record<string, unknown> & { trigger_url: string } }
      }
      const team =
        ((await eveCall('GET', '/account')).data['teams'] as Array<{ id: string }>)[0]?.id ?? ''
      const bucket = (await eveCall('POST', `/buckets?name=steal&team_uuid=${team}`)).data[
        'key'
      ] as string
      const platformPort = new URL(m.url).port
      const steps = [
        { step_type: 'request', method: 'GET', url: `http://127.0.0.1:${v.port}/config` },
        { step_type: 'request', method: 'GET', url: `http://localhost:${v.port}/inspection` },
        {
          step_type: 'request',
          method: 'PUT',
          url: `http://[::ffff:127.0.0.1]:${v.port}/config`,
          headers: { 'Content-Type': ['application/json'] },
          body: hijack,
        },
        {
          step_type: 'request',
          method: 'GET',
          url: `http://2130706433:${platformPort}/api/v1/workspaces`,
        },
        { step_type: 'request', method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' },
        // The OAuth token endpoint is a URL the tenant writes too.
        {
          step_type: 'request',
          method: 'GET',
          url: `${m.url}/unused`,
          auth: {
            auth_type: 'oauth_2',
            grant_type: 'client_credentials',
            access_token_url: `http://127.0.0.1:${v.port}/config`,
            client_id: 'c',
            client_secret: 's',
          },
        },
      ]
      const test = (await eveCall('POST', `/buckets/${bucket}/tests`, { name: 'steal', steps }))
        .data
      const trigger = await fetch(test.trigger_url)
      expect(trigger.status).toBe(201)
      const run = ((await trigger.json()) as { data: { runs: Array<{ url: string }> } }).data
        .runs[0]
      type RunResult = {
        result: string
        requests: Array<{
          result: string
          error: string | null
          response_status_code: string | null
        }>
      }
      const poll = async (): Promise<RunResult> =>
        (
          (await (
            await fetch(run?.url ?? '', { headers: { authorization: `Bearer ${token}` } })
          ).json()) as { data: RunResult }
        ).data
      let result = await poll()
      await waitFor(
        async () => {
          result = await poll()
          return ['pass', 'fail'].includes(result.result)
        },
        'the run to finish',
        { timeoutMs: 15_000, intervalMs: 50 },
      )
      expect(result.result).toBe('fail')
      const requests = result.requests
      expect(requests).toHaveLength(steps.length)
      for (const [i, step] of requests.entries()) {
        expect(step.result, steps[i]?.url).toBe('fail')
        expect(step.response_status_code, steps[i]?.url).toBeNull()
        expect(step.error, steps[i]?.url).toContain('Refused by the egress policy "loopback"')
      }
      expect(requests[0]?.error).toContain("is the platform's own port or a runtime's admin API")
      expect(requests[3]?.error).toContain("is the platform's own port or a runtime's admin API")
      expect(requests[4]?.error).toContain('link-local')
      expect(requests[5]?.error).toMatch(/^authentication failed: .*Refused by the egress policy/)
      await expectVictimUntouched(v)
    },
  )

  it(
    "answers 502 problem+json naming the policy when a proxyUrl transaction points at a runtime's admin API",
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform()
      const v = await victim(m)
      const eve = await otherAccount(m)
      const attacker = await deploy(m, eve, [
        {
          name: 'steal',
          dsl: {
            requestDsl: { method: 'ANY', path: '/config' },
            responseDsl: { proxyUrl: `http://127.0.0.1:${v.port}` },
          },
        },
      ])
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', hijack],
      ] as const) {
        const res = await fetch(`${attacker.endpoint}/config`, {
          method,
          ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
        })
        expect(res.status).toBe(502)
        expect(res.headers.get('content-type')).toContain('application/problem+json')
        const problem = (await res.json()) as { code: string; detail: string }
        expect(problem.code).toBe('ERR_NET_EGRESS_REFUSED')
        expect(problem.detail).toContain('Refused by the egress policy "loopback"')
        expect(problem.detail).toContain(`127.0.0.1:${v.port}`)
      }
      await expectVictimUntouched(v)
    },
  )

  it(
    "answers 502 naming the policy when bypasslive passes unmatched requests to a runtime's admin API",
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform()
      const v = await victim(m)
      const eve = await otherAccount(m)
      const attacker = await deploy(m, eve, [text('/unrelated', 'x')], {
        noMatchingRequestPreference: 'bypasslive',
        liveSystemHost: 'localhost',
        liveSystemPort: v.port,
      })
      const res = await fetch(`${attacker.endpoint}/inspection`)
      expect(res.status).toBe(502)
      const problem = (await res.json()) as { code: string; detail: string }
      expect(problem.code).toBe('ERR_NET_EGRESS_REFUSED')
      expect(problem.detail).toContain('egress policy "loopback"')
      const put = await fetch(`${attacker.endpoint}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: hijack,
      })
      expect(put.status).toBe(502)
      await expectVictimUntouched(v)
    },
  )

  it(
    "refuses a postServe webhook aimed at a runtime's admin API: counted as failed, logged with the policy, nothing sent",
    { timeout: 60_000 },
    async () => {
      const m = await startMonitorPlatform()
      const v = await victim(m)
      const eve = await otherAccount(m)
      const attacker = await deploy(m, eve, [
        {
          name: 'hook',
          dsl: {
            requestDsl: { method: 'GET', path: '/go' },
            responseDsl: {
              text: 'ok',
              postServe: [
                {
                  url: `http://127.0.0.1:${v.port}/config`,
                  method: 'PUT',
                  headers: [{ name: 'content-type', value: 'application/json' }],
                  body: hijack,
                },
              ],
            },
          },
        },
      ])
      expect(await (await fetch(`${attacker.endpoint}/go`)).text()).toBe('ok')
      const scenarios = `/api/v1/workspaces/${eve.ws}/service-mocks/${attacker.id}/scenarios`
      let stats: { sent: number; failed: number } | null = null
      await waitFor(
        async () => {
          stats = (
            await v1<{ postServe: { sent: number; failed: number } | null }>(
              m,
              eve.auth,
              'GET',
              scenarios,
            )
          ).postServe
          return stats !== null && stats.failed > 0
        },
        'the webhook to fail',
        { timeoutMs: 10_000, intervalMs: 50 },
      )
      expect(stats).toMatchObject({ sent: 0, failed: 1 })
      const log = (await m.platform.deployer.logsOf(attacker.id)).join('\n')
      expect(log).toContain('webhook failed')
      expect(log).toContain('Refused by the egress policy')
      await expectVictimUntouched(v)
    },
  )
})
