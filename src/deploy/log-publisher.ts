import type { LogRing, Logger } from '../log/index.js'
import type { AgentLogRepository } from '../store/index.js'

interface LogPublisherOptions {
  /** The store's log lines of mock services (the table agents' reports fill too). */
  lines: Pick<AgentLogRepository, 'put'>
  log: Logger
  /** How long a changed log waits before it is written; default 1 s. */
  intervalMs?: number
  /** Lines written since the last flush that make it flush at once; default 100. */
  batchLines?: number
}

/**
 * Copies the log lines of the runtimes this platform instance runs to the store, so that any
 * instance on it answers a mock service's log. Batched: a changed log is written (its whole ring,
 * at most its 1,000 lines, replacing what was there) a second after its first new line, or at
 * once after 100 new lines, never once per line.
 *
 * @example
 * const publisher = new LogPublisher({ lines: store.agentLogs, log })
 * entry.logs.write(line); publisher.changed(entry.id, entry.logs)
 */
export class LogPublisher {
  readonly #lines: Pick<AgentLogRepository, 'put'>
  readonly #log: Logger
  readonly #intervalMs: number
  readonly #batchLines: number
  /** The rings changed since the last flush, by mock service. */
  #dirty = new Map<number, LogRing>()
  #pending = 0
  #timer: NodeJS.Timeout | null = null
  #flushing: Promise<void> = Promise.resolve()

  constructor(options: LogPublisherOptions) {
    this.#lines = options.lines
    this.#log = options.log
    this.#intervalMs = options.intervalMs ?? 1000
    this.#batchLines = options.batchLines ?? 100
  }

  /** A line was written to a mock service's ring. */
  changed(mockServiceId: number, ring: LogRing): void {
    this.#dirty.set(mockServiceId, ring)
    this.#pending++
    if (this.#pending >= this.#batchLines) {
      this.flush().catch(() => {})
    } else if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.flush().catch(() => {})
      }, this.#intervalMs)
      this.#timer.unref()
    }
  }

  /** Drops what is waiting for a mock service (it was deleted). */
  forget(mockServiceId: number): void {
    this.#dirty.delete(mockServiceId)
  }

  /** Writes every changed log now; resolves once they are written (failures are logged). */
  async flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    const dirty = this.#dirty
    this.#dirty = new Map()
    this.#pending = 0
    // One flush at a time: an older snapshot never lands after a newer one.
    this.#flushing = this.#flushing.then(async () => {
      for (const [mockServiceId, ring] of dirty) {
        try {
          await this.#lines.put(mockServiceId, ring.snapshot())
        } catch (err) {
          this.#log.warn({ err, serviceMockId: mockServiceId }, 'could not store log lines')
        }
      }
    })
    await this.#flushing
  }
}
