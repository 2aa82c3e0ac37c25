/**
 * Wake-ups between the platform instances on one store: one instance says "there is something
 * for topic X" (a call queued for a ship, an answer posted for a call) and whoever waits on X,
 * in this process or in another instance, looks at the store again at once instead of at its
 * next poll. A wake-up carries no data: the store holds it, and a lost wake-up only delays.
 */
export interface Wakeups {
  /** Wakes the waiters of `topic`, here and in every other instance on the store. */
  signal: (topic: string) => void
  /** A waiter of `topic`, which catches the signals from now on until it is closed. */
  waiter: (topic: string) => Waiter
  /**
   * How long a waiter should wait at most before it looks at the store anyway: the interval of
   * the slow poll that makes up for a wake-up lost on the way (a dropped connection).
   */
  readonly safetyNetMs: number
  close: () => Promise<void>
}

/** One waiter of a topic. */
export interface Waiter {
  /**
   * Resolves at the first signal since the last wait (at once when one came meanwhile), after
   * `ms`, or when `abort` fires, whichever is first.
   */
  wait: (ms: number, abort?: AbortSignal) => Promise<void>
  close: () => void
}

/** setTimeout takes at most 2^31-1 ms (a longer delay fires at once). */
const MAX_DELAY_MS = 2 ** 31 - 1

class Latch implements Waiter {
  #signalled = false
  #release: (() => void) | undefined
  readonly #onClose: (latch: Latch) => void

  constructor(onClose: (latch: Latch) => void) {
    this.#onClose = onClose
  }

  fire(): void {
    this.#signalled = true
    this.#release?.()
  }

  async wait(ms: number, abort?: AbortSignal): Promise<void> {
    if (!this.#signalled && ms > 0 && abort?.aborted !== true) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer)
          abort?.removeEventListener('abort', done)
          this.#release = undefined
          resolve()
        }
        const timer = setTimeout(done, Math.min(ms, MAX_DELAY_MS))
        abort?.addEventListener('abort', done)
        this.#release = done
      })
    }
    this.#signalled = false
  }

  close(): void {
    this.#release?.()
    this.#onClose(this)
  }
}

/**
 * The waiters of this process by topic: what a signal of this process, or one relayed from
 * another instance, wakes.
 *
 * @example
 * const hub = new WaiterHub()
 * const waiter = hub.waiter('ship:ship-1')
 * hub.wake('ship:ship-1') // the waiter's next wait resolves at once
 */
export class WaiterHub {
  readonly #topics = new Map<string, Set<Latch>>()

  waiter(topic: string): Waiter {
    const latch = new Latch((closed) => {
      const set = this.#topics.get(topic)
      set?.delete(closed)
      if (set?.size === 0) this.#topics.delete(topic)
    })
    let set = this.#topics.get(topic)
    if (set === undefined) {
      set = new Set()
      this.#topics.set(topic, set)
    }
    set.add(latch)
    return latch
  }

  wake(topic: string): void {
    for (const latch of this.#topics.get(topic) ?? []) latch.fire()
  }

  /** Wakes every waiter (signals may have been lost: each looks at the store again). */
  wakeAll(): void {
    for (const set of this.#topics.values()) for (const latch of set) latch.fire()
  }
}

/**
 * Wake-ups within one process: enough where one platform instance uses the store (SQLite).
 *
 * @example
 * const wakeups = new LocalWakeups()
 */
export class LocalWakeups implements Wakeups {
  readonly #hub = new WaiterHub()
  /** Nothing is lost in process: the slow poll only bounds a wait. */
  readonly safetyNetMs = 5_000

  signal(topic: string): void {
    this.#hub.wake(topic)
  }

  waiter(topic: string): Waiter {
    return this.#hub.waiter(topic)
  }

  async close(): Promise<void> {
    this.#hub.wakeAll()
  }
}
