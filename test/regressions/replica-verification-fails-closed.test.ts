import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { http1Request } from '../helpers/clients.js'
import { startCli, type CliServer } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'
import { waitFor } from '../helpers/wait.js'

/*
 * `run --replicas 2`: the primary used to leave a replica that was not running (or did not answer)
 * out of inspection and verification reads and answer 200 for the others alone, so that a test
 * asserting "exactly N calls" (or "never called") was judged on part of the traffic. A replica
 * that is down now fails the read with 503 ERR_API_UNAVAILABLE naming it (and WireMock's journal,
 * which counted it as empty, answers 503 too).
 */

interface Envelope<T> {
  result: T
  error: { code: string; message: string } | null
}
interface Health {
  status: string
  workers: Array<{ replica: number; pid: number; status: string; inspection: { records: number } }>
}

const document = {
  id: 3,
  name: 'orders',
  transactions: [
    {
      id: 1,
      name: 'order',
      dsl: {
        requestDsl: { method: 'POST', path: '/orders' },
        responseDsl: { status: 201, json: { ok: true } },
      },
    },
  ],
}

async function admin<T>(
  server: CliServer,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: Envelope<T> }> {
  const url = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
  const res = await fetch(url + path, init)
  return { status: res.status, body: (await res.json()) as Envelope<T> }
}

const verifyOrders = (server: CliServer) =>
  admin<{ actual: number; verified: boolean }>(server, '/inspection/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ request: { method: 'POST', path: '/orders' }, count: 8 }),
  })

const countOrders = async (server: CliServer): Promise<{ status: number; count?: number }> => {
  const url = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
  const res = await fetch(`${url}/__admin/requests/count`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'POST', url: '/orders' }),
  })
  return { status: res.status, ...((await res.json()) as { count?: number }) }
}

describe('run --replicas: inspection and verification fail closed', () => {
  it('answers 503 naming the replica that is down, never a count of the others alone', async () => {
    const file = join(tempDir(), 'mock.json')
    writeFileSync(file, JSON.stringify(document))
    const server = await startCli([
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
    ])
    await server.waitFor('stdout', 'admin on')
    // Each request on its own connection: the primary spreads connections over the replicas.
    for (let i = 0; i < 8; i++) {
      const res = await http1Request(server.url, { method: 'POST', path: '/orders' })
      expect(res.status).toBe(201)
    }
    const workers = (await admin<Health>(server, '/health')).body.result.workers
    for (const w of workers) expect(w.inspection.records).toBeGreaterThan(0)
    const verified = await verifyOrders(server)
    expect(verified.body.result).toMatchObject({ verified: true, actual: 8 })
    expect(await countOrders(server)).toMatchObject({ status: 200, count: 8 })

    const [victim, survivor] = workers
    if (victim === undefined || survivor === undefined) throw new Error('two replicas expected')
    process.kill(victim.pid, 'SIGKILL')
    // Asked before the primary has the replica back: no answer for the survivor's records alone,
    // through the admin API's verification and through WireMock's journal alike.
    const [during, wiremockCount] = await Promise.all([verifyOrders(server), countOrders(server)])
    expect(during.status).toBe(503)
    expect(during.body.error?.code).toBe('ERR_API_UNAVAILABLE')
    expect(during.body.error?.message).toContain(`Replica ${victim.replica}`)
    expect(wiremockCount.status).toBe(503)

    // Once it is back, reads answer again: the dead replica's records ended with it.
    await waitFor(
      async () => (await admin<Health>(server, '/health')).body.result.status === 'UP',
      'the replica restart',
      { timeoutMs: 15_000, intervalMs: 50 },
    )
    const after = await verifyOrders(server)
    expect(after.status).toBe(200)
    expect(after.body.result.actual).toBe(survivor.inspection.records)
  })
})
