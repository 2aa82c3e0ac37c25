import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { openPgPool, type PgPool } from '../../../src/store/postgres/connection.js'
import { runCli, startCli, type CliServer } from '../../helpers/cli.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Two platform instances on one PostgreSQL database run each local runtime once: the instance
 * holding a mock service's lease runs it, the other reaches its admin API (inspection,
 * verification) through the address and derived token the lease records, takes it over when the
 * holder dies (SIGKILL, its runtime lost with it), and a restarted instance does not start a
 * second copy of what another one runs.
 */

if (!hasPostgres) console.warn(`[runtime lease tests skipped] ${PG_SKIP_REASON}`)

const key = { id: 'ha-key', secret: 'ha-secret-0123456789abcdef' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
/** Seconds: short, so that a takeover happens within the test's time. */
const LEASE_S = 2

async function platformOn(
  dataDir: string,
  store: string,
  extra: string[] = [],
): Promise<CliServer> {
  const platform = await startCli(
    [
      'platform',
      ...extra,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--store',
      store,
      '--runtime-lease',
      String(LEASE_S),
      '--log-level',
      'warn',
    ],
    {
      env: { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret },
      timeoutMs: 30_000,
    },
  )
  // A graceful stop ends the runtimes the instance runs; a SIGKILL after the test would not.
  onTestFinished(async () => {
    if (platform.child.exitCode === null && platform.child.signalCode === null) {
      await platform.stop()
    }
  })
  return platform
}

async function api<T = Record<string, unknown>>(
  platform: CliServer,
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<{ status: number; body: { result: T; error?: { code: string } } }> {
  const res = await fetch(platform.url + path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: auth,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  return { status: res.status, body: (await res.json()) as { result: T } }
}

interface LeaseRow {
  holder: string
  expires: number
  pid: number | null
  admin_url: string | null
}

async function leaseOf(pool: PgPool, mockId: number): Promise<LeaseRow> {
  const [row] = await pool.query<LeaseRow>(
    'SELECT holder, expires, pid, admin_url FROM runtime_leases WHERE mock_service_id = $1',
    [mockId],
  )
  if (row === undefined) throw new Error(`no lease for mock service ${mockId}`)
  return row
}

/** Processes whose parent is `ppid` and whose command line runs a mock-service document. */
function runtimeChildren(ppid: number | undefined): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent !== ppid) continue
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\u0000')
      if (cmdline.includes('run') && cmdline.includes('--mock')) pids.push(Number(name))
    } catch {
      // The process ended while being read.
    }
  }
  return pids
}

/** Waits until the holder renewed the lease past `seen` by a whole lease: every instance ran its check more than once since. */
async function aLeaseLater(pool: PgPool, mockId: number): Promise<void> {
  const seen = (await leaseOf(pool, mockId)).expires
  await waitFor(
    async () => (await leaseOf(pool, mockId)).expires > seen + LEASE_S * 1000,
    'the lease to be renewed for one more lease length',
    { timeoutMs: 15_000, intervalMs: 200 },
  )
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/pets`, { signal: AbortSignal.timeout(2000) })
    return res.status === 200 && (await res.text()) === '["rex"]'
  } catch {
    return false
  }
}

describe.skipIf(!hasPostgres)('several platform instances on one PostgreSQL database', () => {
  it(
    'run each local runtime once, reach it from either instance, and take it over when its instance dies',
    { timeout: 180_000 },
    async () => {
      const url = (await freshPgDatabase()) as string
      const pool = openPgPool(url)
      onTestFinished(async () => await pool.close())
      const dirA = tempDir('understudy-ha-a-')
      // A's runtimes' admin APIs on another address of this machine, which B reaches them at
      const a = await platformOn(dirA, url, ['--runtime-admin-host', '127.0.0.2'])
      const b = await platformOn(tempDir('understudy-ha-b-'), url)

      // A mock service made and deployed through instance A
      const user = await api<{ accountId: number }>(a, '/api/v4/user')
      const workspaces = await api<Array<{ id: number }>>(
        a,
        `/api/v4/workspaces?accountId=${user.body.result.accountId}`,
      )
      const ws = `/api/v1/workspaces/${workspaces.body.result[0]?.id ?? 0}`
      const service = await api<{ id: number }>(a, `${ws}/services`, {
        method: 'POST',
        json: { name: 'pets' },
      })
      const txns = await api<Array<{ id: number }> | { id: number }>(
        a,
        `${ws}/transactions?serviceId=${service.body.result.id}`,
        {
          method: 'POST',
          json: {
            transactions: [
              {
                name: 'list',
                dsl: {
                  requestDsl: { method: 'GET', path: '/pets' },
                  responseDsl: { status: 200, json: ['rex'] },
                },
              },
            ],
          },
        },
      )
      expect(txns.status).toBe(200)
      const txnId = Array.isArray(txns.body.result) ? txns.body.result[0]?.id : txns.body.result.id
      const mock = await api<{ id: number }>(a, `${ws}/service-mocks`, {
        method: 'POST',
        json: {
          serviceId: service.body.result.id,
          name: 'pets mock',
          mockServiceTransactions: [{ txnId, priority: 1 }],
        },
      })
      expect(mock.status).toBe(201)
      const mockId = mock.body.result.id
      const mockPath = `${ws}/service-mocks/${mockId}`
      const deploy = await api<{ trackingId: string }>(a, `${mockPath}/deploy`)
      expect(deploy.status).toBe(200)
      await waitFor(
        async () =>
          (await api<{ status: string }>(a, `/api/v1/trackings/${deploy.body.result.trackingId}`))
            .body.result.status === 'FINISHED',
        'the deploy through A to finish',
        { timeoutMs: 30_000, intervalMs: 100 },
      )
      const first = (await api<{ status: string; httpEndpoint: string }>(b, mockPath)).body.result
      expect(first.status).toBe('RUNNING')
      expect(await answers(first.httpEndpoint)).toBe(true)

      // A holds the lease and runs the one runtime; B, checking the leases meanwhile, starts none
      const leased = await leaseOf(pool, mockId)
      expect(leased.holder).toContain(`/${a.child.pid}/`)
      expect(leased.admin_url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/)
      await aLeaseLater(pool, mockId)
      expect(runtimeChildren(a.child.pid)).toEqual([leased.pid])
      expect(runtimeChildren(b.child.pid)).toEqual([])

      // Inspection and verification through B reach A's runtime
      const inspection = await api<Array<{ path?: string; url?: string }>>(
        b,
        `/reports/api/v1${ws.slice('/api/v1'.length)}/inspection-data/service-mock/${mockId}`,
      )
      expect(inspection.status).toBe(200)
      expect(inspection.body.result.length).toBe(1)
      const verified = await api<{ verified: boolean }>(b, `${mockPath}/inspection/verify`, {
        method: 'POST',
        json: { request: { method: 'GET', path: '/pets' }, count: 1 },
      })
      expect(verified.status).toBe(200)
      expect(verified.body.result.verified).toBe(true)

      // A deploy sent to B while A runs it: A stops its copy and hands the lease over, B runs it;
      // and back again through A (one copy at any time, on the record's port)
      const handOver = async (
        to: CliServer,
        from: CliServer,
        action: 'deploy' | 'configure',
      ): Promise<void> => {
        const tracking = await api<{ trackingId: string }>(to, `${mockPath}/${action}`)
        expect(tracking.status).toBe(200)
        await waitFor(
          async () =>
            (
              await api<{ status: string }>(
                from,
                `/api/v1/trackings/${tracking.body.result.trackingId}`,
              )
            ).body.result.status === 'FINISHED',
          `the ${action} through the other instance to finish`,
          { timeoutMs: 30_000, intervalMs: 100 },
        )
        const lease = await leaseOf(pool, mockId)
        expect(lease.holder).toContain(`/${to.child.pid}/`)
        expect(runtimeChildren(to.child.pid)).toEqual([lease.pid])
        expect(runtimeChildren(from.child.pid)).toEqual([])
        expect(await answers(first.httpEndpoint)).toBe(true)
      }
      await handOver(b, a, 'configure')
      await handOver(a, b, 'deploy')
      const held = await leaseOf(pool, mockId)

      // A dies with its runtime: B takes the mock service over within the lease
      process.kill(a.child.pid as number, 'SIGKILL')
      process.kill(held.pid as number, 'SIGKILL')
      await waitFor(async () => !(await answers(first.httpEndpoint)), 'the runtime to be gone', {
        timeoutMs: 10_000,
        intervalMs: 100,
      })
      let endpoint = ''
      await waitFor(
        async () => {
          const lease = await leaseOf(pool, mockId)
          const record = (await api<{ status: string; httpEndpoint: string | null }>(b, mockPath))
            .body.result
          endpoint = record.httpEndpoint ?? ''
          return (
            lease.holder.includes(`/${b.child.pid}/`) &&
            lease.admin_url !== null &&
            record.status === 'RUNNING' &&
            (await answers(endpoint))
          )
        },
        'B to take the mock service over',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      const taken = await leaseOf(pool, mockId)
      expect(runtimeChildren(b.child.pid)).toEqual([taken.pid])
      const trackings = await pool.query<{ status: string }>(
        "SELECT status FROM trackings WHERE mock_service_id = $1 AND action = 'deploy' AND created_by = 'platform'",
        [mockId],
      )
      expect(trackings.map((t) => t.status)).toEqual(['FINISHED'])
      // Its admin API answers through B (the runtime's own) and the verification sees the new process's records
      const after = await api<{ verified: boolean }>(b, `${mockPath}/inspection/verify`, {
        method: 'POST',
        json: { request: { method: 'GET', path: '/pets' }, atLeast: 1 },
      })
      expect(after.body.result.verified).toBe(true)

      // A restarted on its data dir leaves B's runtime alone
      const again = await platformOn(dirA, url)
      await aLeaseLater(pool, mockId)
      expect((await leaseOf(pool, mockId)).holder).toContain(`/${b.child.pid}/`)
      expect(runtimeChildren(again.child.pid)).toEqual([])
      expect(runtimeChildren(b.child.pid)).toEqual([taken.pid])
      // ...and reaches it too
      const fromA = await api<{ verified: boolean }>(again, `${mockPath}/inspection/verify`, {
        method: 'POST',
        json: { request: { method: 'GET', path: '/pets' }, atLeast: 1 },
      })
      expect(fromA.body.result.verified).toBe(true)
    },
  )
})

describe('understudy platform --runtime-admin-host', () => {
  it('refuses a wildcard, which names no address another instance could call, in one line', async () => {
    const result = await runCli(
      ['platform', '--data-dir', tempDir(), '--port', '0', '--runtime-admin-host', '0.0.0.0'],
      { env: { UNDERSTUDY_STORE: '' } },
    )
    expect(result.stderr).toBe(
      'understudy platform: --runtime-admin-host must be an address of this machine that other instances reach (not a wildcard), not "0.0.0.0"\n',
    )
    expect(result.code).toBe(2)
  })
})

describe('understudy platform --runtime-lease', () => {
  it('refuses a lease that is not a whole number of seconds from 2 to 3600, in one line, with exit code 2', async () => {
    for (const [args, env, shown] of [
      [['--runtime-lease', '1'], {}, '1'],
      [['--runtime-lease', '2.5'], {}, '2.5'],
      [[], { UNDERSTUDY_RUNTIME_LEASE: 'soon' }, 'soon'],
    ] as const) {
      const result = await runCli(['platform', '--data-dir', tempDir(), '--port', '0', ...args], {
        env: { ...env, UNDERSTUDY_STORE: '' },
      })
      expect(result.stderr).toBe(
        `understudy platform: --runtime-lease must be a number of seconds from 2 to 3600, not "${shown}"\n`,
      )
      expect(result.code).toBe(2)
    }
  })
})
