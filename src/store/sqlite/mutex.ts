/**
 * A first-in-first-out lock for async work. better-sqlite3 is synchronous, but a `write` runs an
 * async function: without the lock, two requests could interleave their statements inside one
 * SQLite transaction (one connection has one transaction).
 *
 * @example
 * const mutex = new AsyncMutex()
 * await mutex.run(async () => { await step1(); await step2() })
 */
export class AsyncMutex {
  #tail: Promise<void> = Promise.resolve()
  #holders = 0

  /** True while a task runs or waits. */
  get locked(): boolean {
    return this.#holders > 0
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.#holders++
    const previous = this.#tail
    let release = (): void => {}
    this.#tail = new Promise<void>((resolve) => {
      release = resolve
    })
    try {
      await previous
      return await fn()
    } finally {
      this.#holders--
      release()
    }
  }
}
