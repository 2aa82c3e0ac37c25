import Database from 'better-sqlite3'

/** A prepared statement taking positional values or one object of named values. */
type Statement = Database.Statement<unknown[]>

/**
 * How long a connection waits for a lock held by another connection before SQLITE_BUSY, in ms.
 * Inside one process the writer mutex means our own connections never wait; this covers another
 * process (a backup tool, the sqlite3 shell) holding the file for a moment.
 */
const BUSY_TIMEOUT_MS = 5000

/** The SQL function behind the `contains` filter: JavaScript's case folding, Unicode-aware. */
export const FOLD_FUNCTION = 'understudy_fold'

/**
 * One better-sqlite3 connection and its prepared statements. A statement is prepared the first
 * time its SQL is used and kept: the SQL texts are built from fixed fragments (columns, filters,
 * whitelisted sort keys), so the cache holds a bounded number of them.
 *
 * @example
 * const conn = new Connection(openDatabase(file, { readonly: true }))
 * conn.statement('SELECT COUNT(*) AS n FROM accounts').get()
 */
export class Connection {
  readonly db: Database.Database
  readonly #statements = new Map<string, Statement>()

  constructor(db: Database.Database) {
    this.db = db
  }

  statement(sql: string): Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare<unknown[]>(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /** Runs `fn` in a read transaction unless one is open, so that several reads see one snapshot. */
  snapshot<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn()
    return this.db.transaction(fn).deferred()
  }

  close(): void {
    this.#statements.clear()
    if (this.db.open) this.db.close()
  }
}

/**
 * Opens the database file with the pragmas of docs/decisions.md#atomic-writes. The writer switches
 * the file to WAL (a property of the file, so the read-only connection opened afterwards inherits
 * it); WAL is what lets the reader keep reading the last committed state while a write is under
 * way.
 *
 * @example
 * const writer = openDatabase('/var/lib/understudy/understudy.db', { readonly: false })
 */
export function openDatabase(file: string, options: { readonly: boolean }): Database.Database {
  const db = new Database(file, { readonly: options.readonly, fileMustExist: options.readonly })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (!options.readonly) {
      const mode = db.pragma('journal_mode = WAL', { simple: true })
      if (mode !== 'wal') {
        throw new Error(`cannot switch ${file} to WAL (journal_mode is ${String(mode)})`)
      }
    }
    // NORMAL is safe with WAL: a power cut may lose the last commits, never corrupt the file.
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? value.toLowerCase() : value,
    )
    return db
  } catch (err) {
    db.close()
    throw err
  }
}
