import { AsyncLocalStorage } from 'node:async_hooks'
import { createError } from '../errors/index.js'
import { AsyncMutex } from './sqlite/mutex.js'

/**
 * What both stores do around their writes: one at a time, in order (a FIFO lock); a write
 * started inside a write refused (it would wait for itself forever); the repositories of a write
 * dead once it ended; and closing, which refuses new calls but lets the queued writes run first.
 *
 * @example
 * const gate = new WriteGate()
 * await gate.hold('write', async (token) => run(createRepositories({ check: gate.checkActive(token) })))
 */
export class WriteGate {
  readonly #mutex = new AsyncMutex()
  /** Which write the current async context runs inside: catches a `write` nested in a `write`. */
  readonly #inWrite = new AsyncLocalStorage<symbol>()
  /** The write whose transaction is open; tx repositories of any other are dead. */
  #activeWrite: symbol | null = null
  /** Set by close(): new calls are refused, writes already queued still run. */
  #closing: Promise<void> | null = null
  #closed = false

  /** True while a write runs or waits. */
  get busy(): boolean {
    return this.#mutex.locked
  }

  /** Throws ERR_STORE_FAILED once the store is closing. */
  readonly checkOpen = (): void => {
    if (this.#closing !== null) throw closedError()
  }

  /** The guard of the repositories given to write `token`: they fail once it has ended. */
  checkActive(token: symbol): () => void {
    return () => {
      if (this.#activeWrite !== token) {
        throw createError('ERR_STORE_FAILED', [
          'the repositories of a write were used after the write ended',
        ])
      }
    }
  }

  /**
   * Runs `fn` alone among the store's writes: behind the lock, as the active write (`token`, which
   * repositories of a write check), in an async context that knows it, so that a nested call is
   * refused instead of waiting for itself forever.
   */
  async hold<T>(name: string, fn: (token: symbol) => Promise<T>): Promise<T> {
    this.checkOpen()
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

  /** Refuses new calls, waits for the writes already queued, then runs `release` once. Idempotent. */
  async close(release: () => Promise<void> | void): Promise<void> {
    this.#closing ??= this.#mutex.run(async () => {
      this.#closed = true
      await release()
    })
    await this.#closing
  }
}

function closedError(): Error {
  return createError('ERR_STORE_FAILED', ['the store is closed'])
}
