import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { describeRealworld, readRealworld } from '../../helpers/realworld.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * The platform's end-to-end scenario through the real `understudy platform` binary: create a service,
 * upload a HAR, create a mock service from its transactions, deploy, poll the tracking, replay the
 * HAR against httpEndpoint, read the requests back through analytics, change a transaction and
 * configure under load with zero failed requests, stop, restart the platform on the same data dir,
 * delete.
 */

const key = { id: 'ci-key', secret: 'ci-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

interface Envelope<T> {
  apiVersion: number
  error: { code: string; message: string } | null
  result: T
  total?: number
}

async function api<T>(
  platform: CliServer,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; body: Envelope<T> }> {
  const { json, headers, ...rest } = init
  const all = new Headers(headers)
  all.set('authorization', auth)
  if (json !== undefined) all.set('content-type', 'application/json')
  const res = await fetch(platform.url + path, {
    ...rest,
    headers: all,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as Envelope<T> }
}

interface TrackingView {
  trackingId: string
  status: string
  errors: Array<{ message: string }>
  trackingUrl: string
}
interface MockView {
  id: number
  status: string
  httpEndpoint: string | null
}

async function settled(platform: CliServer, tracking: TrackingView): Promise<TrackingView> {
  let last = tracking
  await waitFor(
    async () => {
      last = (await api<TrackingView>(platform, tracking.trackingUrl)).body.result
      return last.status === 'FINISHED' || last.status === 'FAILED'
    },
    `tracking ${tracking.trackingId} to finish`,
    { timeoutMs: 20_000, intervalMs: 100 },
  )
  return last
}

const harName = 'microcks-api-pastries.har'

interface HarEntry {
  request: { method: string; url: string; postData?: { text?: string; mimeType?: string } }
  response: { status: number; content: { text?: string; encoding?: string } }
}

describeRealworld('the platform end to end', () => {
  it(
    'serves a HAR as a deployed mock service, reconfigures it under load, and brings it back after a restart',
    { timeout: 120_000 },
    async () => {
      const dataDir = tempDir('understudy-platform-e2e-')
      let platform = await startCli(
        ['platform', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
        { env },
      )
      const user = await fetch(`${platform.url}/api/v4/user`, { headers: { authorization: auth } })
      const accountId = ((await user.json()) as { result: { accountId: number } }).result.accountId
      const workspaces = await fetch(`${platform.url}/api/v4/workspaces?accountId=${accountId}`, {
        headers: { authorization: auth },
      })
      const workspaceId = ((await workspaces.json()) as { result: Array<{ id: number }> }).result[0]
        ?.id as number

      // a service, and the HAR uploaded into it
      const service = await api<{ id: number }>(
        platform,
        `/api/v1/workspaces/${workspaceId}/services`,
        { method: 'POST', json: { name: 'pastries', description: 'from a HAR' } },
      )
      expect(service.status).toBe(201)
      const form = new FormData()
      form.set('serviceId', String(service.body.result.id))
      form.set('file', new Blob([new Uint8Array(readRealworld('har', harName))]), harName)
      const uploaded = await api<Array<{ id: number; name: string }>>(
        platform,
        `/api/v1/workspaces/${workspaceId}/transactions`,
        { method: 'POST', body: form },
      )
      expect(uploaded.status).toBe(200)
      const txns = uploaded.body.result
      expect(txns.length).toBeGreaterThan(2)

      // a mock service of those transactions, deployed
      const created = await api<MockView>(
        platform,
        `/api/v1/workspaces/${workspaceId}/service-mocks`,
        {
          method: 'POST',
          json: {
            serviceId: service.body.result.id,
            name: 'pastries mock',
            type: 'TRANSACTIONAL',
            mockServiceTransactions: txns.map((t) => ({ txnId: t.id, priority: 10 })),
          },
        },
      )
      expect(created.status).toBe(201)
      expect(created.body.result).toMatchObject({ status: 'STOPPED', httpEndpoint: null })
      const mockId = created.body.result.id
      const mockPath = `/api/v1/workspaces/${workspaceId}/service-mocks/${mockId}`
      const deploy = await api<TrackingView>(platform, `${mockPath}/deploy`)
      expect(deploy.status).toBe(200)
      expect(deploy.body.result.trackingUrl).toBe(
        `/api/v1/trackings/${deploy.body.result.trackingId}`,
      )
      expect((await settled(platform, deploy.body.result)).status).toBe('FINISHED')
      const running = (await api<MockView>(platform, mockPath)).body.result
      expect(running.status).toBe('RUNNING')
      const endpoint = running.httpEndpoint as string
      expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

      // the recording replayed against the mock service
      const entries = (
        JSON.parse(readRealworld('har', harName).toString('utf8')) as {
          log: { entries: HarEntry[] }
        }
      ).log.entries
      const replayed = entries.filter((e) => e.response.status >= 200).slice(0, 5)
      for (const entry of replayed) {
        const url = new URL(entry.request.url)
        const body = entry.request.postData?.text
        const res = await fetch(endpoint + url.pathname + url.search, {
          method: entry.request.method,
          ...(body === undefined || body === ''
            ? {}
            : {
                body,
                headers: { 'content-type': entry.request.postData?.mimeType ?? 'application/json' },
              }),
        })
        expect(res.status).toBe(entry.response.status)
        const text = entry.response.content.text ?? ''
        expect(await res.text()).toBe(
          entry.response.content.encoding === 'base64'
            ? Buffer.from(text, 'base64').toString('utf8')
            : text,
        )
      }

      // read back through the analytics API
      const inspection = await api<
        Array<{ id: number; url: string; matched: boolean; serviceMockId: number }>
      >(
        platform,
        `/reports/api/v1/workspaces/${workspaceId}/inspection-data/service-mock/${mockId}?limit=100`,
      )
      expect(inspection.status).toBe(200)
      expect(inspection.body.total).toBe(replayed.length)
      expect(inspection.body.result.every((e) => e.matched && e.serviceMockId === mockId)).toBe(
        true,
      )
      const detail = await api<{ statusCode: number; requestHeaders: unknown[] }>(
        platform,
        `/reports/api/v1/workspaces/${workspaceId}/inspection-data/requests/${inspection.body.result[0]?.id ?? 0}`,
      )
      expect(detail.status).toBe(200)
      expect(detail.body.result.statusCode).toBeGreaterThanOrEqual(200)

      // change a transaction, then configure while a load runs: no failed request
      const first = replayed[0] as HarEntry
      const firstUrl = new URL(first.request.url)
      const target = txns[0] as { id: number }
      const stored = await api<{
        id: number
        name: string
        dsl: { responseDsl: Record<string, unknown> }
      }>(platform, `/api/v1/workspaces/${workspaceId}/transactions/${target.id}`)
      const changedDsl = {
        ...stored.body.result.dsl,
        responseDsl: {
          ...stored.body.result.dsl.responseDsl,
          content: Buffer.from('{"changed":true}').toString('base64'),
          contentType: 'json',
        },
      }
      expect(
        (
          await api(platform, `/api/v1/workspaces/${workspaceId}/transactions/${target.id}`, {
            method: 'PUT',
            json: { ...stored.body.result, dsl: changedDsl },
          })
        ).status,
      ).toBe(201)
      // The load runs until stopped; the swap must happen while it answers: requests are answered
      // before the configure starts and after it finished, on the same connections.
      let finish: (result: autocannon.Result) => void = () => {}
      const finished = new Promise<autocannon.Result>((resolve) => {
        finish = resolve
      })
      const load = autocannon(
        {
          url: endpoint + firstUrl.pathname + firstUrl.search,
          method: first.request.method as 'GET',
          connections: 10,
          duration: 30,
        },
        (_err, result) => finish(result),
      )
      let answered = 0
      load.on('response', () => {
        answered++
      })
      await waitFor(() => answered >= 50, 'the load to be answered', { timeoutMs: 10_000 })
      const configure = await api<TrackingView>(platform, `${mockPath}/configure`)
      expect((await settled(platform, configure.body.result)).status).toBe('FINISHED')
      const atSwap = answered
      await waitFor(() => answered >= atSwap + 50, 'the load to go on after the swap', {
        timeoutMs: 10_000,
      })
      load.stop()
      const result = await finished
      expect({ errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx }).toEqual({
        errors: 0,
        timeouts: 0,
        non2xx: 0,
      })
      // the changed transaction now answers with its new body
      const request = stored.body.result.dsl as unknown as {
        requestDsl: {
          method?: string
          url?: { matchingValue?: string }
          queryParams?: Array<{ key: string; matchingValue: string }>
        }
      }
      const query = (request.requestDsl.queryParams ?? [])
        .map((q) => `${encodeURIComponent(q.key)}=${encodeURIComponent(q.matchingValue)}`)
        .join('&')
      const changed = await fetch(
        `${endpoint}${request.requestDsl.url?.matchingValue ?? '/'}${query === '' ? '' : `?${query}`}`,
        { method: request.requestDsl.method ?? 'GET' },
      )
      expect(await changed.json()).toEqual({ changed: true })

      // stop: the endpoint goes away
      const stop = await api<TrackingView>(platform, `${mockPath}/stop`)
      expect((await settled(platform, stop.body.result)).status).toBe('FINISHED')
      expect((await api<MockView>(platform, mockPath)).body.result).toMatchObject({
        status: 'STOPPED',
        httpEndpoint: null,
      })
      await expect(
        fetch(endpoint + firstUrl.pathname, { headers: { connection: 'close' } }),
      ).rejects.toThrow()

      // deploy again, then restart the platform on the same data dir
      expect(
        (
          await settled(
            platform,
            (await api<TrackingView>(platform, `${mockPath}/deploy`)).body.result,
          )
        ).status,
      ).toBe('FINISHED')
      const endpointBefore = (await api<MockView>(platform, mockPath)).body.result
        .httpEndpoint as string
      expect((await platform.stop()).code).toBe(0)
      await expect(
        fetch(endpointBefore + firstUrl.pathname, { headers: { connection: 'close' } }),
      ).rejects.toThrow()
      platform = await startCli(
        ['platform', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
        { env },
      )
      expect(platform.stdout()).not.toContain('bootstrap API key')
      expect(
        (
          await api<{ name: string }>(
            platform,
            `/api/v1/workspaces/${workspaceId}/services/${service.body.result.id}`,
          )
        ).body.result.name,
      ).toBe('pastries')
      let back: MockView | undefined
      await waitFor(
        async () => {
          back = (await api<MockView>(platform, mockPath)).body.result
          return back.status === 'RUNNING'
        },
        'the mock service to run again',
        { timeoutMs: 20_000, intervalMs: 100 },
      )
      expect(back?.status).toBe('RUNNING')
      expect(back?.httpEndpoint).toBe(endpointBefore)
      const again = await fetch(endpointBefore + firstUrl.pathname + firstUrl.search, {
        method: first.request.method,
      })
      expect(again.status).toBe(first.response.status)

      // delete: stops first, 204, gone
      const deleted = await fetch(platform.url + mockPath, {
        method: 'DELETE',
        headers: { authorization: auth },
      })
      expect(deleted.status).toBe(204)
      expect((await api(platform, mockPath)).status).toBe(404)
      await expect(
        fetch(endpointBefore + firstUrl.pathname, { headers: { connection: 'close' } }),
      ).rejects.toThrow()
      expect((await platform.stop()).code).toBe(0)
    },
  )

  it('bootstraps once: a generated key is printed and written 0600, and a second start creates nothing', async () => {
    const dataDir = tempDir('understudy-platform-boot-')
    const first = await startCli([
      'platform',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
    ])
    const line = first.stdout().split('\n')[1] ?? ''
    expect(first.stdout().split('\n')[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/)
    const match = /bootstrap API key \(shown once\): ([^:\s]+):(\S+)/.exec(line)
    expect(match).not.toBeNull()
    const file = join(dataDir, 'bootstrap-credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const credentials = JSON.parse(readFileSync(file, 'utf8')) as {
      apiKeyId: string
      apiKeySecret: string
      workspaceId: number
    }
    expect([credentials.apiKeyId, credentials.apiKeySecret]).toEqual([match?.[1], match?.[2]])
    const user = await fetch(`${first.url}/api/v4/user`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${credentials.apiKeyId}:${credentials.apiKeySecret}`).toString('base64')}`,
      },
    })
    expect(user.status).toBe(200)
    expect((await first.stop()).code).toBe(0)
    const second = await startCli([
      'platform',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
    ])
    expect(second.stdout()).not.toContain('bootstrap API key')
    const workspaces = await fetch(`${second.url}/api/v4/workspaces?accountId=1`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${credentials.apiKeyId}:${credentials.apiKeySecret}`).toString('base64')}`,
      },
    })
    expect(((await workspaces.json()) as { total: number }).total).toBe(1)
    expect((await second.stop()).code).toBe(0)
  })
})
