// npm run bench:platform: the platform's figures. (1) Throughput of scenario S1 served by a mock service
// the platform deployed, against `understudy run` alone with the same document, alternating, in
// one run (target: within 10%). (2) Time from `deploy` to a FINISHED tracking for a mock service
// of 1,000 transactions (target: under 3 s). (3) Listing transactions at 500 and at
// 50,000 rows (bench/platform-lists.ts). `--only lists` or `--only deploy` runs one part; `--store postgres` lists on PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { readDefinition } from '../src/dsl/index.js'
import { pinThisProcess, startChild, type ChildServer } from './child.js'
import { benchLists } from './platform-lists.js'
import { scenarios } from './scenarios/index.js'

const root = resolve(import.meta.dirname, '..')
const cli = join(root, 'dist/src/cli/main.js')
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    // Read by bench/platform-lists.ts (sqlite or postgres); declared so that it is let through.
    store: { type: 'string' },
  },
})
const duration = Number(values.duration)
const rounds = Number(values.rounds)
const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

async function api<T>(
  base: string,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<T> {
  const { json, ...rest } = init
  const res = await fetch(base + path, {
    ...rest,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { result: T; error: unknown }
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body.error)}`)
  return body.result
}

/** Creates a service with these transactions and a mock service of them; deploys; returns the time to FINISHED. */
async function deployed(
  base: string,
  name: string,
  transactions: unknown[],
): Promise<{ ms: number; endpoint: string; id: number }> {
  const service = await api<{ id: number }>(base, '/api/v1/workspaces/1/services', {
    method: 'POST',
    json: { name },
  })
  const created: Array<{ id: number }> = []
  for (let i = 0; i < transactions.length; i += 500) {
    const result = await api<Array<{ id: number }> | { id: number }>(
      base,
      `/api/v1/workspaces/1/transactions?serviceId=${service.id}`,
      { method: 'POST', json: { transactions: transactions.slice(i, i + 500) } },
    )
    created.push(...(Array.isArray(result) ? result : [result]))
  }
  const mock = await api<{ id: number }>(base, '/api/v1/workspaces/1/service-mocks', {
    method: 'POST',
    json: { serviceId: service.id, name, mockServiceTransactions: created.map((t) => t.id) },
  })
  const started = performance.now()
  const tracking = await api<{ trackingId: string }>(
    base,
    `/api/v1/workspaces/1/service-mocks/${mock.id}/deploy`,
  )
  for (;;) {
    const t = await api<{ status: string; errors: unknown[] }>(
      base,
      `/api/v1/trackings/${tracking.trackingId}`,
    )
    if (t.status === 'FINISHED') break
    if (t.status === 'FAILED') throw new Error(`deploy failed: ${JSON.stringify(t.errors)}`)
    await sleep(20)
  }
  const ms = performance.now() - started
  const record = await api<{ httpEndpoint: string }>(
    base,
    `/api/v1/workspaces/1/service-mocks/${mock.id}`,
  )
  return { ms, endpoint: record.httpEndpoint, id: mock.id }
}

async function rate(url: string, headers: Record<string, string>): Promise<number> {
  await autocannon({ url, headers, connections: 50, duration: 3 })
  const result = await autocannon({ url, headers, connections: 50, duration })
  if (result.errors + result.non2xx > 0) {
    throw new Error(`${result.errors} errors, ${result.non2xx} non-2xx`)
  }
  return result.requests.average
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number

if (values.only !== undefined && values.only !== 'lists' && values.only !== 'deploy') {
  throw new Error('--only takes lists or deploy')
}
if (values.only !== 'deploy') await benchLists(rounds)
if (values.only === 'lists') process.exit(0)

pinThisProcess(0)
const work = mkdtempSync(join(tmpdir(), 'understudy-bench-platform-'))
const s1 = scenarios.find((s) => s.id === 'S1')
const s3 = scenarios.find((s) => s.id === 'S3')
if (s1 === undefined || s3 === undefined) throw new Error('scenarios S1 and S3 are needed')
// The transactions as the API takes them: normalized DSL (base64 content).
const s1Transactions = readDefinition(s1.document).transactions
const thousand = readDefinition({
  transactions: (s3.document.transactions ?? []).slice(0, 1000),
}).transactions

// The platform (and the runtimes it starts, which inherit its CPU) on CPU 1; autocannon on CPU 0.
const platform: ChildServer = await startChild(
  process.execPath,
  [cli, 'platform', '--port', '0', '--data-dir', join(work, 'data'), '--log-level', 'warn'],
  { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret },
)
try {
  const deployTimes: number[] = []
  for (let i = 0; i < 3; i++) {
    deployTimes.push((await deployed(platform.url, `thousand-${i}`, thousand)).ms)
  }
  console.log(
    `deploy of a 1,000-transaction mock service to FINISHED: ${deployTimes.map((ms) => `${Math.round(ms)} ms`).join(', ')} (target < 3000 ms)`,
  )

  const viaPlatform = await deployed(platform.url, 's1', s1Transactions)
  const file = join(work, 's1.json')
  writeFileSync(file, JSON.stringify(s1.document))
  const headers = s1.request.headers ?? {}
  const platformRuns: number[] = []
  const aloneRuns: number[] = []
  for (let round = 0; round < rounds; round++) {
    platformRuns.push(await rate(viaPlatform.endpoint + s1.request.path, headers))
    const alone = await startChild(process.execPath, [
      cli,
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--log-level',
      'warn',
    ])
    try {
      aloneRuns.push(await rate(alone.url + s1.request.path, headers))
    } finally {
      await alone.stop()
    }
  }
  const ratio = median(platformRuns) / median(aloneRuns)
  console.log(
    `S1 through the platform's deployer: ${Math.round(median(platformRuns))} req/s (runs ${platformRuns.map(Math.round).join(', ')}); ` +
      `understudy run alone: ${Math.round(median(aloneRuns))} req/s (runs ${aloneRuns.map(Math.round).join(', ')}); ratio ${ratio.toFixed(3)} (target >= 0.90)`,
  )
} finally {
  await platform.stop()
  rmSync(work, { recursive: true, force: true })
}
