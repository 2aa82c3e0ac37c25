import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import { migrations } from '../migrations/index.js'
import type { OwnWriteTarget, Repositories, Store } from '../repositories.js'
import { Connection, openDatabase } from './connection.js'
import type { RepoContext } from './context.js'
import { applyMigrations } from './migrate.js'
import { keepMoved, movePositions, startNoting, type MovedPositions } from './list-changes.js'
import { Checkpointer } from './checkpointer.js'
import { WriteGate } from '../write-gate.js'
import { createRepositories, routeWrites } from './repositories.js'

/** The database file inside `--data-dir`. */
export const DATABASE_FILE = 'understudy.db'

interface SqliteStoreOptions {
  /** Created when missing; holds understudy.db (and its -wal, -shm). */
  dataDir: string
  log?: Logger
  /** The clock of created/updated, in epoch milliseconds; Date.now by default (tests pin it). */
  now?: () => number
}

/**
 * Opens (creating when needed) the SQLite store in `dataDir` and brings its schema up to date.
 *
 * Two connections: a writer, used only inside `write`, one transaction at a time behind an async
 * mutex; and a read-only reader behind the store's own repositories. In WAL mode the reader sees
 * the last committed state, so a read made while a `write` is between two awaits never sees its
 * uncommitted rows.
 *
 * @example
 * const store = await openSqliteStore({ dataDir: '/var/lib/understudy', log })
 * const service = await store.write(async (tx) => await tx.services.create({ workspaceId: 1, name: 'pets', description: null, by: 'ada@example.com' }))
 * await store.close()
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const file = join(options.dataDir, DATABASE_FILE)
  let writer: Connection | undefined
  try {
    mkdirSync(options.dataDir, { recursive: true })
    writer = new Connection(openDatabase(file, { readonly: false }))
    applyMigrations(writer.db, migrations, options.log)
    // checkpoints run in a worker thread (checkpointer.ts), not inside a COMMIT on the event loop
    writer.db.pragma('wal_autocheckpoint = 0')
    const reader = new Connection(openDatabase(file, { readonly: true }))
    options.log?.debug({ file }, 'store opened')
    return new SqliteStore(file, writer, reader, options.now ?? Date.now, new Checkpointer(file))
  } catch (err) {
    writer?.close()
    if (err instanceof Error && 'code' in err && err.code === 'ERR_STORE_FAILED') throw err
    throw createError(
      'ERR_STORE_FAILED',
      [`cannot open ${file}: ${err instanceof Error ? err.message : String(err)}`],
      { cause: err },
    )
  }
}

class SqliteStore implements Store {
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

  readonly #file: string
  readonly #writer: Connection
  readonly #reader: Connection
  readonly #now: () => number
  readonly #checkpointer: Checkpointer
  readonly #gate = new WriteGate()

  constructor(
    file: string,
    writer: Connection,
    reader: Connection,
    now: () => number,
    checkpointer: Checkpointer,
  ) {
    this.#file = file
    this.#checkpointer = checkpointer
    this.#writer = writer
    this.#reader = reader
    this.#now = now
    const readerContext: RepoContext = { conn: reader, check: this.#gate.checkOpen, now }
    const top = routeWrites(createRepositories(readerContext), this.write, () => this.#gate.busy)
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

  /**
   * BEGIN IMMEDIATE takes the write lock up front, so the transaction cannot fail half-way with
   * SQLITE_BUSY on its first write; COMMIT on success, ROLLBACK and rethrow on a throw.
   */
  readonly write = async <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    return await this.#gate.hold('write', async (token) => {
      const db = this.#writer.db
      const tx = createRepositories({
        conn: this.#writer,
        check: this.#gate.checkActive(token),
        now: this.#now,
      })
      startNoting(this.#writer)
      db.exec('BEGIN IMMEDIATE')
      try {
        const result = await fn(tx)
        const moved = this.#movePositions()
        db.exec('COMMIT')
        this.#catchUpReader(moved)
        this.#checkpointer.afterCommit()
        return result
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK')
        throw err
      }
    })
  }

  /**
   * Keeps the list positions the write moved, once the reader sees the commit; reading the change
   * counts there also brings the reader to the new state now rather than on the next request.
   */
  #catchUpReader(moved: MovedPositions | undefined): void {
    if (moved === undefined) return
    try {
      keepMoved(this.#reader, moved)
    } catch {
      // the write has committed: kept positions not moved are read again (their version is old)
    }
  }

  /**
   * The positions of lists the write moves (list-changes.ts), read while the reader still sees
   * the state the write started from. Lists' positions are a cache: a failure here must not fail
   * the write, the positions are then read again as after any other write.
   */
  #movePositions(): MovedPositions | undefined {
    try {
      return movePositions(this.#writer, this.#reader)
    } catch {
      return undefined
    }
  }

  /**
   * Holds the mutex of `write` while `fn` writes through a connection of its own: a large upload
   * inserts and commits in a worker thread, so that neither its inserts nor its COMMIT (tens of
   * ms for 90,000 rows) run on the event loop. Our writer connection is idle meanwhile,
   * so it never waits for SQLite's lock; the reader keeps the last committed state.
   */
  readonly writeElsewhere = async <T>(fn: (target: OwnWriteTarget) => Promise<T>): Promise<T> => {
    return await this.#gate.hold('writeElsewhere', async () => {
      const result = await fn({ file: this.#file, now: this.#now() })
      this.#checkpointer.afterCommit()
      return result
    })
  }

  async schemaVersion(): Promise<number> {
    this.#gate.checkOpen()
    const row = this.#reader
      .statement('SELECT ifnull(max(version), 0) AS v FROM schema_migrations')
      .get() as { v: number }
    return row.v
  }

  /** Waits for the writes already queued, then closes both connections. Idempotent. */
  async close(): Promise<void> {
    await this.#gate.close(async () => {
      // the last connection to close checkpoints what is left and removes the WAL
      await this.#checkpointer.settled()
      this.#reader.close()
      this.#writer.close()
    })
  }
}
