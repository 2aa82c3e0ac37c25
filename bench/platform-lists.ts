// The transaction list figures (`npm run bench:platform -- --only lists`, or `npx tsx bench/platform-lists.ts`):
// GET /api/v1/workspaces/{id}/transactions at 500 and at 50,000 transactions, through the real HTTP
// handler, the two stores measured in alternating rounds of one run. Reported per size: ms per list
// call (the first page, a walk through every page, the first page of one service), the longest
// single store call (the list runs synchronously on the event loop, so this is how long it blocks
// it), and perf_hooks' event-loop delay while the calls ran. Then, per sort with an index, a walk
// of the first pages and jumps to far pages, and filtered lists after writes, with the longest CPU
// time the event loop was held (`LISTS_SORTS_ONLY=1` or `--sorts-only`: only this part).
// `--store postgres` runs the same measurements on the PostgreSQL store, on a throwaway server
// started here (scripts/postgres-server.ts, as the tests start theirs); its queries run off the
// event loop, so the store call's latency and the loop's delay are two figures there.
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import pg from 'pg'
import {
  canStartPostgres,
  createPgDatabase,
  PG_SKIP_REASON,
  startPostgresServer,
} from '../scripts/postgres-server.js'
import { allRoutes, bootstrap, createApiHandler } from '../src/api/index.js'
import { createSilentLogger } from '../src/log/index.js'
import {
  AssetFiles,
  openPostgresStore,
  openSqliteStore,
  StoredAssetFiles,
  type AssetBytes,
  type Store,
} from '../src/store/index.js'
import { unavailableDeployer } from '../test/helpers/platform.js'
import { storeOfArgv, type StoreKind } from './store-kind.js'

const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
const PAGE = 50

interface Sized {
  count: number
  /** SQLite: the list runs on the event loop, and a CPU probe measures how long it holds it. */
  probesCpu: boolean
  store: Store
  /** PostgreSQL: another instance's store on the same database, whose writes this one's lists meet. */
  other?: Store
  server: http.Server
  base: string
  workspaceId: number
  serviceId: number
  dataDir: string
}

const dsl = JSON.stringify({
  requestDsl: { method: 'GET', path: '/x' },
  responseDsl: { status: 200, json: { ok: true, padding: 'x'.repeat(400) } },
})

/** Where a store lives: a data dir, and on PostgreSQL the server's port too. */
interface StoreTarget {
  kind: StoreKind
  pgPort?: number
}

/** A platform (store and API handler, in this process) whose workspace holds `count` transactions in two services. */
async function sized(count: number, target: StoreTarget): Promise<Sized> {
  const dataDir = mkdtempSync(join(tmpdir(), `understudy-lists-bench-${count}-`))
  const pgUrl = target.pgPort === undefined ? undefined : await createPgDatabase(target.pgPort)
  const open = async (): Promise<Store> =>
    pgUrl === undefined
      ? await openSqliteStore({ dataDir })
      : await openPostgresStore({ url: pgUrl })
  let store = await open()
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
  const serviceIds = services.map((service) => service.id)
  if (pgUrl === undefined) seedSqlite(dataDir, workspaceId, serviceIds, count)
  else await seedPostgres(pgUrl, workspaceId, serviceIds, count)
  store = await open()
  const files: AssetBytes =
    pgUrl === undefined ? new AssetFiles(dataDir) : new StoredAssetFiles(store.assetChunks)
  const server = http.createServer(
    createApiHandler(
      {
        store,
        files,
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
    probesCpu: pgUrl === undefined,
    store,
    server,
    base: `http://127.0.0.1:${port}/api/v1/workspaces/${workspaceId}/transactions`,
    workspaceId,
    serviceId: services[0]?.id ?? 0,
    dataDir,
    ...(pgUrl === undefined ? {} : { other: await open() }),
  }
}

// Seeded with raw SQL: the API would measure the seeding. Row i of either store: service i % 2,
// name `GET /orders/i`; created: uploads of 5,000 rows share one instant; updated: every row its own.

function seedSqlite(
  dataDir: string,
  workspaceId: number,
  serviceIds: readonly number[],
  count: number,
): void {
  const db = new Database(join(dataDir, 'understudy.db'))
  const insert = db.prepare(
    'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const now = Date.now()
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      insert.run(
        workspaceId,
        serviceIds[i % 2] ?? 0,
        `GET /orders/${i}`,
        null,
        'GENERIC_DSL',
        dsl,
        now - Math.floor(i / 5000),
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
}

/**
 * The same rows in one INSERT ... SELECT over generate_series. Inserts are counted by the
 * repository, not by a trigger (updates and deletes are): the counts are written as its
 * createEncodedMany writes them. ANALYZE, as autovacuum would shortly after such an import, so
 * that the plans are those of a settled table.
 */
async function seedPostgres(
  url: string,
  workspaceId: number,
  serviceIds: readonly number[],
  count: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(
      'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) ' +
        "SELECT $1, CASE WHEN i % 2 = 0 THEN $2::bigint ELSE $3::bigint END, 'GET /orders/' || i, NULL, 'GENERIC_DSL', $4::json, $5::bigint - i / 5000, $5::bigint - i, 'bench', 'bench' " +
        'FROM generate_series(0, $6::integer - 1) AS i ORDER BY i',
      [workspaceId, serviceIds[0], serviceIds[1], dsl, Date.now(), count],
    )
    await client.query(
      'INSERT INTO transaction_counts (workspace_id, service_id, n, changes) ' +
        'SELECT workspace_id, service_id, COUNT(*), COUNT(*) FROM transactions GROUP BY workspace_id, service_id ' +
        'ON CONFLICT (workspace_id, service_id) DO UPDATE SET n = transaction_counts.n + excluded.n, changes = transaction_counts.changes + excluded.changes',
    )
    await client.query('VACUUM ANALYZE transactions')
  } finally {
    await client.end()
  }
}

async function list(url: string): Promise<number> {
  const t0 = performance.now()
  // A connection idle past the server's keep-alive timeout (a long phase of store calls between
  // two HTTP phases) may be reset as it is reused: that request is sent again once.
  const res = await fetch(url, { headers: { authorization: auth } }).catch(
    async () => await fetch(url, { headers: { authorization: auth } }),
  )
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

/** The sorts with an index each (SQLite migrations 1, 11, 14 and 20; PostgreSQL 8 and 11), descending too. */
const SORTS = [
  'created',
  '-updated',
  'createdBy',
  '-updatedBy',
  'name',
  'id',
  'serviceId',
  'dslType',
] as const

interface SortFigures {
  /** HTTP, ms per page: the first 20 pages, skip 0, 50, 100... */
  walk: number[]
  /** Store call, ms: a jump to a random far page (one that does not continue the page before). */
  jump: number[]
  /** The longest the event loop was held during each jump, ms. */
  jumpBlock: number[]
  /** The same, among the turns no garbage collection fell into. */
  jumpBlockOutsideGc: number[]
}

/** Store calls of one kind: ms each, the longest hold of each, and that among turns without a GC. */
interface Calls {
  ms: number[]
  held: number[]
  heldOutsideGc: number[]
}

interface Figures {
  sorts: Record<string, SortFigures>
  /** After each write: the first filtered list's store call, ms, and the longest it held the loop. */
  filteredAfterWrite: number[]
  filteredAfterWriteBlock: number[]
  /** The filtered list after a write: the first page, the page after it, a far page, a rare filter's first page. */
  filtered: Record<string, Calls>
  firstPage: number[]
  walkPage: number[]
  servicePage: number[]
  storeCall: number[]
  searchPage: number[]
  sortedWalk: number[]
  filteredStoreCall: number[]
  /** Event-loop delay per phase (one monitor per phase and round, or per call): p99 and max, ms. */
  loopDelay: Record<string, { p99: number[]; max: number[] }>
}

/**
 * Runs `fn` under an event-loop delay monitor of its own (1 ms resolution: a loop never held
 * reads about 1.0 to 1.1 ms, the timer's own interval) and records its p99 and max under `phase`.
 * On PostgreSQL the query runs in the server, so this, not the call's latency, is what the list
 * costs the event loop; over HTTP it includes the bench's own client in the same process.
 */
async function inPhase(into: Figures, phase: string, fn: () => Promise<unknown>): Promise<void> {
  const monitor = monitorEventLoopDelay({ resolution: 1 })
  monitor.enable()
  try {
    await fn()
  } finally {
    monitor.disable()
  }
  const d = (into.loopDelay[phase] ??= { p99: [], max: [] })
  d.p99.push(monitor.percentile(99) / 1e6)
  d.max.push(monitor.max / 1e6)
}

/** Garbage collections of the process, taken by `withLongestBlock` after each call. */
const gcs = new PerformanceObserver(() => undefined)
gcs.observe({ entryTypes: ['gc'] })

/**
 * Runs `fn` and returns the longest stretch of CPU time the process spent between two turns of
 * a `setImmediate` loop running beside it: how long one synchronous piece of the call held the
 * event loop. CPU time rather than wall-clock, so that the other jobs of a shared machine, which
 * stop the process between two instructions, do not count as the list's. Node 20 has no clock of
 * the main thread alone: the process's CPU counts V8's helper threads too, which work during a
 * garbage collection, so the longest stretch among the turns no GC fell into is returned beside it.
 * Run with `node --single-threaded --import tsx` for that figure to be the main thread's alone
 * (no GC helper or compiler threads: the process's CPU is then the event loop's).
 */
async function withLongestBlock(
  fn: () => Promise<unknown>,
): Promise<{ held: number; heldOutsideGc: number }> {
  const turns: Array<{ from: number; to: number; cpu: number }> = []
  let last = process.cpuUsage()
  let lastWall = performance.now()
  let running = true
  gcs.takeRecords()
  const sample = (): void => {
    const used = process.cpuUsage(last)
    last = process.cpuUsage()
    const now = performance.now()
    turns.push({ from: lastWall, to: now, cpu: (used.user + used.system) / 1000 })
    lastWall = now
  }
  const tick = (): void => {
    sample()
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  await fn()
  running = false
  sample()
  // a collection's entry is queued when it ends: one more turn delivers the last ones
  await new Promise((resolve) => setImmediate(resolve))
  const collections: PerformanceEntry[] = gcs.takeRecords()
  const gcIn = (turn: { from: number; to: number }): boolean =>
    collections.some((gc) => gc.startTime < turn.to && gc.startTime + gc.duration > turn.from)
  return {
    // a loop, not Math.max(...turns): a call of a few hundred ms waiting on a database has more
    // turns than a spread can pass as arguments
    held: turns.reduce((most, t) => Math.max(most, t.cpu), -Infinity),
    heldOutsideGc: turns.reduce((most, t) => (gcIn(t) ? most : Math.max(most, t.cpu)), 0),
  }
}

/**
 * A store call with the longest hold of the event loop (SQLite). On PostgreSQL the list waits on
 * the server, and the probe's own spinning would take a CPU from it (2 vCPUs) and lengthen both
 * the call and the loop's delay, so the call runs alone and its hold is NaN: the event-loop delay
 * per phase stands for it there.
 */
async function storeCall(
  s: Sized,
  fn: () => Promise<unknown>,
): Promise<{ held: number; heldOutsideGc: number }> {
  if (s.probesCpu) return await withLongestBlock(fn)
  await fn()
  return { held: Number.NaN, heldOutsideGc: Number.NaN }
}

/** A deterministic spread of far skips over the list (a multiplicative hash of i). */
const farSkip = (count: number, i: number): number =>
  Math.floor((((i * 2654435761) >>> 0) / 2 ** 32) * (count - PAGE))

async function sortedRound(s: Sized, into: Figures): Promise<void> {
  for (const sort of SORTS) {
    const f = (into.sorts[sort] ??= { walk: [], jump: [], jumpBlock: [], jumpBlockOutsideGc: [] })
    await inPhase(into, `sort=${sort} walk (HTTP)`, async () => {
      for (let skip = 0; skip < 20 * PAGE; skip += PAGE) {
        f.walk.push(await list(`${s.base}?limit=${PAGE}&skip=${skip}&sort=${sort}`))
      }
    })
    await inPhase(into, `sort=${sort} far jumps (store)`, async () => {
      for (let i = 1; i <= 30; i++) {
        const t0 = performance.now()
        const block = await storeCall(s, () =>
          s.store.transactions.list(
            s.workspaceId,
            {},
            { limit: PAGE, skip: farSkip(s.count, i), sort },
          ),
        )
        f.jump.push(performance.now() - t0)
        f.jumpBlock.push(block.held)
        f.jumpBlockOutsideGc.push(block.heldOutsideGc)
      }
    })
  }
  await filteredAfterWrites(s, into, s.store, '', 'insert')
  // Another instance's writes are not moved into this pool's kept lists at their commit: its
  // inserts, and its updates through the log of changed rows, are found by the next list
  // (PostgreSQL; on SQLite one process writes).
  if (s.other !== undefined) {
    await filteredAfterWrites(s, into, s.other, ", another instance's write", 'insert')
    await filteredAfterWrites(s, into, s.other, ", another instance's rename", 'update')
  }
}

/**
 * Ten one-row writes by `writer` (inserts, or renames of rows the filter holds), each followed
 * by a filtered list's first page, the page after it, a far page and a rare filter's first page,
 * named with `suffix`.
 */
async function filteredAfterWrites(
  s: Sized,
  into: Figures,
  writer: Store,
  suffix: string,
  kind: 'insert' | 'update',
): Promise<void> {
  const renamed = (
    await s.store.transactions.list(s.workspaceId, { contains: 'orders/1' }, { limit: 10, skip: 0 })
  ).items.map((t) => t.id)
  // Each write changes the workspace's change count: the filtered list after it has no total.
  for (let i = 0; i < 10; i++) {
    // The write moves the positions and totals the lists above left kept: what that costs it.
    const write = (into.filtered[`the one-row write before it${suffix}`] ??= {
      ms: [],
      held: [],
      heldOutsideGc: [],
    })
    const written = performance.now()
    const writeBlock = await storeCall(s, () =>
      writer.write(async (tx) => {
        if (kind === 'update') {
          await tx.transactions.update(s.workspaceId, renamed[i] ?? 0, {
            name: `GET /orders/1renamed/${suffix.length}/${i}`,
            by: 'bench',
          })
          return
        }
        await tx.transactions.createEncodedMany(
          { workspaceId: s.workspaceId, serviceId: s.serviceId, by: 'bench' },
          [
            {
              name: `GET /written/${suffix === '' ? '' : 'elsewhere/'}${i}`,
              description: null,
              dslType: 'GENERIC_DSL',
              tags: [],
              dslJson: '{"requestDsl":{"method":"GET","path":"/w"},"responseDsl":{"status":200}}',
            },
          ],
        )
      }),
    )
    write.ms.push(performance.now() - written)
    write.held.push(writeBlock.held)
    write.heldOutsideGc.push(writeBlock.heldOutsideGc)
    // The first page (positions read in slices), the page after it, a far page, and the first
    // page of a filter only the last rows match (its page scans the list for them).
    const cases: Array<[string, string, number]> = [
      ['first page', 'orders/1', 0],
      ['next page', 'orders/1', PAGE],
      ['far page', 'orders/1', Math.floor(s.count / 10)],
      ['rare filter', `orders/${s.count - 1}`, 0],
    ]
    // The control: 200 turns of a quarter-millisecond spin, about what the first page's slices
    // are. Its longest hold is the machine's noise on a max of 200 turns (other jobs, GC, the
    // clock), the floor under the figures of the calls of as many turns.
    const control = (into.filtered['control: 200 turns of 0.25 ms'] ??= {
      ms: [],
      held: [],
      heldOutsideGc: [],
    })
    const t0 = performance.now()
    const block = await withLongestBlock(async () => {
      for (let turn = 0; turn < 200; turn++) {
        const until = performance.now() + 0.25
        while (performance.now() < until);
        await new Promise((resolve) => setImmediate(resolve))
      }
    })
    control.ms.push(performance.now() - t0)
    control.held.push(block.held)
    control.heldOutsideGc.push(block.heldOutsideGc)
    for (const [name, contains, skip] of cases) {
      const c = (into.filtered[`${name}${suffix}`] ??= { ms: [], held: [], heldOutsideGc: [] })
      const t0 = performance.now()
      let block = { held: 0, heldOutsideGc: 0 }
      await inPhase(into, `after a write: ${name} (store)`, async () => {
        block = await storeCall(s, () =>
          s.store.transactions.list(s.workspaceId, { contains }, { limit: PAGE, skip }),
        )
      })
      c.ms.push(performance.now() - t0)
      c.held.push(block.held)
      c.heldOutsideGc.push(block.heldOutsideGc)
      if (name === 'first page' && suffix === '') {
        into.filteredAfterWrite.push(performance.now() - t0)
        into.filteredAfterWriteBlock.push(block.held)
      }
    }
  }
}

async function round(s: Sized, into: Figures): Promise<void> {
  await inPhase(into, 'first page (HTTP)', async () => {
    for (let i = 0; i < 50; i++) into.firstPage.push(await list(`${s.base}?limit=${PAGE}`))
  })
  await inPhase(into, "one service's first page (HTTP)", async () => {
    for (let i = 0; i < 50; i++) {
      into.servicePage.push(await list(`${s.base}?limit=${PAGE}&serviceId=${s.serviceId}`))
    }
  })
  // The walk of a client reading every page, at most 200 pages (10,000 rows) per round.
  await inPhase(into, 'walk (HTTP)', async () => {
    for (let skip = 0; skip < Math.min(s.count, 200 * PAGE); skip += PAGE) {
      into.walkPage.push(await list(`${s.base}?limit=${PAGE}&skip=${skip}`))
    }
  })
  // A filtered list (its total is counted, then reused while nothing changes) and a walk sorted
  // by name, the first 50 pages.
  await inPhase(into, 'search page (HTTP)', async () => {
    for (let i = 0; i < 50; i++) {
      into.searchPage.push(await list(`${s.base}?limit=${PAGE}&search=orders/1`))
    }
  })
  await inPhase(into, 'sort=name walk (HTTP)', async () => {
    for (let skip = 0; skip < Math.min(s.count, 50 * PAGE); skip += PAGE) {
      into.sortedWalk.push(await list(`${s.base}?limit=${PAGE}&skip=${skip}&sort=name`))
    }
  })
  await inPhase(into, 'filtered first page (store)', async () => {
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now()
      await s.store.transactions.list(
        s.workspaceId,
        { contains: 'orders/1' },
        { limit: PAGE, skip: 0 },
      )
      into.filteredStoreCall.push(performance.now() - t0)
    }
  })
  // The store call alone: on SQLite, what the event loop is held for.
  await inPhase(into, 'first page (store)', async () => {
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now()
      await s.store.transactions.list(s.workspaceId, {}, { limit: PAGE, skip: 0 })
      into.storeCall.push(performance.now() - t0)
    }
  })
  // A deep walk of the store, continuing from page to page past the first 10,000 rows.
  await inPhase(into, 'walk of every row (store)', async () => {
    for (let skip = 0; skip < s.count; skip += PAGE) {
      const t0 = performance.now()
      await s.store.transactions.list(s.workspaceId, {}, { limit: PAGE, skip })
      into.storeCall.push(performance.now() - t0)
    }
  })
}

/** Per phase and size: the event-loop delay's p99 (median over the phase's runs) and max, ms. */
function printLoopDelays(sizes: readonly Sized[], figures: readonly Figures[]): void {
  const [small, large] = figures
  if (small === undefined || large === undefined) return
  const of = (f: Figures, phase: string): string => {
    const d = f.loopDelay[phase]
    return d === undefined
      ? '-'
      : `p99 ${median(d.p99).toFixed(2)}, max ${Math.max(...d.max).toFixed(2)}`
  }
  console.log(
    `event-loop delay per phase, ms (${sizes.map((s) => s.count).join(' | ')}; 1 ms resolution, an idle loop reads about 1.1):`,
  )
  for (const phase of Object.keys(large.loopDelay)) {
    console.log(`  ${phase}: ${of(small, phase)} | ${of(large, phase)}`)
  }
}

function printSorted(sizes: readonly Sized[], figures: readonly Figures[]): void {
  const [small, large] = figures
  for (const [i, s] of sizes.entries()) {
    const f = figures[i]
    if (f === undefined) continue
    for (const sort of SORTS) {
      const g = f.sorts[sort]
      if (g === undefined) continue
      console.log(
        `${s.count} sort=${sort}: walk ${median(g.walk).toFixed(2)} ms/page (HTTP), far jump store call ${median(g.jump).toFixed(3)} ms median, ` +
          `p99 ${p99(g.jump).toFixed(2)}, event loop held at most ${median(g.jumpBlock).toFixed(3)} ms median, max ${Math.max(...g.jumpBlock).toFixed(2)} ms; ` +
          `outside GC ${median(g.jumpBlockOutsideGc).toFixed(3)} ms median, max ${Math.max(...g.jumpBlockOutsideGc).toFixed(2)} ms`,
      )
    }
    for (const [name, c] of Object.entries(f.filtered)) {
      console.log(
        `${s.count} filtered list after a write, ${name}: store call ${median(c.ms).toFixed(2)} ms median; event loop held ${median(c.held).toFixed(3)} ms median, max ${Math.max(...c.held).toFixed(2)} ms; ` +
          `outside GC ${median(c.heldOutsideGc).toFixed(3)} ms median, max ${Math.max(...c.heldOutsideGc).toFixed(2)} ms`,
      )
    }
    console.log(
      `${s.count} filtered list after a write: store call ${median(f.filteredAfterWrite).toFixed(2)} ms median, event loop held ${median(f.filteredAfterWriteBlock).toFixed(3)} ms median, max ${Math.max(...f.filteredAfterWriteBlock).toFixed(2)} ms`,
    )
  }
  if (small === undefined || large === undefined) return
  const ratio = (a: number[] | undefined, b: number[] | undefined): string =>
    a === undefined || b === undefined ? '-' : (median(b) / median(a)).toFixed(2)
  console.log(
    `50,000 / 500 per sort (walk, far jump, far jump's longest hold): ${SORTS.map((sort) => `${sort} ${ratio(small.sorts[sort]?.walk, large.sorts[sort]?.walk)} / ${ratio(small.sorts[sort]?.jump, large.sorts[sort]?.jump)} / ${ratio(small.sorts[sort]?.jumpBlock, large.sorts[sort]?.jumpBlock)}`).join(', ')}; ` +
      `filtered after a write ${ratio(small.filteredAfterWrite, large.filteredAfterWrite)} / hold ${ratio(small.filteredAfterWriteBlock, large.filteredAfterWriteBlock)}`,
  )
}

/** `--sorts-only` (or LISTS_SORTS_ONLY=1): only the per-sort figures and the filtered list after writes. */
const sortsOnly = process.argv.includes('--sorts-only') || process.env['LISTS_SORTS_ONLY'] === '1'

export async function benchLists(rounds = 3, kind: StoreKind = storeOfArgv()): Promise<void> {
  let pgServer: { port: number; stop: () => Promise<void>; dir: string } | undefined
  if (kind === 'postgres') {
    if (!canStartPostgres()) throw new Error(PG_SKIP_REASON)
    const dir = mkdtempSync(join(tmpdir(), 'understudy-lists-bench-pg-'))
    pgServer = { ...(await startPostgresServer({ runDir: dir, owner: process.pid })), dir }
  }
  const target: StoreTarget = pgServer === undefined ? { kind } : { kind, pgPort: pgServer.port }
  console.log(
    kind === 'postgres'
      ? 'store: postgres (no CPU probe around store calls: "held" is NaN, see the event-loop delay per phase)'
      : 'store: sqlite',
  )
  const sizes = [await sized(500, target), await sized(50_000, target)]
  const figures = sizes.map((): Figures => ({
    sorts: {},
    filteredAfterWrite: [],
    filteredAfterWriteBlock: [],
    filtered: {},
    firstPage: [],
    walkPage: [],
    servicePage: [],
    storeCall: [],
    searchPage: [],
    sortedWalk: [],
    filteredStoreCall: [],
    loopDelay: {},
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
        if (!sortsOnly) await round(s, into)
        await sortedRound(s, into)
        monitor.disable()
        delay.push({ p99: monitor.percentile(99) / 1e6, max: monitor.max / 1e6 })
      }
    }
    printSorted(sizes, figures)
    printLoopDelays(sizes, figures)
    for (const [i, s] of sizes.entries()) {
      const f = figures[i]
      const delay = delays[i]
      if (f === undefined || delay === undefined || sortsOnly) continue
      console.log(
        `${s.count} transactions: first page ${median(f.firstPage).toFixed(2)} ms, walk ${median(f.walkPage).toFixed(2)} ms/page, ` +
          `one service's first page ${median(f.servicePage).toFixed(2)} ms; store call median ${median(f.storeCall).toFixed(3)} ms, ` +
          `p99 ${p99(f.storeCall).toFixed(2)} ms, max ${Math.max(...f.storeCall).toFixed(2)} ms (${f.storeCall.length} calls); ` +
          `search page ${median(f.searchPage).toFixed(2)} ms, sort=name walk ${median(f.sortedWalk).toFixed(2)} ms/page, filtered store call median ${median(f.filteredStoreCall).toFixed(3)} ms, max ${Math.max(...f.filteredStoreCall).toFixed(2)} ms; event-loop delay p99 per round ${delay.map((d) => d.p99.toFixed(2)).join(', ')} ms, max ${delay.map((d) => d.max.toFixed(2)).join(', ')} ms`,
      )
    }
    const [small, large] = figures
    if (small !== undefined && large !== undefined && !sortsOnly) {
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
      await s.other?.close()
      rmSync(s.dataDir, { recursive: true, force: true })
    }
    if (pgServer !== undefined) {
      await pgServer.stop()
      rmSync(pgServer.dir, { recursive: true, force: true })
    }
  }
}

if (import.meta.filename === process.argv[1]) await benchLists()
