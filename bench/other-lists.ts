// The lists other than transactions (`npx tsx bench/other-lists.ts [--sizes 500,50000] [--rounds 5]
// [--store postgres]`): an account's users (admin) and a workspace's members (a join with users)
// at each size, on the SQLite store (or on PostgreSQL, a throwaway server started here as the
// tests start theirs), through the store calls the API makes. Reported per size and call: the
// first call (it prepares the statements; a far page reads the list's positions), then the median
// of the others, each with the longest the event loop was held in one piece outside a garbage
// collection, in CPU time (the SQLite store answers a list synchronously on the event loop;
// positions are read in slices). Run as `node --single-threaded --import tsx
// bench/other-lists.ts` for that figure to be the main thread's.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import pg from 'pg'
import {
  canStartPostgres,
  createPgDatabase,
  PG_SKIP_REASON,
  startPostgresServer,
} from '../scripts/postgres-server.js'
import { openPostgresStore, openSqliteStore, type Store } from '../src/store/index.js'
import type { ListQuery } from '../src/store/types.js'
import { createBenchWorkspace } from './bench-workspace.js'
import { refuseFlag, storeOfArgv } from './store-kind.js'

const PAGE = 50

function argOf(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback
}

/** A list of positive whole numbers given as `--name a,b`; anything else ends the run, naming the flag. */
function countsOf(name: string, fallback: string): number[] {
  const text = argOf(name, fallback)
  const counts = text.split(',').map(Number)
  if (counts.some((n) => !Number.isInteger(n) || n < 1)) {
    refuseFlag(`--${name} ${text}: expected positive whole numbers, comma-separated`)
  }
  return counts
}

const sizes = countsOf('sizes', '500,50000')
const [rounds = 5] = countsOf('rounds', '5')
// The first call of each list is reported apart from the others: at least one other is needed.
if (rounds < 2) {
  refuseFlag(`--rounds ${rounds}: expected at least 2 (the first call, then the others)`)
}
const onPostgres = storeOfArgv() === 'postgres'
/** The PostgreSQL server's port, with `--store postgres`. */
let pgPort: number | undefined

interface Seeded {
  store: Store
  dataDir: string
  accountId: number
  workspaceId: number
}

/** An account with `count` users, all members of one workspace, seeded with raw SQL. */
async function seeded(count: number): Promise<Seeded> {
  const dataDir = mkdtempSync(join(tmpdir(), `understudy-other-lists-${count}-`))
  const url = pgPort === undefined ? undefined : await createPgDatabase(pgPort)
  const open = async (): Promise<Store> =>
    url === undefined ? await openSqliteStore({ dataDir }) : await openPostgresStore({ url })
  const store = await open()
  const { accountId, workspaceId } = await createBenchWorkspace(store)
  await store.close()
  if (url === undefined) seedSqlite(dataDir, accountId, workspaceId, count)
  else await seedPostgres(url, accountId, workspaceId, count)
  return { store: await open(), dataDir, accountId, workspaceId }
}

function seedSqlite(dataDir: string, accountId: number, workspaceId: number, count: number): void {
  const db = new Database(join(dataDir, 'understudy.db'))
  const user = db.prepare(
    'INSERT INTO users (account_id, email, first_name, last_name, enabled, account_roles, created, last_access) VALUES (?, ?, ?, ?, 1, \'["user"]\', ?, NULL)',
  )
  const accountMember = db.prepare(
    'INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated) VALUES (?, ?, \'["user"]\', 1, ?, ?)',
  )
  const workspaceMember = db.prepare(
    "INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated) VALUES (?, ?, 'tester', 1, ?, ?)",
  )
  const now = Date.now()
  db.transaction(() => {
    for (let i = 1; i < count; i++) {
      const id = Number(
        user.run(accountId, `user${i}@bench.test`, `First${i % 997}`, `Last${i}`, now - i)
          .lastInsertRowid,
      )
      accountMember.run(accountId, id, now - i, now - i)
      workspaceMember.run(workspaceId, id, now - i, now - i)
    }
  })()
  db.close()
}

/** The same rows in INSERT ... SELECT statements; VACUUM ANALYZE, as autovacuum would shortly after. */
async function seedPostgres(
  url: string,
  accountId: number,
  workspaceId: number,
  count: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(
      'INSERT INTO users (account_id, email, first_name, last_name, enabled, account_roles, created) ' +
        "SELECT $1, 'user' || i || '@bench.test', 'First' || (i % 997), 'Last' || i, true, '[\"user\"]', $2::bigint - i " +
        'FROM generate_series(1, $3::integer - 1) AS i ORDER BY i',
      [accountId, Date.now(), count],
    )
    await client.query(
      'INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated) ' +
        "SELECT account_id, id, '[\"user\"]', true, created, created FROM users WHERE account_id = $1 AND email LIKE 'user%' ORDER BY id",
      [accountId],
    )
    await client.query(
      'INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated) ' +
        "SELECT $2, id, 'tester', true, created, created FROM users WHERE account_id = $1 AND email LIKE 'user%' ORDER BY id",
      [accountId, workspaceId],
    )
    await client.query('VACUUM ANALYZE')
  } finally {
    await client.end()
  }
}

interface Timing {
  /** The first call: it prepares the list's statements, and on a far page reads its positions. */
  first: number
  firstHeld: number
  /** The calls after it: median time, the median and the largest of their longest pieces. */
  median: number
  held: number
  heldMax: number
}

/** Garbage collections of the process, read by `timed` after each call. */
const gcs = new PerformanceObserver(() => undefined)
gcs.observe({ entryTypes: ['gc'] })

/**
 * Times `rounds` calls, while a chain of setImmediate callbacks notes the most CPU time the
 * process spent between two of them outside a garbage collection: how long a call's own work
 * held the event loop in one piece. CPU time, not wall time, so that the other jobs of a shared
 * machine, which stop the process between two instructions, do not count (run with
 * `node --single-threaded` so that V8's helper threads do not either; bench/platform-lists.ts
 * `withLongestBlock` does the same). The median round's longest piece is the figure, the longest
 * of any round beside it.
 */
async function timed(fn: () => Promise<unknown>): Promise<Timing> {
  const times: number[] = []
  const helds: number[] = []
  let turns: Array<{ from: number; to: number; cpu: number }> = []
  let last = process.cpuUsage()
  let lastWall = performance.now()
  let probing = true
  const probe = (): void => {
    const spent = process.cpuUsage(last)
    last = process.cpuUsage()
    const now = performance.now()
    turns.push({ from: lastWall, to: now, cpu: (spent.user + spent.system) / 1000 })
    lastWall = now
    if (probing) setImmediate(probe)
  }
  setImmediate(probe)
  await new Promise((resolve) => setImmediate(resolve))
  for (let i = 0; i < rounds; i++) {
    turns = []
    gcs.takeRecords()
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
    // a server turns the loop between two requests: the probe notes the call's last piece, and
    // a collection's entry is queued when it ends
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    const collections: PerformanceEntry[] = gcs.takeRecords()
    const inGc = (turn: { from: number; to: number }): boolean =>
      collections.some((gc) => gc.startTime < turn.to && gc.startTime + gc.duration > turn.from)
    helds.push(turns.reduce((most, turn) => (inGc(turn) ? most : Math.max(most, turn.cpu)), 0))
  }
  probing = false
  const later = times.slice(1).sort((a, b) => a - b)
  return {
    first: times[0] ?? 0,
    firstHeld: helds[0] ?? 0,
    median: later[Math.floor(later.length / 2)] ?? 0,
    held: helds.slice(1).sort((a, b) => a - b)[(helds.length - 1) >> 1] ?? 0,
    heldMax: Math.max(...helds.slice(1)),
  }
}

const fmt = (t: Timing): string =>
  `${t.first.toFixed(2)} (${t.firstHeld.toFixed(2)})  ${t.median.toFixed(2)} (${t.held.toFixed(2)}, max ${t.heldMax.toFixed(2)})`

async function main(): Promise<void> {
  console.log(
    `other lists, ${onPostgres ? 'PostgreSQL' : 'SQLite'}, ${rounds} rounds per call, ms: first call (longest hold of the event loop), then median of the others (median round's longest hold, max of any round)`,
  )
  for (const count of sizes) {
    const { store, dataDir, accountId, workspaceId } = await seeded(count)
    try {
      const far = Math.max(0, count - PAGE * 2)
      const page = (sort: string, skip = 0): ListQuery => ({ limit: PAGE, skip, sort })
      // a user in the middle of the lists: each write changes both lists' versions
      const writtenUser = (await store.users.listByAccount(accountId, page('id', count >> 1)))
        .items[0]?.id
      if (writtenUser === undefined) throw new Error('no user to write')
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['users, first page', () => store.users.listByAccount(accountId, page('id'))],
        ['users by name, first page', () => store.users.listByAccount(accountId, page('name'))],
        ['users, far page', () => store.users.listByAccount(accountId, page('id', far))],
        [
          'workspace members, first page',
          () => store.tenancy.workspaceMembers(workspaceId, page('id')),
        ],
        [
          'workspace members, far page',
          () => store.tenancy.workspaceMembers(workspaceId, page('id', far)),
        ],
        [
          'users, far page after a write',
          async () => {
            await store.users.update(writtenUser, { lastAccess: Date.now() })
            // the list is another request, in a later turn
            await new Promise((resolve) => setImmediate(resolve))
            return await store.users.listByAccount(accountId, page('id', far))
          },
        ],
        [
          'members, far page after a write',
          async () => {
            await store.users.update(writtenUser, { lastAccess: Date.now() })
            // the list is another request, in a later turn
            await new Promise((resolve) => setImmediate(resolve))
            return await store.tenancy.workspaceMembers(workspaceId, page('id', far))
          },
        ],
      ]
      for (const [name, call] of calls) {
        console.log(
          `${count.toLocaleString('en')} rows  ${name.padEnd(34)} ${fmt(await timed(call))}`,
        )
      }
    } finally {
      await store.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

let pgServer: { stop: () => Promise<void>; dir: string } | undefined
if (onPostgres) {
  if (!canStartPostgres()) throw new Error(PG_SKIP_REASON)
  const dir = mkdtempSync(join(tmpdir(), 'understudy-other-lists-pg-'))
  const server = await startPostgresServer({ runDir: dir, owner: process.pid })
  pgPort = server.port
  pgServer = { stop: server.stop, dir }
}
try {
  await main()
} finally {
  if (pgServer !== undefined) {
    await pgServer.stop()
    rmSync(pgServer.dir, { recursive: true, force: true })
  }
}
