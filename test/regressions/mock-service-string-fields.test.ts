import { describe, expect, it } from 'vitest'
import { LocalDeployer } from '../../src/deploy/index.js'
import { envelope } from '../e2e/platform/catalog-helpers.js'
import { startTestPlatform } from '../helpers/platform.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The mock services specification types a mock service's `endpointPreference` and a log snapshot's `trackingId` as
 * strings. Both were null: `endpointPreference` when the client did not send one, `trackingId`
 * always. Clients with typed models (sv-mcp) refuse null there.
 */

describe('mock services: the string fields of the record and of a log snapshot', () => {
  it('answers endpointPreference HTTP when none was sent, in create, PUT and GET', async () => {
    const platform = await startTestPlatform()
    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await envelope<{ id: number }>(
      await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'pets' } }),
    )
    const created = await platform.request(`${ws}/service-mocks`, {
      method: 'POST',
      json: { serviceId: service.result.id, name: 'm' },
    })
    expect(created.status).toBe(201)
    const record = await envelope<{ id: number; endpointPreference: unknown }>(created)
    expect(record.result.endpointPreference).toBe('HTTP')
    const path = `${ws}/service-mocks/${record.result.id}`
    const put = await envelope<{ endpointPreference: unknown }>(
      await platform.request(path, { method: 'PUT', json: { name: 'm2', description: 'renamed' } }),
    )
    expect(put.result.endpointPreference).toBe('HTTP')
    expect(
      (await envelope<{ endpointPreference: unknown }>(await platform.request(path))).result
        .endpointPreference,
    ).toBe('HTTP')
    // a chosen one is kept
    const https = await envelope<{ endpointPreference: unknown }>(
      await platform.request(path, { method: 'PUT', json: { endpointPreference: 'https' } }),
    )
    expect(https.result.endpointPreference).toBe('HTTPS')
  })

  it(
    'gives a log snapshot the tracking id of the deploy that started the runtime which wrote it',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      const ws = `/api/v1/workspaces/${platform.workspaceId}`
      const service = await envelope<{ id: number }>(
        await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'pets' } }),
      )
      const txn = await envelope<{ id: number }>(
        await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
          method: 'POST',
          json: {
            name: 'list',
            dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { status: 200 } },
          },
        }),
      )
      const mock = await envelope<{ id: number }>(
        await platform.request(`${ws}/service-mocks`, {
          method: 'POST',
          json: {
            serviceId: service.result.id,
            name: 'm',
            mockServiceTransactions: [txn.result.id],
          },
        }),
      )
      const path = `${ws}/service-mocks/${mock.result.id}`

      const before = await envelope<{ trackingId: unknown }>(await platform.request(`${path}/log`))
      expect(before.result.trackingId).toBe('')

      const deployed = await envelope<{ trackingId: string }>(
        await platform.request(`${path}/deploy`),
      )
      await waitFor(
        async () =>
          (
            await envelope<{ status: string }>(
              await platform.request(`/api/v1/trackings/${deployed.result.trackingId}`),
            )
          ).result.status === 'FINISHED',
        'the deploy to finish',
        { timeoutMs: 30_000, intervalMs: 100 },
      )
      const snapshot = await envelope<{
        log: string
        logId: number
        serviceMockId: number
        trackingId: unknown
      }>(await platform.request(`${path}/log?limit=100`))
      expect(snapshot.result).toMatchObject({
        serviceMockId: mock.result.id,
        trackingId: deployed.result.trackingId,
      })
      expect(typeof snapshot.result.logId).toBe('number')
      // a configure does not start another runtime: the log is still the deploy's
      const configured = await envelope<{ trackingId: string }>(
        await platform.request(`${path}/configure`),
      )
      await waitFor(
        async () =>
          (
            await envelope<{ status: string }>(
              await platform.request(`/api/v1/trackings/${configured.result.trackingId}`),
            )
          ).result.status === 'FINISHED',
        'the configure to finish',
        { timeoutMs: 30_000, intervalMs: 100 },
      )
      expect(
        (await envelope<{ trackingId: unknown }>(await platform.request(`${path}/log/refresh`)))
          .result.trackingId,
      ).toBe(deployed.result.trackingId)
    },
  )
})
