import { statSync } from 'node:fs'
import { spawnWorker } from '../../config/index.js'

/*
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the
 * COMMIT that crosses its threshold, on the thread that commits: after an import of 50,000
 * transactions it copied tens of MB from the WAL into the database file and held the platform's
 * event loop for half a second. The writer connection turns it off (`wal_autocheckpoint = 0`);
 * after a commit, when the WAL has grown past WAL_CHECKPOINT_BYTES, a worker thread opens its own
 * connection and runs a PASSIVE checkpoint, which never blocks readers or the writer.
 */

/** The WAL size past which a checkpoint is started: SQLite's default, 1,000 pages of 4 KiB. */
const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024

/** Starts checkpoints of one database file in a worker thread, one at a time. */
export class Checkpointer {
  readonly #file: string
  #running: Promise<void> | null = null

  constructor(file: string) {
    this.#file = file
  }

  /** After a commit: starts a checkpoint when the WAL is large and none is running. */
  afterCommit(): void {
    if (this.#running !== null) return
    let size = 0
    try {
      size = statSync(`${this.#file}-wal`).size
    } catch {
      return
    }
    if (size < WAL_CHECKPOINT_BYTES) return
    this.#running = new Promise<void>((resolve) => {
      const worker = spawnWorker(import.meta.url, './checkpoint-worker', {
        workerData: { file: this.#file },
      })
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
  async settled(): Promise<void> {
    await this.#running
  }
}
