/**
 * When a process that died on its own is started again: the deployer's runtimes (one `understudy
 * run` per mock service) and a cluster's replicas follow the same rule, with their own numbers.
 */
export interface RestartPolicy {
  /** Restarts in a row before giving up; Infinity never gives up. */
  attempts: number
  /** Restarts in a row made at once, before the backoff begins (0: the first one already waits). */
  immediate: number
  /** Delay of the first restart that waits; it doubles with each further one. */
  initialDelayMs: number
  maxDelayMs: number
  /** A process that lived this long before dying starts a fresh count. */
  healthyAfterMs: number
}

/** A restart scheduled by `RestartSupervisor.schedule`: which one in a row, and after how long. */
interface ScheduledRestart {
  attempt: number
  delayMs: number
}

/**
 * The restart-with-backoff of one supervised process: counts the restarts in a row, computes
 * each one's delay (`immediate` restarts at once, then `initialDelayMs` doubling up to
 * `maxDelayMs`), gives up after `attempts`, and holds the timer of the restart waiting.
 *
 * @example
 * const restarts = new RestartSupervisor({ attempts: 5, immediate: 0, initialDelayMs: 500, maxDelayMs: 10_000, healthyAfterMs: 60_000 })
 * child.on('exit', () => { restarts.ended(Date.now() - startedAt); if (restarts.schedule(start) === null) giveUp() })
 */
export class RestartSupervisor {
  readonly policy: Readonly<RestartPolicy>
  #count = 0
  #timer: NodeJS.Timeout | null = null

  constructor(policy: RestartPolicy) {
    this.policy = policy
  }

  /** Restarts in a row so far (the attempt number of the last one scheduled). */
  get count(): number {
    return this.#count
  }

  /** A process died after living `livedMs`: a long enough life starts a fresh count. */
  ended(livedMs: number): void {
    if (livedMs >= this.policy.healthyAfterMs) this.#count = 0
  }

  /**
   * Schedules `restart` after the delay of the next attempt and returns it; null (nothing
   * scheduled) once `attempts` restarts in a row were made. A restart already waiting is replaced.
   */
  schedule(restart: () => void): ScheduledRestart | null {
    const { attempts, immediate, initialDelayMs, maxDelayMs } = this.policy
    if (this.#count >= attempts) return null
    const delayMs =
      this.#count < immediate
        ? 0
        : Math.min(maxDelayMs, initialDelayMs * 2 ** (this.#count - immediate))
    this.#count++
    this.cancel()
    this.#timer = setTimeout(() => {
      this.#timer = null
      restart()
    }, delayMs)
    return { attempt: this.#count, delayMs }
  }

  /** Drops the restart waiting for its delay, if any. */
  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }

  /** A fresh count (a user's action started the process anew); a restart waiting stays. */
  reset(): void {
    this.#count = 0
  }
}
