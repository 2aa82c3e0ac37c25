// What the maintained list totals cost the writes that keep them: users created, and account and
// workspace memberships set, through the store API, in ms per write (median of rounds). `--root
// DIR` measures another checkout's src/ (e.g. one from before the `list_counts` triggers and sort
// indexes) for a before/after in one sitting; on PostgreSQL both use one server, a database each.
//
//   npx tsx bench/list-count-writes.ts [--store postgres] [--root ../before] [--count 1000] [--rounds 5]
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  canStartPostgres,
  createPgDatabase,
  PG_SKIP_REASON,
  startPostgresServer,
} from '../scripts/postgres-server.js'
import type * as StoreModule from '../src/store/index.js'
import { createBenchWorkspace } from './bench-workspace.js'
import { refuseFlag, storeOfArgv } from './store-kind.js'

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    count: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
  },
})
const onPostgres = storeOfArgv() === 'postgres'
const count = Number(values.count)
const rounds = Number(values.rounds)
if (!Number.isInteger(count) || count < 1) {
  refuseFlag(`--count ${values.count}: expected a positive whole number`)
}
if (!Number.isInteger(rounds) || rounds < 1) {
  refuseFlag(`--rounds ${values.rounds}: expected a positive whole number`)
}
const root = resolve(values.root)
if (!existsSync(join(root, 'src/store/index.ts'))) {
  refuseFlag(
    `--root ${values.root}: no src/store/index.ts there (expected a checkout of this project)`,
  )
}
const { openPostgresStore, openSqliteStore } = (await import(
  `${root}/src/store/index.ts`
)) as typeof StoreModule

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0

async function measure(
  open: () => Promise<StoreModule.Store>,
): Promise<{ users: number; members: number }> {
  const users: number[] = []
  const members: number[] = []
  for (let round = 0; round < rounds; round++) {
    const store = await open()
    try {
      const { accountId, workspaceId } = await createBenchWorkspace(store)
      const ids: number[] = []
      let started = performance.now()
      for (let i = 0; i < count; i++) {
        const user = await store.users.create({
          accountId,
          email: `user${i}@bench.test`,
          firstName: `First${i}`,
          lastName: `Last${i}`,
          enabled: true,
          accountRoles: ['user'],
        })
        ids.push(user.id)
      }
      users.push((performance.now() - started) / count)
      started = performance.now()
      for (const userId of ids) {
        await store.tenancy.setMember({
          accountId,
          userId,
          roles: ['user'],
          enabled: true,
        })
        await store.tenancy.setWorkspaceMember({
          workspaceId,
          userId,
          role: 'tester',
          enabled: true,
        })
      }
      members.push((performance.now() - started) / count)
    } finally {
      await store.close()
    }
  }
  return { users: median(users), members: median(members) }
}

const dirs: string[] = []
let stopPostgres: (() => Promise<void>) | undefined
try {
  let open: () => Promise<StoreModule.Store>
  if (onPostgres) {
    if (!canStartPostgres()) throw new Error(PG_SKIP_REASON)
    const dir = mkdtempSync(join(tmpdir(), 'understudy-list-count-writes-pg-'))
    dirs.push(dir)
    const server = await startPostgresServer({ runDir: dir, owner: process.pid })
    stopPostgres = server.stop
    open = async () => await openPostgresStore({ url: await createPgDatabase(server.port) })
  } else {
    open = async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'understudy-list-count-writes-'))
      dirs.push(dataDir)
      return await openSqliteStore({ dataDir })
    }
  }
  const { users, members } = await measure(open)
  console.log(
    `${onPostgres ? 'PostgreSQL' : 'SQLite'}, ${root}: users.create ${users.toFixed(3)} ms, ` +
      `account + workspace membership set ${members.toFixed(3)} ms (median of ${rounds} rounds of ${count})`,
  )
} finally {
  await stopPostgres?.()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}
