// npm run bench:store: the platform's API on each store, SQLite and PostgreSQL, in alternating rounds
// of one run, through the real HTTP platform (dist/src/cli/main.js platform). Per store: creates per
// second (POST one transaction; POST a mock service of ten transactions), lists per second (GET the
// first page of 50 transactions) and pages per second of a walk through every page; then each as a
// PostgreSQL/SQLite ratio (above 1: PostgreSQL is faster). The PostgreSQL server is a throwaway one
// started here (scripts/postgres-server.ts, as the tests start theirs), a fresh database per round.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  canStartPostgres,
  createPgDatabase,
  PG_SKIP_REASON,
  startPostgresServer,
} from '../scripts/postgres-server.js'
import { startChild } from './child.js'

const root = resolve(import.meta.dirname, '..')
const cli = join(root, 'dist/src/cli/main.js')
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    transactions: { type: 'string', default: '1000' },
    mocks: { type: 'string', default: '200' },
    lists: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
  },
})
const rounds = Number(values.rounds)
const transactionCount = Number(values.transactions)
const mockCount = Number(values.mocks)
const listCount = Number(values.lists)
const concurrency = Number(values.concurrency)
const PAGE = 50
const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

type StoreName = 'sqlite' | 'postgres'

interface Figures {
  transactionCreates: number
  mockServiceCreates: number
  firstPages: number
  walkPages: number
}

const FIGURES: Array<{ key: keyof Figures; label: string }> = [
  { key: 'transactionCreates', label: 'POST a transaction' },
  { key: 'mockServiceCreates', label: 'POST a mock service (10 transactions)' },
  { key: 'firstPages', label: `GET the first page (${PAGE})` },
  { key: 'walkPages', label: 'pages of a walk through every page' },
]

async function api<T>(url: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      authorization: auth,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  const body = (await res.json()) as { result: T; error: unknown }
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body.error)}`)
  return body.result
}

/** Runs `count` calls of `one(i)`, `concurrency` at a time; returns calls per second. */
async function perSecond(count: number, one: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await one(i)
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

const transaction = (i: number) => ({
  name: `GET /orders/${i}`,
  dsl: {
    requestDsl: { method: 'GET', path: `/orders/${i}` },
    responseDsl: { status: 200, json: { id: i, padding: 'x'.repeat(400) } },
  },
})

/** One round on one store: a fresh platform, its creates, then its lists. */
async function measure(store: StoreName, pgPort: number): Promise<Figures> {
  const work = mkdtempSync(join(tmpdir(), `understudy-bench-store-${store}-`))
  const storeArgs = store === 'postgres' ? ['--store', await createPgDatabase(pgPort)] : []
  const platform = await startChild(
    process.execPath,
    [
      cli,
      'platform',
      '--port',
      '0',
      '--data-dir',
      join(work, 'data'),
      '--log-level',
      'warn',
      ...storeArgs,
    ],
    { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret },
  )
  try {
    const ws = `${platform.url}/api/v1/workspaces/1`
    const service = await api<{ id: number }>(`${ws}/services`, {
      method: 'POST',
      json: { name: 'orders' },
    })
    const ids: number[] = []
    const transactionCreates = await perSecond(transactionCount, async (i) => {
      const made = await api<{ id: number }>(`${ws}/transactions?serviceId=${service.id}`, {
        method: 'POST',
        json: { transactions: [transaction(i)] },
      })
      ids.push(made.id)
    })
    const mockServiceCreates = await perSecond(
      mockCount,
      async (i) =>
        await api(`${ws}/service-mocks`, {
          method: 'POST',
          json: {
            serviceId: service.id,
            name: `mock-${i}`,
            mockServiceTransactions: ids.slice((i * 10) % ids.length, ((i * 10) % ids.length) + 10),
          },
        }),
    )
    const firstPages = await perSecond(
      listCount,
      async () => await api(`${ws}/transactions?limit=${PAGE}`),
    )
    const pages = Math.ceil(transactionCount / PAGE)
    const walks = 3
    const started = performance.now()
    for (let walk = 0; walk < walks; walk++) {
      for (let skip = 0; skip < transactionCount; skip += PAGE) {
        await api(`${ws}/transactions?limit=${PAGE}&skip=${skip}`)
      }
    }
    const walkPages = (walks * pages) / ((performance.now() - started) / 1000)
    return { transactionCreates, mockServiceCreates, firstPages, walkPages }
  } finally {
    await platform.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number

if (!canStartPostgres()) {
  console.log(`bench:store skipped: ${PG_SKIP_REASON}`)
  process.exit(0)
}
const pgDir = mkdtempSync(join(tmpdir(), 'understudy-bench-pg-'))
const pg = await startPostgresServer({ runDir: pgDir, owner: process.pid })
const runs: Record<StoreName, Figures[]> = { sqlite: [], postgres: [] }
try {
  for (let round = 0; round < rounds; round++) {
    // Alternating, and the first store alternating too, so that neither always runs on a warmer machine.
    const order: StoreName[] = round % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite']
    for (const store of order) runs[store].push(await measure(store, pg.port))
  }
} finally {
  await pg.stop()
  rmSync(pgDir, { recursive: true, force: true })
}

console.log(
  `${transactionCount} transactions, ${mockCount} mock services, ${listCount} first pages, ` +
    `concurrency ${concurrency}, ${rounds} rounds (medians, per second; the runs in brackets)`,
)
for (const { key: figure, label } of FIGURES) {
  const of = (store: StoreName) => runs[store].map((r) => r[figure])
  const sqlite = median(of('sqlite'))
  const postgres = median(of('postgres'))
  const runsOf = (store: StoreName) => of(store).map(Math.round).join(', ')
  console.log(
    `${label}: SQLite ${Math.round(sqlite)}/s (${runsOf('sqlite')}); PostgreSQL ${Math.round(postgres)}/s (${runsOf('postgres')}); PG/SQLite ${(postgres / sqlite).toFixed(2)}`,
  )
}
