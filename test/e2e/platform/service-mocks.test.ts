import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { LocalDeployer } from '../../../src/deploy/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { untilTrackingEnds } from '../../helpers/tracking.js'

interface Envelope<T> {
  apiVersion: number
  error: {
    code: string
    message: string
    details?: Array<{ path: string; message: string }>
  } | null
  result: T
  total?: number
}

async function json<T>(res: Response): Promise<Envelope<T>> {
  return (await res.json()) as Envelope<T>
}

/** A service with two transactions, ready for mock services. */
async function catalog(platform: TestPlatform, name = 'pets') {
  const ws = platform.workspaceId
  const service = await json<{ id: number }>(
    await platform.request(`/api/v1/workspaces/${ws}/services`, {
      method: 'POST',
      json: { name },
    }),
  )
  const created = await json<Array<{ id: number }>>(
    await platform.request(`/api/v1/workspaces/${ws}/transactions?serviceId=${service.result.id}`, {
      method: 'POST',
      json: {
        transactions: [
          {
            name: 'list',
            dsl: {
              requestDsl: { method: 'GET', path: '/pets' },
              responseDsl: {
                status: 200,
                content: Buffer.from('[]').toString('base64'),
                contentType: 'json',
              },
            },
          },
          {
            name: 'gone',
            dsl: {
              requestDsl: { method: 'GET', path: '/gone' },
              responseDsl: {
                status: 404,
                content: Buffer.from('{"gone":true}').toString('base64'),
                contentType: 'json',
              },
            },
          },
        ],
      },
    }),
  )
  return {
    serviceId: service.result.id,
    txnIds: created.result.map((t) => t.id),
    base: `/api/v1/workspaces/${ws}/service-mocks`,
  }
}

const recordFields = [
  'id',
  'serviceId',
  'serviceName',
  'name',
  'description',
  'type',
  'status',
  'harborId',
  'shipId',
  'bridgeId',
  'registryId',
  'vseId',
  'platformVseId',
  'endpointPreference',
  'liveSystemHost',
  'liveSystemPort',
  'thinkTime',
  'capacity',
  'replicas',
  'noMatchingRequestPreference',
  'noMatchingRequestTxnId',
  'mockServiceTransactions',
  'httpEndpoint',
  'httpsEndpoint',
  'svEndpoint',
  'tags',
  'groupTag',
  'assetId',
  'svMessage',
  'registryUrl',
  'svVseName',
  'svVseId',
  'marFileId',
  'deployDate',
  'exposedPorts',
  'pendingUpdate',
  'isNew',
  'executionMode',
  'created',
  'updated',
  'createdDate',
  'updatedDate',
  'createdBy',
  'updatedBy',
  // Fields clients of the product require
  'httpRunnerEnabled',
  'endpoints',
  'configurationId',
  'proxy',
  'brokerConfig',
  'assets',
  // The mock-service document's cors, faults and templateSeed
  'cors',
  'faults',
  'templateSeed',
  // The mock-service document's matchHost (validateRequests is always false here)
  'matchHost',
  'validateRequests',
]

describe('mock services (service-mocks)', () => {
  it('creates a transactional mock service with every field of the mock service record (docs/api.md#mock-services)', async () => {
    const platform = await startTestPlatform()
    const { serviceId, txnIds, base } = await catalog(platform)
    const res = await platform.request(base, {
      method: 'POST',
      json: {
        serviceId,
        name: 'pets mock',
        description: 'for CI',
        thinkTime: 5,
        capacity: 100,
        replicas: 1,
        tags: ['ci'],
        mockServiceTransactions: [{ txnId: txnIds[0], priority: 3 }, txnIds[1]],
        noMatchingRequestPreference: 'returnTransaction',
        noMatchingRequestTxnId: txnIds[1],
      },
    })
    expect(res.status).toBe(201)
    const body = await json<Record<string, unknown>>(res)
    expect(Object.keys(body.result).sort()).toEqual([...recordFields].sort())
    expect(body.result).toMatchObject({
      serviceId,
      serviceName: 'pets',
      name: 'pets mock',
      type: 'TRANSACTIONAL',
      status: 'STOPPED',
      thinkTime: 5,
      capacity: 100,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: txnIds[1],
      mockServiceTransactions: [
        { txnId: txnIds[0], priority: 3 },
        { txnId: txnIds[1], priority: null },
      ],
      httpEndpoint: null,
      tags: ['ci'],
      createdBy: 'admin@understudy.local',
      isNew: true,
    })
    expect(typeof body.result['created']).toBe('number')
  })

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    const platform = await startTestPlatform()
    const { serviceId, txnIds, base } = await catalog(platform)
    const other = await json<{ id: number }>(
      await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services`, {
        method: 'POST',
        json: { name: 'other' },
      }),
    )
    const cases: Array<[unknown, string]> = [
      [{ name: 'x' }, '/serviceId'],
      [{ serviceId }, '/name'],
      [{ serviceId: 999, name: 'x' }, '/serviceId'],
      [
        { serviceId: other.result.id, name: 'x', mockServiceTransactions: [txnIds[0]] },
        '/mockServiceTransactions/0',
      ],
      [{ serviceId, name: 'x', mockServiceTransactions: [99_999] }, '/mockServiceTransactions/0'],
      [
        { serviceId, name: 'x', noMatchingRequestPreference: 'returnTransaction' },
        '/noMatchingRequestTxnId',
      ],
      [{ serviceId, name: 'x', noMatchingRequestPreference: 'bypasslive' }, '/liveSystemHost'],
      [
        { serviceId, name: 'x', noMatchingRequestPreference: 'sometimes' },
        '/noMatchingRequestPreference',
      ],
      [{ serviceId, name: 'x', replicas: 0 }, '/replicas'],
      [{ serviceId, name: 'x', capacity: 'lots' }, '/capacity'],
      [{ serviceId, name: 'x', type: 'SV' }, '/assetId'],
      [{ serviceId, name: 'x', endpointPreference: 'FTP' }, '/endpointPreference'],
    ]
    for (const [input, path] of cases) {
      const res = await platform.request(base, { method: 'POST', json: input })
      expect(res.status, JSON.stringify(input)).toBe(400)
      const body = await json<null>(res)
      expect(body.error?.details?.[0]?.path, JSON.stringify(input)).toBe(path)
    }
    expect(
      (
        await platform.request(base, {
          method: 'POST',
          body: 'nope',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(415)
    expect((await json<unknown[]>(await platform.request(base))).total).toBe(0)
  })

  it('names the first bad one of many referenced transactions, in the order given', async () => {
    const platform = await startTestPlatform()
    const { serviceId, txnIds, base } = await catalog(platform)
    const ws = platform.workspaceId
    const other = await catalog(platform, 'orders')
    const cases: Array<[Array<number | undefined>, string, string]> = [
      [
        [txnIds[0], txnIds[1], 99_999, 88_888],
        '/mockServiceTransactions/2',
        `names transaction 99999, which does not exist in workspace ${ws}`,
      ],
      [
        [txnIds[1], other.txnIds[0], 77_777],
        '/mockServiceTransactions/1',
        `names transaction ${other.txnIds[0]} of service ${other.serviceId}, not of service ${serviceId}`,
      ],
    ]
    for (const [ids, path, message] of cases) {
      const res = await platform.request(base, {
        method: 'POST',
        json: { serviceId, name: 'x', mockServiceTransactions: ids },
      })
      expect(res.status, JSON.stringify(ids)).toBe(400)
      const detail = (await json<null>(res)).error?.details?.[0]
      expect(detail, JSON.stringify(ids)).toEqual({ path, message })
    }
    expect((await json<unknown[]>(await platform.request(base))).total).toBe(0)
  })

  it('gets, lists by service with total, updates with PUT (201) and PATCH, and deletes with 204', async () => {
    const platform = await startTestPlatform()
    const { serviceId, base } = await catalog(platform)
    const a = await json<{ id: number }>(
      await platform.request(base, { method: 'POST', json: { serviceId, name: 'a' } }),
    )
    await platform.request(base, { method: 'POST', json: { serviceId, name: 'b' } })
    const list = await json<Array<{ name: string }>>(
      await platform.request(`${base}?serviceId=${serviceId}&sort=-name`),
    )
    expect(list.total).toBe(2)
    expect(list.result.map((m) => m.name)).toEqual(['b', 'a'])
    expect((await json<unknown[]>(await platform.request(`${base}?serviceId=9999`))).total).toBe(0)
    const put = await platform.request(`${base}/${a.result.id}`, {
      method: 'PUT',
      json: { name: 'a2', endpointPreference: 'HTTPS' },
    })
    expect(put.status).toBe(201)
    expect((await json<{ name: string; endpointPreference: string }>(put)).result).toMatchObject({
      name: 'a2',
      endpointPreference: 'HTTPS',
    })
    const patch = await platform.request(`${base}/${a.result.id}`, {
      method: 'PATCH',
      json: { capacity: 7 },
    })
    expect((await json<{ name: string; capacity: number }>(patch)).result).toMatchObject({
      name: 'a2',
      capacity: 7,
    })
    const deleted = await platform.request(`${base}/${a.result.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    expect((await platform.request(`${base}/${a.result.id}`)).status).toBe(404)
  })

  it('answers 404 for unknown ids, trackings and a workspace of another account, 503 when nothing can deploy', async () => {
    const platform = await startTestPlatform()
    const { serviceId, base } = await catalog(platform)
    expect((await platform.request(`${base}/12345`)).status).toBe(404)
    expect((await platform.request('/api/v1/trackings/no-such-tracking')).status).toBe(404)
    const otherAccount = await platform.store.write(async (tx) =>
      tx.accounts.create({ name: 'other' }),
    )
    const foreign = await platform.store.write(async (tx) =>
      tx.workspaces.create({
        accountId: otherAccount.id,
        name: 'theirs',
        enabled: true,
        dedicatedIpsEnabled: false,
        privateLocationsEnabled: false,
        userId: platform.userId,
      }),
    )
    const forbidden = await platform.request(`/api/v1/workspaces/${foreign.id}/service-mocks`)
    expect(forbidden.status).toBe(404)
    expect((await json<null>(forbidden)).error?.code).toBe('ERR_API_NOT_FOUND')
    const mock = await json<{ id: number }>(
      await platform.request(base, { method: 'POST', json: { serviceId, name: 'm' } }),
    )
    const deploy = await platform.request(`${base}/${mock.result.id}/deploy`)
    expect(deploy.status).toBe(503)
    expect((await json<null>(deploy)).error?.code).toBe('ERR_API_UNAVAILABLE')
  })

  it('has one environment, the local runtime host, with live figures', async () => {
    const platform = await startTestPlatform()
    const list = await json<Array<Record<string, unknown>>>(
      await platform.request(`/api/v1/workspaces/${platform.workspaceId}/platformvses`),
    )
    expect(list.total).toBe(1)
    expect(list.result[0]).toMatchObject({
      id: 1,
      workspaceId: platform.workspaceId,
      type: 'FUNCTIONAL',
      status: 'RUNNING',
      msRunningCount: 0,
      assets: [],
      serviceMocks: [],
    })
    expect(
      (await platform.request(`/api/v1/workspaces/${platform.workspaceId}/platformvses/1`)).status,
    ).toBe(200)
    expect(
      (await platform.request(`/api/v1/workspaces/${platform.workspaceId}/platformvses/2`)).status,
    ).toBe(404)
  })

  it(
    'deploys, answers, records inspection, snapshots logs (JSON and gzip), saves one as an asset, and stops',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      const { serviceId, txnIds, base } = await catalog(platform)
      const mock = await json<{ id: number }>(
        await platform.request(base, {
          method: 'POST',
          json: { serviceId, name: 'live', mockServiceTransactions: txnIds },
        }),
      )
      const path = `${base}/${mock.result.id}`
      const tracking = await json<{ trackingId: string; status: string }>(
        await platform.request(`${path}/deploy`),
      )
      expect(['RUNNING', 'PENDING']).toContain(tracking.result.status)
      let status = await untilTrackingEnds(
        async () =>
          (
            await json<{ status: string }>(
              await platform.request(`/api/v1/trackings/${tracking.result.trackingId}`),
            )
          ).result.status,
      )
      expect(status).toBe('FINISHED')
      const record = await json<{
        status: string
        httpEndpoint: string
        deployDate: number
        exposedPorts: unknown[]
      }>(await platform.request(path))
      expect(record.result.status).toBe('RUNNING')
      expect(record.result.exposedPorts).toHaveLength(1)
      expect((await fetch(`${record.result.httpEndpoint}/pets`)).status).toBe(200)
      expect((await fetch(`${record.result.httpEndpoint}/gone`)).status).toBe(404)

      const reports = `/reports/api/v1/workspaces/${platform.workspaceId}/inspection-data`
      const entries = await json<Array<{ id: number; url: string; serviceMockId: number }>>(
        await platform.request(`${reports}/service-mock/${mock.result.id}`),
      )
      expect(entries.total).toBe(2)
      expect(entries.result.map((e) => e.url)).toEqual(['/gone', '/pets'])
      const detail = await json<{ url: string; statusCode: number; responseBody: string }>(
        await platform.request(`${reports}/requests/${entries.result[0]?.id ?? 0}`),
      )
      expect(detail.result).toMatchObject({
        url: '/gone',
        statusCode: 404,
        responseBody: Buffer.from('{"gone":true}').toString('base64'),
      })
      expect(
        (await platform.request(`${reports}/requests/${(entries.result[0]?.id ?? 0) + 1000}`))
          .status,
      ).toBe(404)

      const log = await json<{ log: string; logId: number; serviceMockId: number }>(
        await platform.request(`${path}/log?limit=100`),
      )
      expect(log.result.serviceMockId).toBe(mock.result.id)
      expect(log.result.log).toContain('listening')
      const gz = await platform.request(`${path}/log/refresh`, {
        headers: { accept: 'application/gzip' },
      })
      expect(gz.headers.get('content-type')).toBe('application/gzip')
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toContain('listening')
      const saved = await platform.request(`${path}/log/${log.result.logId}`, {
        method: 'PUT',
        body: 'after the smoke test',
        headers: { 'content-type': 'text/plain' },
      })
      expect(await json<boolean>(saved)).toMatchObject({ result: true })
      const assets = await json<Array<{ name: string; description: string }>>(
        await platform.request(`/api/v1/workspaces/${platform.workspaceId}/assets`),
      )
      expect(assets.result).toEqual([
        expect.objectContaining({
          name: `mock-service-${mock.result.id}-log-${log.result.logId}.log`,
          description: 'after the smoke test',
        }),
      ])
      expect((await platform.request(`${path}/log/9999`, { method: 'PUT', body: '' })).status).toBe(
        404,
      )

      const env = await json<Array<{ msRunningCount: number; serviceMocks: unknown[] }>>(
        await platform.request(`/api/v1/workspaces/${platform.workspaceId}/platformvses`),
      )
      expect(env.result[0]).toMatchObject({ msRunningCount: 1 })

      const stop = await json<{ trackingId: string }>(
        await platform.request(`${path}/stop`, { method: 'POST' }),
      )
      status = await untilTrackingEnds(
        async () =>
          (
            await json<{ status: string }>(
              await platform.request(`/api/v1/trackings/${stop.result.trackingId}`),
            )
          ).result.status,
      )
      expect(status).toBe('FINISHED')
      expect((await json<{ status: string }>(await platform.request(path))).result.status).toBe(
        'STOPPED',
      )
      // Stopped, it lists what its runtime recorded, kept by the platform as an earlier run.
      const kept = await json<Array<{ previousRun?: boolean }>>(
        await platform.request(`${reports}/service-mock/${mock.result.id}`),
      )
      expect(kept.total).toBeGreaterThan(0)
      expect(kept.result.every((e) => e.previousRun === true)).toBe(true)
    },
  )
})
