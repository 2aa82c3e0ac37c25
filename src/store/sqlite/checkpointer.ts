import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/*
 * WAL checkpoints off the event loop (issue 8). SQLite's automatic checkpoint runs inside the
 * COMMIT that crosses its threshold, on the thread that commits: after an import of 50,000
 * transactions it copied tens of MB from the WAL into the database file and held the platform's
 * event loop for half a second. The writer connection turns it off (`wal_autocheckpoint = 0`);
 * after a commit, when the WAL has grown past WAL_CHECKPOINT_BYTES, a worker thread opens its own
 * connection and runs a PASSIVE checkpoint, which never blocks readers or the writer.
 */

/** The WAL size past which a checkpoint is started: SQLite's default, 1,000 pages of 4 KiB. */
export const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024

// The worker is plain CommonJS (eval), so it runs the same from the sources and from dist/;
// better-sqlite3 is resolved here, where the package's own dependencies are.
const driver = createRequire(import.meta.url).resolve('better-sqlite3')
const source = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
// background work: lower this thread's CPU priority (Linux; see config/thread-priority.ts)
try { require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), 10) } catch {}
const db = new Database(workerData.file, { fileMustExist: true })
try {
  db.pragma('busy_timeout = 5000')
  db.pragma('wal_checkpoint(PASSIVE)')
} finally {
  db.close()
}
`

/** Starts checkpoints of one database file in a worker thread, one at a time. */
export class Checkpointer {
  readonly #file: string
  #running: Promise<void> | null = null

  constructor (file: string) {
    this.#file = file
  }

  /** After a commit: starts a checkpoint when the WAL is large and none is running. */
  afterCommit (): void {
    if (this.#running !== null) return
    let size = 0
    try {
      size = statSync(`${this.#file}-wal`).size
    } catch {
      return
    }
    if (size < WAL_CHECKPOINT_BYTES) return
    this.#running = new Promise<void>((resolve) => {
      const worker = new Worker(source, { eval: true, workerData: { driver, file: this.#file } })
      // A failed checkpoint leaves the WAL as it was: the next commit tries again, and closing
      // the store checkpoints what is left.
      worker.once('error', () => {})
      worker.once('exit', () => {
        this.#running = null
        resolve()
      })
    })
  }

  /** Waits for the running checkpoint, if any (before the store closes). */
  async settled (): Promise<void> {
    await this.#running
  }
}
