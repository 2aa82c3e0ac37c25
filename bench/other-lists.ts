// The lists other than transactions (`npx tsx bench/other-lists.ts [--sizes 500,50000] [--rounds 5]`):
// an account's users (admin) and a workspace's members (a join with users) at each size, on the
// SQLite store, through the store calls the API makes. Reported per size and call: the median and
// the longest time of one call, and the longest the event loop was held in one piece (the SQLite
// store answers a list synchronously on the event loop; a far page's positions are read in slices).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import { openSqliteStore, type Store } from '../src/store/index.js'
import type { ListQuery } from '../src/store/types.js'

const PAGE = 50

function argOf(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback
}

const sizes = argOf('sizes', '500,50000').split(',').map(Number)
const rounds = Number(argOf('rounds', '5'))

interface Seeded {
  store: Store
  dataDir: string
  accountId: number
  workspaceId: number
}

/** An account with `count` users, all members of one workspace, seeded with raw SQL. */
async function seeded(count: number): Promise<Seeded> {
  const dataDir = mkdtempSync(join(tmpdir(), `understudy-other-lists-${count}-`))
  const store = await openSqliteStore({ dataDir })
  const account = await store.accounts.create({ name: 'bench' })
  const owner = await store.users.create({
    accountId: account.id,
    email: 'owner@bench.test',
    firstName: 'Owner',
    lastName: 'Bench',
    enabled: true,
    accountRoles: ['admin'],
  })
  const workspace = await store.workspaces.create({
    accountId: account.id,
    name: 'bench',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: owner.id,
  })
  await store.close()
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
        user.run(account.id, `user${i}@bench.test`, `First${i % 997}`, `Last${i}`, now - i)
          .lastInsertRowid,
      )
      accountMember.run(account.id, id, now - i, now - i)
      workspaceMember.run(workspace.id, id, now - i, now - i)
    }
  })()
  db.exec('ANALYZE')
  db.close()
  return {
    store: await openSqliteStore({ dataDir }),
    dataDir,
    accountId: account.id,
    workspaceId: workspace.id,
  }
}

interface Timing {
  /** The first call: it prepares the list's statements, and on a far page reads its positions. */
  first: number
  firstHeld: number
  /** The calls after it. */
  median: number
  held: number
}

/**
 * Times `rounds` calls, while a chain of setImmediate callbacks notes the longest time between
 * two of them: how long a call held the event loop in one piece.
 */
async function timed(fn: () => Promise<unknown>): Promise<Timing> {
  const times: number[] = []
  const helds: number[] = []
  let held = 0
  let last = performance.now()
  let probing = true
  const probe = (): void => {
    const now = performance.now()
    held = Math.max(held, now - last)
    last = now
    if (probing) setImmediate(probe)
  }
  setImmediate(probe)
  await new Promise((resolve) => setImmediate(resolve))
  for (let i = 0; i < rounds; i++) {
    held = 0
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
    // a server turns the loop between two requests: the probe notes the call's last piece
    await new Promise((resolve) => setImmediate(resolve))
    helds.push(held)
  }
  probing = false
  const later = times.slice(1).sort((a, b) => a - b)
  return {
    first: times[0] ?? 0,
    firstHeld: helds[0] ?? 0,
    median: later[Math.floor(later.length / 2)] ?? 0,
    held: Math.max(...helds.slice(1)),
  }
}

const fmt = (t: Timing): string =>
  `${t.first.toFixed(2)} (${t.firstHeld.toFixed(2)})  ${t.median.toFixed(2)} (${t.held.toFixed(2)})`

async function main(): Promise<void> {
  console.log(
    `other lists, SQLite, ${rounds} rounds per call, ms: first call (longest hold of the event loop), then median of the others (longest hold)`,
  )
  for (const count of sizes) {
    const { store, dataDir, accountId, workspaceId } = await seeded(count)
    try {
      const far = Math.max(0, count - PAGE * 2)
      const page = (sort: string, skip = 0): ListQuery => ({ limit: PAGE, skip, sort })
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
      ]
      for (const [name, call] of calls) {
        console.log(
          `${count.toLocaleString('en')} rows  ${name.padEnd(32)} ${fmt(await timed(call))}`,
        )
      }
    } finally {
      await store.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

await main()
