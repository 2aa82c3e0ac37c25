import { join } from 'node:path'
import Database from 'better-sqlite3'
import { onTestFinished } from 'vitest'
import type { TransactionDsl } from '../../../src/dsl/index.js'
import {
  openPostgresStore,
  openSqliteStore,
  type Account,
  type Service,
  type Store,
  type User,
  type Workspace,
} from '../../../src/store/index.js'
import { DATABASE_FILE } from '../../../src/store/sqlite/sqlite-store.js'
import { copyPgDatabase, requirePgDatabase } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

export { mockServiceInput } from '../../helpers/mock-service-input.js'

export const BY = 'ada@example.com'

/** A clock that moves one second per call, so created/updated are distinct and predictable. */
function steppingClock(start = 1_700_000_000_000): () => number {
  let now = start
  return () => (now += 1000)
}

/** Whether this run's store tests run on PostgreSQL (UNDERSTUDY_TEST_STORE=postgres) instead of SQLite. */
export const onPostgres = process.env['UNDERSTUDY_TEST_STORE'] === 'postgres'

/** This worker's database with every migration applied, which each test's database copies. */
let migrated: Promise<string> | undefined

/** A fresh PostgreSQL database at the newest schema: a copy, faster than migrating each one. */
async function migratedPgDatabase(): Promise<string> {
  migrated ??= (async () => {
    const url = await requirePgDatabase()
    await (await openPostgresStore({ url })).close()
    return url
  })()
  return await copyPgDatabase(await migrated)
}

/** Where a test store keeps its data: a data dir (SQLite) or a database (PostgreSQL). */
interface TestStoreHandle {
  store: Store
  /** The SQLite data dir (left empty on PostgreSQL). */
  dataDir: string
  /** Opens the same data again (a restart), closed when the test finishes. */
  reopen: () => Promise<Store>
  /**
   * Runs one SQL statement straight on the data, beside the store (what no API does yet, such as
   * deleting a workspace), and returns its rows: plain SQL both dialects read, values inline.
   */
  sql: (statement: string) => Promise<unknown[]>
}

/**
 * A store in a fresh temporary data dir, closed when the test finishes; with
 * UNDERSTUDY_TEST_STORE=postgres, a fresh PostgreSQL database instead (the data dir stays empty).
 */
export async function openTestStore(dataDir = tempDir()): Promise<TestStoreHandle> {
  const url = onPostgres ? await migratedPgDatabase() : undefined
  const open = async (): Promise<Store> => {
    const opened =
      url === undefined
        ? await openSqliteStore({ dataDir, now: steppingClock() })
        : await openPostgresStore({ url, now: steppingClock() })
    onTestFinished(async () => {
      await opened.close()
    })
    return opened
  }
  const sql = async (statement: string): Promise<unknown[]> => {
    if (url === undefined) {
      const db = new Database(join(dataDir, DATABASE_FILE))
      try {
        db.pragma('foreign_keys = ON')
        const prepared = db.prepare(statement)
        if (prepared.reader) return prepared.all()
        prepared.run()
        return []
      } finally {
        db.close()
      }
    }
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(statement)).rows
    } finally {
      await client.end()
    }
  }
  return { store: await open(), dataDir, reopen: open, sql }
}

export interface World {
  account: Account
  otherAccount: Account
  user: User
  workspace: Workspace
  otherWorkspace: Workspace
  foreignWorkspace: Workspace
  service: Service
  otherService: Service
}

/**
 * Two accounts; the first with two workspaces (`workspace`, `otherWorkspace`), the second with
 * `foreignWorkspace`; a service in each of the first two.
 */
export async function seed(store: Store): Promise<World> {
  return await store.write(async (tx) => {
    const account = await tx.accounts.create({ name: 'acme' })
    const otherAccount = await tx.accounts.create({ name: 'globex' })
    const user = await tx.users.create({
      email: BY,
      firstName: 'Ada',
      lastName: 'Lovelace',
      enabled: true,
      accountRoles: ['owner'],
      accountId: account.id,
    })
    const stranger = await tx.users.create({
      email: 'hank@globex.test',
      firstName: 'Hank',
      lastName: 'Scorpio',
      enabled: true,
      accountRoles: ['admin'],
      accountId: otherAccount.id,
    })
    const workspaceOf = async (accountId: number, userId: number, name: string) =>
      await tx.workspaces.create({
        accountId,
        name,
        enabled: true,
        dedicatedIpsEnabled: false,
        privateLocationsEnabled: false,
        userId,
      })
    const workspace = await workspaceOf(account.id, user.id, 'main')
    const otherWorkspace = await workspaceOf(account.id, user.id, 'second')
    const foreignWorkspace = await workspaceOf(otherAccount.id, stranger.id, 'theirs')
    const service = await tx.services.create({
      workspaceId: workspace.id,
      name: 'pets',
      description: 'Pet store',
      by: BY,
    })
    const otherService = await tx.services.create({
      workspaceId: otherWorkspace.id,
      name: 'pets',
      description: null,
      by: BY,
    })
    return {
      account,
      otherAccount,
      user,
      workspace,
      otherWorkspace,
      foreignWorkspace,
      service,
      otherService,
    }
  })
}

/** A transaction DSL using most of what the runtime understands. */
export function realisticDsl(): TransactionDsl {
  return {
    type: 'GENERIC_DSL',
    priority: 3,
    requestDsl: {
      method: 'POST',
      host: 'api.example.com',
      path: '/orders/{id}',
      url: { matcherName: 'matches_url', matchingValue: '/orders/\\d+' },
      headers: [
        { key: 'Content-Type', matcherName: 'contains', matchingValue: 'application/json' },
        { key: 'X-Trace', matcherName: 'absent', matchingValue: 'X-Trace', optional: true },
      ],
      queryParams: [{ key: 'verbose', matcherName: 'equals_insensitive', matchingValue: 'TRUE' }],
      cookies: [],
      credentials: { username: 'ada', password: 'p"a\'ss,word' },
      body: [
        { key: '$.items[?(@.qty > 1)].sku', matcherName: 'matches_json', matchingValue: '"ABC-1"' },
      ],
      sampleBody: '{"items":[{"sku":"ABC-1","qty":2}],"note":"ünïcödé ✓"}',
    },
    responseDsl: {
      status: 201,
      statusMessage: 'Created',
      headers: [
        { name: 'Location', value: '/orders/7' },
        { name: 'Set-Cookie', value: 'a=1; Path=/' },
      ],
      binary: false,
      contentType: 'json',
      content: Buffer.from('{"id":7}').toString('base64'),
      charset: 'utf-8',
      responseDelay: { type: 'lognormal', median: 120, sigma: 0.4 },
    },
  }
}

export const ALL = { limit: 1000, skip: 0 }

/** The DSL text of a plain GET transaction, as an import stores it. */
export const plainDsl = JSON.stringify({
  request: { method: 'GET', path: '/x' },
  response: { status: 200 },
})

/**
 * Stores one plain GET transaction per name in a service, in one write; their ids, in order.
 *
 * @example
 * const ids = await createNamedTransactions(store, ws, service, ['GET /a', 'GET /b'])
 */
export async function createNamedTransactions(
  store: Store,
  workspaceId: number,
  serviceId: number,
  names: readonly string[],
  by = BY,
): Promise<number[]> {
  return await store.write(
    async (tx) =>
      await tx.transactions.createEncodedMany(
        { workspaceId, serviceId, by },
        names.map((name) => ({
          name,
          description: null,
          dslType: 'GENERIC_DSL',
          tags: [],
          dslJson: plainDsl,
        })),
      ),
  )
}
