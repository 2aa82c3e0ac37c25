import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { LocalDeployer } from '../../../src/deploy/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { startUpstream } from '../../helpers/upstream.js'
import { replay as replayAll, type ReplayRequest } from '../../helpers/traffic.js'
import { untilTrackingEnds } from '../../helpers/tracking.js'

/*
 * Dynamic responses through the platform, on real `understudy run` processes (dist/ must be built):
 * a mock service in record mode (with two replicas) whose recording lands in its service, and the cors, faults and
 * templateSeed fields of mock service records.
 */

interface Envelope<T> {
  error: { code: string; message: string; details?: Array<{ path: string }> } | null
  result: T
}
const json = async <T>(res: Response): Promise<Envelope<T>> => (await res.json()) as Envelope<T>

const requests: ReplayRequest[] = [
  ['/pets?limit=2', {}],
  ['/pets/1', {}],
  [
    '/orders',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item": "ball"}' },
  ],
  [
    '/orders',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item": "rope"}' },
  ],
]

const replay = async (base: string): Promise<string[]> => await replayAll(base, requests)

async function platformWithDeployer(): Promise<TestPlatform> {
  return startTestPlatform({
    deployer: (deps, dataDir) =>
      new LocalDeployer({
        store: deps.store,
        dataDir,
        log: deps.log,
        runtimeArgs: ['--drain-timeout', '1000'],
      }),
  })
}

/** Runs a deploy/configure/stop action and waits for its tracking to end. */
async function act(
  platform: TestPlatform,
  path: string,
  action: 'deploy' | 'configure' | 'stop',
): Promise<string> {
  const res = await platform.request(`${path}/${action}`)
  const tracking = await json<{ trackingId: string; status: string }>(res)
  if (tracking.error !== null) throw new Error(`${action}: ${tracking.error.message}`)
  return await untilTrackingEnds(
    async () =>
      (
        await json<{ status: string }>(
          await platform.request(`/api/v1/trackings/${tracking.result.trackingId}`),
        )
      ).result.status,
  )
}

describe('platform: record mode', () => {
  it(
    'records through a deployed mock service into its service, then serves the recording with identical answers',
    { timeout: 90_000 },
    async () => {
      const upstream = await startUpstream((req, res) => {
        const body = Buffer.from(
          JSON.stringify({ method: req.method, url: req.url, got: req.body.toString() }),
        )
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' })
        res.end(body)
      })
      const platform = await platformWithDeployer()
      const ws = platform.workspaceId
      const service = await json<{ id: number }>(
        await platform.request(`/api/v1/workspaces/${ws}/services`, {
          method: 'POST',
          json: { name: 'pets' },
        }),
      )
      const base = `/api/v1/workspaces/${ws}/service-mocks`
      // record needs a live system
      const missing = await platform.request(base, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'r', noMatchingRequestPreference: 'record' },
      })
      expect(missing.status).toBe(400)
      expect((await json(missing)).error?.details?.[0]?.path).toBe('/liveSystemHost')

      // with replicas: the runtime's primary merges what every replica recorded (docs/runtime.md)
      const created = await json<{
        id: number
        noMatchingRequestPreference: string
        replicas: number
      }>(
        await platform.request(base, {
          method: 'POST',
          json: {
            serviceId: service.result.id,
            name: 'recorder',
            noMatchingRequestPreference: 'RECORD',
            liveSystemHost: upstream.url,
            replicas: 2,
          },
        }),
      )
      expect(created.result).toMatchObject({ noMatchingRequestPreference: 'record', replicas: 2 })
      const path = `${base}/${created.result.id}`
      expect(await act(platform, path, 'deploy')).toBe('FINISHED')
      const endpoint = (await json<{ httpEndpoint: string }>(await platform.request(path))).result
        .httpEndpoint
      // two clients at once, on two connections: one per replica
      const [live, other] = await Promise.all([replay(endpoint), replay(endpoint)])
      expect(other).toEqual(live)
      expect(upstream.requests).toHaveLength(8)

      // read through the platform without saving
      const pending = await json<{ count: number }>(await platform.request(`${path}/recordings`))
      expect(pending.result.count).toBe(4)
      const transactions = `/api/v1/workspaces/${ws}/transactions?serviceId=${service.result.id}`
      expect((await json<unknown[]>(await platform.request(transactions))).result).toHaveLength(0)

      // switch to a normal mode: configure saves the recording into the service, then serves it
      const patched = await platform.request(path, {
        method: 'PATCH',
        json: { noMatchingRequestPreference: 'return404' },
      })
      expect(patched.status).toBe(201)
      expect(await act(platform, path, 'configure')).toBe('FINISHED')
      const stored = await json<Array<{ id: number; dsl: { requestDsl: { method: string } } }>>(
        await platform.request(transactions),
      )
      expect(stored.result).toHaveLength(4)
      await upstream.close()
      expect(await replay(endpoint)).toEqual(live)
      expect((await fetch(`${endpoint}/never-recorded`)).status).toBe(404)

      // saving again (on demand, and on stop) updates the same transactions, never duplicates them
      const saved = await json<{ recorded: number; created: number[]; updated: number[] }>(
        await platform.request(`${path}/recordings`, { method: 'POST' }),
      )
      expect(saved.result).toMatchObject({ recorded: 4, created: [] })
      expect(saved.result.updated.sort()).toEqual(stored.result.map((t) => t.id).sort())
      expect(await act(platform, path, 'stop')).toBe('FINISHED')
      expect((await json<unknown[]>(await platform.request(transactions))).result).toHaveLength(4)
      // a stopped mock service holds no recording
      expect((await platform.request(`${path}/recordings`, { method: 'POST' })).status).toBe(409)
      expect(
        (await platform.request(`/api/v1/workspaces/${ws}/service-mocks/999999/recordings`)).status,
      ).toBe(404)
    },
  )
})

/** One GET with node:http on a fresh connection: the answer, or the error code the client saw. */
async function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status?: number; headers?: http.IncomingHttpHeaders; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
      res.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ status: res.statusCode ?? 0, error: err.code ?? err.message }),
      )
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }))
  })
}

describe('platform: cors, faults and templateSeed of mock service records', () => {
  it(
    'validates, stores and returns them, and a deployed mock service answers with CORS headers and the fault',
    { timeout: 90_000 },
    async () => {
      const platform = await platformWithDeployer()
      const ws = platform.workspaceId
      const service = await json<{ id: number }>(
        await platform.request(`/api/v1/workspaces/${ws}/services`, {
          method: 'POST',
          json: { name: 'svc' },
        }),
      )
      const txn = await json<Array<{ id: number }>>(
        await platform.request(
          `/api/v1/workspaces/${ws}/transactions?serviceId=${service.result.id}`,
          {
            method: 'POST',
            json: {
              transactions: [
                {
                  name: 'seeded',
                  dsl: {
                    requestDsl: { method: 'GET', path: '/seeded' },
                    responseDsl: {
                      template: true,
                      text: '{{randomValue length=12 type="ALPHANUMERIC"}}',
                    },
                  },
                },
              ],
            },
          },
        ),
      )
      expect(txn.error).toBeNull()
      const base = `/api/v1/workspaces/${ws}/service-mocks`
      for (const [body, field] of [
        [{ cors: { origins: 'http://app.test' } }, '/cors'],
        [{ cors: { origin: ['x'] } }, '/cors'],
        [{ faults: 'boom' }, '/faults'],
        [{ faults: { type: 'connection_reset', probability: 2 } }, '/faults'],
        [{ templateSeed: 'x' }, '/templateSeed'],
      ] as const) {
        const res = await platform.request(base, {
          method: 'POST',
          json: { serviceId: service.result.id, name: 'bad', ...body },
        })
        expect(res.status).toBe(400)
        const error = (await json(res)).error
        expect(error?.details?.some((d) => d.path.startsWith(field))).toBe(true)
      }
      expect((await json<unknown[]>(await platform.request(base))).result).toHaveLength(0)

      const cors = { origins: ['http://app.test'], credentials: true, maxAge: 60 }
      const created = await json<{
        id: number
        cors: unknown
        faults: unknown
        templateSeed: unknown
      }>(
        await platform.request(base, {
          method: 'POST',
          json: {
            serviceId: service.result.id,
            name: 'chaos',
            cors,
            faults: { type: 'empty_response', probability: 0.5 },
            templateSeed: 7,
          },
        }),
      )
      expect(created.result).toMatchObject({
        cors,
        faults: { type: 'empty_response', probability: 0.5 },
        templateSeed: 7,
      })
      const path = `${base}/${created.result.id}`
      // PATCH changes one; a GET sent back as a PUT is accepted unchanged
      expect(
        (await platform.request(path, { method: 'PATCH', json: { faults: 'connection_reset' } }))
          .status,
      ).toBe(201)
      expect(
        (await platform.request(path, { method: 'PATCH', json: { faults: { type: 'nope' } } }))
          .status,
      ).toBe(400)
      const read = await json<Record<string, unknown>>(await platform.request(path))
      expect(read.result).toMatchObject({ cors, faults: 'connection_reset', templateSeed: 7 })
      expect((await platform.request(path, { method: 'PUT', json: read.result })).status).toBe(201)

      expect(await act(platform, path, 'deploy')).toBe('FINISHED')
      const endpoint = (await json<{ httpEndpoint: string }>(await platform.request(path))).result
        .httpEndpoint
      // the preflight is answered from the configuration, without matching (so without the fault)
      const preflight = await fetch(`${endpoint}/seeded`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://app.test',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-trace',
        },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.test')
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
      expect(preflight.headers.get('access-control-max-age')).toBe('60')
      // the mock-service fault on every transaction without its own
      expect((await rawGet(`${endpoint}/seeded`, { origin: 'http://app.test' })).error).toBe(
        'ECONNRESET',
      )
      // an unmatched request still carries the CORS headers
      const missing = await rawGet(`${endpoint}/nothing`, { origin: 'http://app.test' })
      expect(missing.status).toBe(404)
      expect(missing.headers?.['access-control-allow-origin']).toBe('http://app.test')

      // without the fault, templateSeed makes the random values repeatable across deploys
      expect(
        (await platform.request(path, { method: 'PATCH', json: { faults: null } })).status,
      ).toBe(201)
      expect(await act(platform, path, 'configure')).toBe('FINISHED')
      expect(await act(platform, path, 'stop')).toBe('FINISHED')
      expect(await act(platform, path, 'deploy')).toBe('FINISHED')
      const endpointOf = async (): Promise<string> =>
        (await json<{ httpEndpoint: string }>(await platform.request(path))).result.httpEndpoint
      const first = await (await fetch(`${await endpointOf()}/seeded`)).text()
      expect(first).toMatch(/^[A-Za-z0-9]{12}$/)
      expect(await act(platform, path, 'stop')).toBe('FINISHED')
      expect(await act(platform, path, 'deploy')).toBe('FINISHED')
      expect(await (await fetch(`${await endpointOf()}/seeded`)).text()).toBe(first)
      expect(
        (await json<{ faults: unknown }>(await platform.request(path))).result.faults,
      ).toBeNull()
    },
  )
})

describe('platform: matchHost of mock service records', () => {
  it(
    'stores matchHost and a deployed mock service routes by Host; validateRequests: true is refused, naming the field',
    { timeout: 90_000 },
    async () => {
      const platform = await platformWithDeployer()
      const ws = platform.workspaceId
      const service = await json<{ id: number }>(
        await platform.request(`/api/v1/workspaces/${ws}/services`, {
          method: 'POST',
          json: { name: 'apis' },
        }),
      )
      const txns = await json<Array<{ id: number }>>(
        await platform.request(
          `/api/v1/workspaces/${ws}/transactions?serviceId=${service.result.id}`,
          {
            method: 'POST',
            json: {
              transactions: [
                {
                  name: 'github',
                  dsl: {
                    requestDsl: { method: 'GET', path: '/users', host: 'api.github.com' },
                    responseDsl: { text: 'github' },
                  },
                },
                {
                  name: 'gitlab',
                  dsl: {
                    requestDsl: { method: 'GET', path: '/users', host: 'gitlab.example' },
                    responseDsl: { text: 'gitlab' },
                  },
                },
              ],
            },
          },
        ),
      )
      expect(txns.error).toBeNull()
      const base = `/api/v1/workspaces/${ws}/service-mocks`
      const refused = await platform.request(base, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'checked', validateRequests: true },
      })
      expect(refused.status).toBe(400)
      expect((await json(refused)).error?.details?.[0]?.path).toBe('/validateRequests')
      expect((await json<unknown[]>(await platform.request(base))).result).toHaveLength(0)

      const created = await json<{ id: number; matchHost: boolean; validateRequests: boolean }>(
        await platform.request(base, {
          method: 'POST',
          json: {
            serviceId: service.result.id,
            name: 'by host',
            matchHost: true,
            validateRequests: false,
          },
        }),
      )
      expect(created.result).toMatchObject({ matchHost: true, validateRequests: false })
      const path = `${base}/${created.result.id}`
      expect(await act(platform, path, 'deploy')).toBe('FINISHED')
      const endpoint = (await json<{ httpEndpoint: string }>(await platform.request(path))).result
        .httpEndpoint
      const body = async (host: string): Promise<string> =>
        await new Promise((resolve, reject) => {
          http
            .get(`${endpoint}/users`, { agent: false, headers: { host } }, (res) => {
              let text = ''
              res.on('data', (c: Buffer) => {
                text += c.toString()
              })
              res.on('end', () =>
                resolve(`${res.statusCode ?? 0} ${text.startsWith('{') ? '' : text}`.trim()),
              )
            })
            .on('error', reject)
        })
      expect(await body('gitlab.example')).toBe('200 gitlab')
      expect(await body('api.github.com')).toBe('200 github')
      expect(await body('elsewhere.test')).toBe('404')
      // switched off, the host is a note again: a transaction answers every Host
      expect(
        (await platform.request(path, { method: 'PATCH', json: { matchHost: false } })).status,
      ).toBe(201)
      expect(await act(platform, path, 'configure')).toBe('FINISHED')
      expect(await body('elsewhere.test')).toMatch(/^200 (github|gitlab)$/)
      expect(await act(platform, path, 'stop')).toBe('FINISHED')
    },
  )
})
