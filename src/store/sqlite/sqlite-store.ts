import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import { migrations } from '../migrations/index.js'
import type { OwnWriteTarget, Repositories, Store } from '../repositories.js'
import { Connection, openDatabase } from './connection.js'
import type { RepoContext } from './context.js'
import { applyMigrations } from './migrate.js'
import { Checkpointer } from './checkpointer.js'
import { AsyncMutex } from './mutex.js'
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
  readonly mockSettings: Repositories['mockSettings']
  readonly tenancy: Repositories['tenancy']
  readonly search: Repositories['search']
  readonly monitoring: Repositories['monitoring']
  readonly oauth: Repositories['oauth']
  readonly uiSessions: Repositories['uiSessions']
  readonly authFailures: Repositories['authFailures']
  readonly agentLogs: Repositories['agentLogs']
  readonly localRuns: Repositories['localRuns']

  readonly #file: string
  readonly #writer: Connection
  readonly #reader: Connection
  readonly #now: () => number
  readonly #checkpointer: Checkpointer
  readonly #mutex = new AsyncMutex()
  /** Which write the current async context runs inside: catches a `write` nested in a `write`. */
  readonly #inWrite = new AsyncLocalStorage<symbol>()
  /** The write whose transaction is open; tx repositories of any other are dead. */
  #activeWrite: symbol | null = null
  /** Set by close(): new calls are refused, writes already queued still run. */
  #closing: Promise<void> | null = null
  #closed = false

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
    const readerContext: RepoContext = { conn: reader, check: () => this.#checkOpen(), now }
    const top = routeWrites(createRepositories(readerContext), this.write, () => this.#mutex.locked)
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
    this.mockSettings = top.mockSettings
    this.tenancy = top.tenancy
    this.search = top.search
    this.monitoring = top.monitoring
    this.oauth = top.oauth
    this.uiSessions = top.uiSessions
    this.authFailures = top.authFailures
    this.agentLogs = top.agentLogs
    this.localRuns = top.localRuns
  }

  /**
   * BEGIN IMMEDIATE takes the write lock up front, so the transaction cannot fail half-way with
   * SQLITE_BUSY on its first write; COMMIT on success, ROLLBACK and rethrow on a throw.
   */
  readonly write = async <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    return await this.#holdingWriter('write', async (token) => {
      const db = this.#writer.db
      const tx = createRepositories({
        conn: this.#writer,
        check: () => {
          if (this.#activeWrite !== token) {
            throw createError('ERR_STORE_FAILED', [
              'the repositories of a write were used after the write ended',
            ])
          }
        },
        now: this.#now,
      })
      db.exec('BEGIN IMMEDIATE')
      try {
        const result = await fn(tx)
        db.exec('COMMIT')
        this.#checkpointer.afterCommit()
        return result
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK')
        throw err
      }
    })
  }

  /**
   * Holds the mutex of `write` while `fn` writes through a connection of its own: a large upload
   * inserts and commits in a worker thread, so that neither its inserts nor its COMMIT (tens of
   * ms for 90,000 rows) run on the event loop. Our writer connection is idle meanwhile,
   * so it never waits for SQLite's lock; the reader keeps the last committed state.
   */
  readonly writeElsewhere = async <T>(fn: (target: OwnWriteTarget) => Promise<T>): Promise<T> => {
    return await this.#holdingWriter('writeElsewhere', async () => {
      const result = await fn({ file: this.#file, now: this.#now() })
      this.#checkpointer.afterCommit()
      return result
    })
  }

  /**
   * Runs `fn` alone among the store's writes: behind the mutex, as the active write (`token`, which
   * repositories of a write check), in an async context that knows it, so that a nested call is
   * refused instead of waiting for itself forever.
   */
  async #holdingWriter<T>(name: string, fn: (token: symbol) => Promise<T>): Promise<T> {
    this.#checkOpen()
    const caller = this.#inWrite.getStore()
    if (caller !== undefined && caller === this.#activeWrite) {
      // (Work merely started inside a write that has since ended carries its token too: that is fine.)
      throw createError('ERR_STORE_FAILED', [
        `store.${name} was called inside a write: use the repositories given to the outer write`,
      ])
    }
    return await this.#mutex.run(async () => {
      if (this.#closed) throw closedError()
      const token = Symbol(name)
      this.#activeWrite = token
      try {
        return await this.#inWrite.run(token, async () => await fn(token))
      } finally {
        this.#activeWrite = null
      }
    })
  }

  async schemaVersion(): Promise<number> {
    this.#checkOpen()
    const row = this.#reader
      .statement('SELECT ifnull(max(version), 0) AS v FROM schema_migrations')
      .get() as { v: number }
    return row.v
  }

  /** Waits for the writes already queued, then closes both connections. Idempotent. */
  async close(): Promise<void> {
    this.#closing ??= this.#mutex.run(async () => {
      this.#closed = true
      // the last connection to close checkpoints what is left and removes the WAL
      await this.#checkpointer.settled()
      this.#reader.close()
      this.#writer.close()
    })
    await this.#closing
  }

  #checkOpen(): void {
    if (this.#closing !== null) throw closedError()
  }
}

function closedError(): Error {
  return createError('ERR_STORE_FAILED', ['the store is closed'])
}
