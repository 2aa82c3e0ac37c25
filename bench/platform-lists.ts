// The transaction list figures (`npm run bench:platform -- --only lists`, or `npx tsx bench/platform-lists.ts`):
// GET /api/v1/workspaces/{id}/transactions at 500 and at 50,000 transactions, through the real HTTP
// handler, the two stores measured in alternating rounds of one run. Reported per size: ms per list
// call (the first page, a walk through every page, the first page of one service), the longest
// single store call (the list runs synchronously on the event loop, so this is how long it blocks
// it), and perf_hooks' event-loop delay while the calls ran.
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import { allRoutes, bootstrap, createApiHandler } from '../src/api/index.js'
import { createSilentLogger } from '../src/log/index.js'
import { AssetFiles, openSqliteStore, type Store } from '../src/store/index.js'
import { unavailableDeployer } from '../test/helpers/platform.js'

const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
const PAGE = 50

interface Sized {
  count: number
  store: Store
  server: http.Server
  base: string
  workspaceId: number
  serviceId: number
  dataDir: string
}

/** A platform (store and API handler, in this process) whose workspace holds `count` transactions in two services. */
async function sized(count: number): Promise<Sized> {
  const dataDir = mkdtempSync(join(tmpdir(), `understudy-lists-bench-${count}-`))
  let store = await openSqliteStore({ dataDir })
  const { workspaceId } = await bootstrap(store, {
    dataDir,
    apiKeyId: key.id,
    apiKeySecret: key.secret,
  })
  const services = [
    await store.services.create({ workspaceId, name: 'orders', description: null, by: 'bench' }),
    await store.services.create({ workspaceId, name: 'pets', description: null, by: 'bench' }),
  ]
  await store.close()
  // Seeded with raw SQL: the API would measure the seeding.
  const db = new Database(join(dataDir, 'understudy.db'))
  const dsl = JSON.stringify({
    requestDsl: { method: 'GET', path: '/x' },
    responseDsl: { status: 200, json: { ok: true, padding: 'x'.repeat(400) } },
  })
  const insert = db.prepare(
    'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const now = Date.now()
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const service = services[i % 2]?.id ?? 0
      insert.run(
        workspaceId,
        service,
        `GET /orders/${i}`,
        null,
        'GENERIC_DSL',
        dsl,
        now - i,
        now - i,
        'bench',
        'bench',
      )
    }
  })()
  // What the repository does after its inserts (migration 11); the build before it has no such table.
  if (
    db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'transaction_counts'").get() !== undefined
  ) {
    db.prepare(
      'INSERT INTO transaction_counts (workspace_id, service_id, n, changes) SELECT workspace_id, service_id, COUNT(*), COUNT(*) FROM transactions GROUP BY workspace_id, service_id',
    ).run()
  }
  db.close()
  store = await openSqliteStore({ dataDir })
  const server = http.createServer(
    createApiHandler(
      {
        store,
        files: new AssetFiles(dataDir),
        deployer: unavailableDeployer,
        log: createSilentLogger(),
        options: {
          baseUrl: 'http://127.0.0.1',
          jsonLimit: 1 << 20,
          uploadLimit: 1 << 20,
          signingKey: Buffer.alloc(32),
        },
      },
      allRoutes,
    ),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    count,
    store,
    server,
    base: `http://127.0.0.1:${port}/api/v1/workspaces/${workspaceId}/transactions`,
    workspaceId,
    serviceId: services[0]?.id ?? 0,
    dataDir,
  }
}

async function list(url: string): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(url, { headers: { authorization: auth } })
  const body = (await res.json()) as { result: unknown[]; total: number }
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  if (body.result.length === 0 && body.total > 0 && !url.includes('skip=')) {
    throw new Error(`${url}: an empty first page`)
  }
  return performance.now() - t0
}

/** Median, in ms. */
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0
const p99 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? 0

interface Figures {
  firstPage: number[]
  walkPage: number[]
  servicePage: number[]
  storeCall: number[]
  searchPage: number[]
  sortedWalk: number[]
  filteredStoreCall: number[]
}

async function round(s: Sized, into: Figures): Promise<void> {
  for (let i = 0; i < 50; i++) into.firstPage.push(await list(`${s.base}?limit=${PAGE}`))
  for (let i = 0; i < 50; i++) {
    into.servicePage.push(await list(`${s.base}?limit=${PAGE}&serviceId=${s.serviceId}`))
  }
  // The walk of a client reading every page, at most 200 pages (10,000 rows) per round.
  for (let skip = 0; skip < Math.min(s.count, 200 * PAGE); skip += PAGE) {
    into.walkPage.push(await list(`${s.base}?limit=${PAGE}&skip=${skip}`))
  }
  // A filtered list (its total is counted, then reused while nothing changes) and a walk sorted
  // by name, the first 50 pages.
  for (let i = 0; i < 50; i++) {
    into.searchPage.push(await list(`${s.base}?limit=${PAGE}&search=orders/1`))
  }
  for (let skip = 0; skip < Math.min(s.count, 50 * PAGE); skip += PAGE) {
    into.sortedWalk.push(await list(`${s.base}?limit=${PAGE}&skip=${skip}&sort=name`))
  }
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now()
    await s.store.transactions.list(
      s.workspaceId,
      { contains: 'orders/1' },
      { limit: PAGE, skip: 0 },
    )
    into.filteredStoreCall.push(performance.now() - t0)
  }
  // The store call alone: what the event loop is held for.
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now()
    await s.store.transactions.list(s.workspaceId, {}, { limit: PAGE, skip: 0 })
    into.storeCall.push(performance.now() - t0)
  }
  // A deep walk of the store, continuing from page to page past the first 10,000 rows.
  for (let skip = 0; skip < s.count; skip += PAGE) {
    const t0 = performance.now()
    await s.store.transactions.list(s.workspaceId, {}, { limit: PAGE, skip })
    into.storeCall.push(performance.now() - t0)
  }
}

export async function benchLists(rounds = 3): Promise<void> {
  const sizes = [await sized(500), await sized(50_000)]
  const figures = sizes.map((): Figures => ({
    firstPage: [],
    walkPage: [],
    servicePage: [],
    storeCall: [],
    searchPage: [],
    sortedWalk: [],
    filteredStoreCall: [],
  }))
  // p99 and max of the event-loop delay, per round
  const delays = sizes.map((): Array<{ p99: number; max: number }> => [])
  try {
    for (let r = 0; r < rounds; r++) {
      for (const [i, s] of sizes.entries()) {
        const delay = delays[i]
        const into = figures[i]
        if (delay === undefined || into === undefined) continue
        // A monitor per round: one re-enabled would count the time it was off as a delay.
        const monitor = monitorEventLoopDelay({ resolution: 1 })
        monitor.enable()
        await round(s, into)
        monitor.disable()
        delay.push({ p99: monitor.percentile(99) / 1e6, max: monitor.max / 1e6 })
      }
    }
    for (const [i, s] of sizes.entries()) {
      const f = figures[i]
      const delay = delays[i]
      if (f === undefined || delay === undefined) continue
      console.log(
        `${s.count} transactions: first page ${median(f.firstPage).toFixed(2)} ms, walk ${median(f.walkPage).toFixed(2)} ms/page, ` +
          `one service's first page ${median(f.servicePage).toFixed(2)} ms; store call median ${median(f.storeCall).toFixed(3)} ms, ` +
          `p99 ${p99(f.storeCall).toFixed(2)} ms, max ${Math.max(...f.storeCall).toFixed(2)} ms (${f.storeCall.length} calls); ` +
          `search page ${median(f.searchPage).toFixed(2)} ms, sort=name walk ${median(f.sortedWalk).toFixed(2)} ms/page, filtered store call median ${median(f.filteredStoreCall).toFixed(3)} ms, max ${Math.max(...f.filteredStoreCall).toFixed(2)} ms; event-loop delay p99 per round ${delay.map((d) => d.p99.toFixed(2)).join(', ')} ms, max ${delay.map((d) => d.max.toFixed(2)).join(', ')} ms`,
      )
    }
    const [small, large] = figures
    if (small !== undefined && large !== undefined) {
      console.log(
        `50,000 / 500: first page ${(median(large.firstPage) / median(small.firstPage)).toFixed(2)}, walk ${(median(large.walkPage) / median(small.walkPage)).toFixed(2)}, ` +
          `service page ${(median(large.servicePage) / median(small.servicePage)).toFixed(2)}, search page ${(median(large.searchPage) / median(small.searchPage)).toFixed(2)}, ` +
          `sort=name walk ${(median(large.sortedWalk) / median(small.sortedWalk)).toFixed(2)}, filtered store call ${(median(large.filteredStoreCall) / median(small.filteredStoreCall)).toFixed(2)}, store call ${(median(large.storeCall) / median(small.storeCall)).toFixed(2)} (target 1)`,
      )
    }
  } finally {
    for (const s of sizes) {
      s.server.close()
      await s.store.close()
      rmSync(s.dataDir, { recursive: true, force: true })
    }
  }
}

if (import.meta.filename === process.argv[1]) await benchLists()
