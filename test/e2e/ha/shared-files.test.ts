import { describe, expect, it, onTestFinished } from 'vitest'
import { startPlatformInstances } from '../../helpers/instances.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * What a platform instance used to keep for itself, read through the other instance on the same
 * PostgreSQL database: an uploaded asset's bytes (downloaded, and served by a mock service another
 * instance deploys from it), the inspection records a stopped runtime left, a local runtime's
 * log lines, and the local environment's figures (`/platformvses`).
 */

if (!hasPostgres) console.warn(`[shared files tests skipped] ${PG_SKIP_REASON}`)

/** A HAR with one exchange: what the SV mock service serves once imported. */
const har = JSON.stringify({
  log: {
    version: '1.2',
    creator: { name: 'test', version: '1' },
    entries: [
      {
        startedDateTime: '2026-01-01T00:00:00.000Z',
        time: 1,
        request: {
          method: 'GET',
          url: 'http://pets.example/pets',
          httpVersion: 'HTTP/1.1',
          headers: [],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: 0,
        },
        response: {
          status: 200,
          statusText: 'OK',
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'Content-Type', value: 'application/json' }],
          cookies: [],
          content: { size: 7, mimeType: 'application/json', text: '["rex"]' },
          redirectURL: '',
          headersSize: -1,
          bodySize: 7,
        },
        cache: {},
        timings: { send: 0, wait: 1, receive: 0 },
      },
    ],
  },
})

describe.skipIf(!hasPostgres)('two platform instances: files, kept records and logs', () => {
  it(
    'read through one instance what the other received, kept or logged',
    { timeout: 120_000 },
    async () => {
      const url = (await freshPgDatabase()) as string
      const group = await startPlatformInstances(2, url)
      const [a, b] = group.instances.map((i) => i.url) as [string, string]
      const call = async <T = Record<string, unknown>>(
        base: string,
        path: string,
        init: { method?: string; json?: unknown; body?: FormData } = {},
      ): Promise<{ status: number; result: T }> => {
        const res = await fetch(base + path, {
          method: init.method ?? 'GET',
          headers: {
            authorization: group.auth,
            ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
          ...(init.body === undefined ? {} : { body: init.body }),
        })
        const body = (await res.json()) as { result: T }
        return { status: res.status, result: body.result }
      }
      const ws = `/api/v1/workspaces/${group.workspaceId}`
      const service = await call<{ id: number }>(a, `${ws}/services`, {
        method: 'POST',
        json: { name: 'pets' },
      })
      expect(service.status).toBe(201)

      // An asset uploaded through A...
      const form = new FormData()
      form.append('type', 'FILE_IN_ROOT')
      form.append('platformVseId', '1')
      form.append('serviceId', String(service.result.id))
      form.append('file', new Blob([har], { type: 'application/json' }), 'pets.har')
      const asset = await call<{ id: number; size: number }>(a, `${ws}/assets`, {
        method: 'POST',
        body: form,
      })
      expect(asset.status).toBe(201)
      expect(asset.result.size).toBe(Buffer.byteLength(har))

      // ...is downloaded through B
      const link = await call<string>(b, `${ws}/assets/${asset.result.id}/download`)
      expect(link.status).toBe(200)
      expect(link.result.startsWith(b)).toBe(true)
      const download = await fetch(link.result)
      expect(download.status).toBe(200)
      expect(await download.text()).toBe(har)
      // A link made by A is honoured by B (the key links are signed with is the store's)
      const fromA = await call<string>(a, `${ws}/assets/${asset.result.id}/download`)
      const throughB = await fetch(b + fromA.result.slice(a.length))
      expect(throughB.status).toBe(200)
      expect(await throughB.text()).toBe(har)

      // ...and served by a mock service made and deployed through B (B runs its runtime)
      const mock = await call<{ id: number }>(b, `${ws}/service-mocks`, {
        method: 'POST',
        json: {
          serviceId: service.result.id,
          name: 'pets from HAR',
          type: 'SV',
          assetId: asset.result.id,
        },
      })
      expect(mock.status).toBe(201)
      const mockPath = `${ws}/service-mocks/${mock.result.id}`
      const finished = async (base: string, action: 'deploy' | 'stop'): Promise<void> => {
        const tracking = await call<{ trackingId: string }>(base, `${mockPath}/${action}`)
        expect(tracking.status).toBe(200)
        let last: { status: string; errors?: unknown } = { status: '' }
        await waitFor(
          async () => {
            last = (
              await call<{ status: string; errors?: unknown }>(
                base,
                `/api/v1/trackings/${tracking.result.trackingId}`,
              )
            ).result
            return last.status === 'FINISHED' || last.status === 'FAILED'
          },
          `the ${action} to end`,
          { timeoutMs: 30_000, intervalMs: 100 },
        )
        expect(last).toMatchObject({ status: 'FINISHED' })
      }
      await finished(b, 'deploy')
      // A deployed runtime outlives its platform by design: stopped before the instances go (hooks
      // run last first), through whichever instance runs it then, so that no process is left.
      onTestFinished(async () => {
        await finished(a, 'stop').catch(() => {})
      })
      const endpoint = (await call<{ httpEndpoint: string }>(b, mockPath)).result.httpEndpoint
      for (let i = 0; i < 2; i++) {
        const served = await fetch(`${endpoint}/pets`)
        expect(served.status).toBe(200)
        expect(await served.json()).toEqual(['rex'])
      }

      // The runtime's log lines, read through A, which does not run it
      const logOf = async (base: string): Promise<string> =>
        (await call<{ log: string }>(base, `${mockPath}/log`)).result.log
      const ownLog = await logOf(b)
      expect(ownLog).toContain('runtime started')
      await waitFor(async () => (await logOf(a)).includes('runtime started'), 'A to read the log', {
        timeoutMs: 10_000,
        intervalMs: 200,
      })

      // Stopped through B, which keeps what its runtime recorded; A lists those records
      await finished(b, 'stop')
      const reports = `/reports/api/v1/workspaces/${group.workspaceId}/inspection-data/service-mock/${mock.result.id}`
      const kept = await call<Array<{ id: string; previousRun?: boolean }>>(a, reports)
      expect(kept.status).toBe(200)
      expect(kept.result.length).toBe(2)
      expect(kept.result.every((r) => r.previousRun === true)).toBe(true)
      const detail = await call<{ previousRun?: boolean }>(
        a,
        `/reports/api/v1/workspaces/${group.workspaceId}/inspection-data/requests/${kept.result[0]?.id}`,
      )
      expect(detail.status).toBe(200)
      expect(detail.result.previousRun).toBe(true)
      expect(JSON.stringify(detail.result)).toContain('/pets')
      // The same through B
      expect((await call<unknown[]>(b, reports)).result).toEqual(kept.result)

      // Deployed again through A (A runs it now): ids continue after the kept ones
      await finished(a, 'deploy')
      const again = (await call<{ httpEndpoint: string }>(a, mockPath)).result.httpEndpoint
      expect((await fetch(`${again}/pets`)).status).toBe(200)
      const listed = await call<Array<{ id: string; previousRun?: boolean }>>(b, reports)
      expect(listed.result.length).toBe(3)
      expect(listed.result[0]?.previousRun).toBeUndefined()
      expect(new Set(listed.result.map((r) => r.id)).size).toBe(3)
      // The log through B now comes from A's runtime, through the store
      await waitFor(
        async () => (await logOf(b)) === (await logOf(a)),
        'B to read the log of A’s runtime',
        { timeoutMs: 10_000, intervalMs: 200 },
      )
      expect(await logOf(b)).toContain('runtime started')

      // The local environment's figures through B count the runtime A runs
      const environments = await call<
        Array<{
          id: number
          msRunningCount: number
          totalTxnCount: number
          serviceMocks: Array<{ id: number }>
        }>
      >(b, `${ws}/platformvses`)
      expect(environments.status).toBe(200)
      const local = environments.result.find((e) => e.id === 1)
      expect(local?.msRunningCount).toBe(1)
      expect(local?.serviceMocks.map((m) => m.id)).toEqual([mock.result.id])
      expect(local?.totalTxnCount).toBeGreaterThan(0)
    },
  )
})
