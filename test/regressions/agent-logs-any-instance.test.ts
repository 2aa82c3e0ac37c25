import { describe, expect, it } from 'vitest'
import { startPlatformInstances } from '../helpers/instances.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../helpers/postgres.js'

/*
 * An agent reports its mock service's log lines to whichever platform instance its request
 * reaches. They were kept in that instance's memory only, so the logs route of every other
 * instance behind the load balancer answered an empty log. They are kept in the store now.
 */

if (!hasPostgres) console.warn(`agent log regression skipped: ${PG_SKIP_REASON}`)

async function call(
  base: string,
  auth: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; result: Record<string, unknown> }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { result: Record<string, unknown> }
  return { status: res.status, result: body.result }
}

describe.skipIf(!hasPostgres)('an agent’s log lines', () => {
  it('are answered by every platform instance, not only the one the agent reported to', async () => {
    const store = await freshPgDatabase()
    if (store === undefined) return
    const group = await startPlatformInstances(2, store)
    const [a, b] = group.instances.map((i) => i.url) as [string, string]
    const ws = `/api/v1/workspaces/${group.workspaceId}`
    const harbor = await call(a, group.auth, 'POST', '/api/v4/private-locations', {
      name: 'lab',
      accountId: group.accountId,
      workspacesId: [group.workspaceId],
    })
    expect(harbor.status).toBe(201)
    const ship = await call(
      a,
      group.auth,
      'POST',
      `/api/v4/private-locations/${String(harbor.result['id'])}/servers`,
      {
        name: 'lab-1',
      },
    )
    const agentBase = `/api/v4/private-locations/${String(harbor.result['id'])}/servers/${String(ship.result['id'])}`
    const agentAuth = `Bearer ${String(ship.result['token'])}`
    const beat = await call(a, agentAuth, 'POST', `${agentBase}/heartbeat`, {
      memoryUsage: 1,
      msRunningCount: 0,
      transactionsCount: 0,
      version: '0.1.0',
      advertiseHost: 'lab-1.example.com',
      regions: [],
      running: [],
    })
    expect(beat.status).toBe(200)
    const service = await call(a, group.auth, 'POST', `${ws}/services`, { name: 'pets' })
    const txn = await call(
      a,
      group.auth,
      'POST',
      `${ws}/transactions?serviceId=${String(service.result['id'])}`,
      {
        name: 'list',
        dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { status: 200 } },
      },
    )
    const mock = await call(a, group.auth, 'POST', `${ws}/service-mocks`, {
      serviceId: service.result['id'],
      name: 'pets',
      mockServiceTransactions: [txn.result['id']],
      harborId: harbor.result['id'],
    })
    expect(mock.status).toBe(201)
    const path = `${ws}/service-mocks/${String(mock.result['id'])}`
    const deployed = await call(a, group.auth, 'GET', `${path}/deploy`)
    expect(deployed.status).toBe(200)

    const reported = await call(a, agentAuth, 'POST', `${agentBase}/reports`, {
      mockServiceId: mock.result['id'],
      status: 'RUNNING',
      endpoints: { http: 'http://lab-1.example.com:47001', https: null },
      trackings: [{ trackingId: deployed.result['trackingId'], status: 'FINISHED' }],
      logs: ['{"level":30,"msg":"runtime started"}', '{"level":30,"msg":"listening"}'],
    })
    expect(reported.status).toBe(200)
    for (const base of [a, b]) {
      const log = await call(base, group.auth, 'GET', `${path}/log`)
      expect(log.status).toBe(200)
      expect(log.result['log']).toBe(
        '{"level":30,"msg":"runtime started"}\n{"level":30,"msg":"listening"}',
      )
    }
    // The newest line only, as the route's limit asks, on the instance that did not get the report.
    const last = await call(b, group.auth, 'GET', `${path}/log?limit=1`)
    expect(last.result['log']).toBe('{"level":30,"msg":"listening"}')
  }, 120_000)
})
