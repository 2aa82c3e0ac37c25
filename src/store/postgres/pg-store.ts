import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import type { OwnWriteTarget, Repositories, Store } from '../repositories.js'
import { WriteGate } from '../write-gate.js'
import { routeWrites } from '../sqlite/repositories.js'
import { openPgPool, type PgPool } from './connection.js'
import type { PgRepoContext } from './context.js'
import { applyPgMigrations } from './migrate.js'
import { pgMigrations } from './migrations/index.js'
import { keepMovedLists, moveKeptLists, startListWrites } from './list-changes.js'
import { createPgRepositories } from './repositories.js'

interface PgStoreOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  url: string
  log?: Logger
  /** The clock of created/updated, in epoch milliseconds; Date.now by default (tests pin it). */
  now?: () => number
}

/**
 * Opens the PostgreSQL store on `url` and brings its schema up to date. Fails with
 * ERR_STORE_FAILED, in one line that names the server (never the password), when the URL is
 * not a PostgreSQL one or the server does not answer.
 *
 * The semantics are the SQLite store's: reads (the store's own repositories) run on the pool in
 * autocommit and see the last committed state; every `write` is one transaction on one
 * connection; writes of this process run one at a time, in order, as they do on SQLite, so a
 * request sees the same outcomes on either store; a `write` nested in a `write` is refused.
 *
 * @example
 * const store = await openPostgresStore({ url: 'postgres://understudy@db/understudy', log })
 */
export async function openPostgresStore(options: PgStoreOptions): Promise<Store> {
  const where = describeUrl(options.url)
  let pool: PgPool | undefined
  try {
    pool = openPgPool(options.url)
    await applyPgMigrations(pool, pgMigrations, options.log)
    options.log?.debug({ database: where }, 'store opened')
    return new PostgresStore(pool, options.url, options.now ?? Date.now)
  } catch (err) {
    await pool?.close().catch(() => {})
    if (err instanceof Error && 'code' in err && err.code === 'ERR_STORE_FAILED') throw err
    throw createError(
      'ERR_STORE_FAILED',
      [
        `cannot open the PostgreSQL store ${where}: ${err instanceof Error ? err.message : String(err)}`,
      ],
      { cause: err },
    )
  }
}

/** `host:port/database` of a URL, for messages: never its password. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}${parsed.port === '' ? '' : `:${parsed.port}`}${parsed.pathname}`
  } catch {
    return '(an unreadable URL)'
  }
}

class PostgresStore implements Store {
  readonly accounts: Repositories['accounts']
  readonly users: Repositories['users']
  readonly apiKeys: Repositories['apiKeys']
  readonly workspaces: Repositories['workspaces']
  readonly services: Repositories['services']
  readonly tags: Repositories['tags']
  readonly transactions: Repositories['transactions']
  readonly mockServices: Repositories['mockServices']
  readonly assets: Repositories['assets']
  readonly trackings: Repositories['trackings']
  readonly cloneTrackings: Repositories['cloneTrackings']
  readonly logs: Repositories['logs']
  readonly sandboxes: Repositories['sandboxes']
  readonly locations: Repositories['locations']
  readonly placements: Repositories['placements']
  readonly runtimeLeases: Repositories['runtimeLeases']
  readonly mockSettings: Repositories['mockSettings']
  readonly tenancy: Repositories['tenancy']
  readonly search: Repositories['search']
  readonly monitoring: Repositories['monitoring']
  readonly oauth: Repositories['oauth']
  readonly uiSessions: Repositories['uiSessions']
  readonly authFailures: Repositories['authFailures']
  readonly agentLogs: Repositories['agentLogs']
  readonly localRuns: Repositories['localRuns']
  readonly adminCalls: Repositories['adminCalls']
  readonly assetChunks: Repositories['assetChunks']
  readonly keptInspections: Repositories['keptInspections']

  readonly #pool: PgPool
  readonly #url: string
  readonly #now: () => number
  readonly #gate = new WriteGate()

  constructor(pool: PgPool, url: string, now: () => number) {
    this.#pool = pool
    this.#url = url
    this.#now = now
    const readerContext: PgRepoContext = { db: pool, check: this.#gate.checkOpen, now }
    const top = routeWrites(createPgRepositories(readerContext), this.write, () => this.#gate.busy)
    this.accounts = top.accounts
    this.users = top.users
    this.apiKeys = top.apiKeys
    this.workspaces = top.workspaces
    this.services = top.services
    this.tags = top.tags
    this.transactions = top.transactions
    this.mockServices = top.mockServices
    this.assets = top.assets
    this.trackings = top.trackings
    this.cloneTrackings = top.cloneTrackings
    this.logs = top.logs
    this.sandboxes = top.sandboxes
    this.locations = top.locations
    this.placements = top.placements
    this.runtimeLeases = top.runtimeLeases
    this.mockSettings = top.mockSettings
    this.tenancy = top.tenancy
    this.search = top.search
    this.monitoring = top.monitoring
    this.oauth = top.oauth
    this.uiSessions = top.uiSessions
    this.authFailures = top.authFailures
    this.agentLogs = top.agentLogs
    this.localRuns = top.localRuns
    this.adminCalls = top.adminCalls
    this.assetChunks = top.assetChunks
    this.keptInspections = top.keptInspections
  }

  /** One transaction (BEGIN ... COMMIT, ROLLBACK and rethrow on a throw) on one connection of the pool. */
  readonly write = async <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    return await this.#gate.hold('write', async (token) => {
      const writes = startListWrites()
      const { result, moved } = await this.#pool.transaction(async (q) => {
        const tx = createPgRepositories({
          db: q,
          check: this.#gate.checkActive(token),
          now: this.#now,
          writes,
        })
        const result = await fn(tx)
        // The lists this pool keeps are moved by the rows written, before COMMIT (list-changes.ts).
        return { result, moved: await moveKeptLists(this.#pool, q, writes) }
      })
      keepMovedLists(moved)
      return result
    })
  }

  /**
   * Holds the writes of this store while `fn` writes through a connection of its own: a large
   * upload's worker thread opens one to the same database (`writeThroughOwnConnection`) and
   * inserts its rows in batches of multi-row INSERTs inside one transaction, off the event loop.
   */
  readonly writeElsewhere = async <T>(fn: (target: OwnWriteTarget) => Promise<T>): Promise<T> => {
    return await this.#gate.hold(
      'writeElsewhere',
      async () => await fn({ postgresUrl: this.#url, now: this.#now() }),
    )
  }

  async schemaVersion(): Promise<number> {
    this.#gate.checkOpen()
    const [row] = await this.#pool.query<{ v: number }>(
      'SELECT coalesce(max(version), 0) AS v FROM schema_migrations',
    )
    return row?.v ?? 0
  }

  /** Waits for the writes already queued, then closes the pool. Idempotent. */
  async close(): Promise<void> {
    await this.#gate.close(async () => {
      await this.#pool.close()
    })
  }
}
