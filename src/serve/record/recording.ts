import type { TransactionInput } from '../../dsl/index.js'
import type { LiveExchange } from '../runtime-state.js'
import { CaptureQueue, type LiveRecorder } from './capture.js'
import {
  RecordedRequests,
  type HarImporter,
  type MergeResult,
  type RecordedRequest,
} from './recorded-requests.js'

/*
 * Recording live traffic into transactions, shared by `understudy record` (which writes
 * files) and the runtime's `noMatchingRequestPreference: record` mode (read through the admin API's
 * `GET /recordings`). The request path only queues (capture.ts); a timer merges the queue into one
 * entry per distinct request (recorded-requests.ts), so recording the same request again replaces
 * its entry, never adds one. A cluster replica runs the same queue but sends its batches to the
 * primary, which merges them into its own RecordedRequests.
 */

export {
  fitDelay,
  MAX_RECORDED_REQUESTS,
  type HarImporter,
  type LoadHarImporter,
  type MergeResult,
  type RecordedRequest,
} from './recorded-requests.js'

interface RecordingOptions {
  /** Batching interval, ms (default 200). */
  flushEvery?: number
  /** Called after the timer merged a batch (`understudy record` writes its files then). */
  onMerged?: (result: MergeResult) => void
  /** Told about each exchange a merge skips (for the log), with the reason. */
  onSkipped?: (url: string, reason: string) => void
}

/**
 * A recording held in this process: the capture queue and the merged requests.
 *
 * @example
 * const recording = new Recording()
 * recording.add(exchange, 'https://api.example.com') // on the request path
 * recording.merge() // off it (the timer does it every 200 ms)
 */
export class Recording implements LiveRecorder {
  private readonly queue: CaptureQueue
  private readonly recorded: RecordedRequests

  constructor(private readonly options: RecordingOptions = {}) {
    this.recorded = new RecordedRequests(options.onSkipped)
    this.queue = new CaptureQueue({
      ...options,
      onDue: () => {
        this.options.onMerged?.(this.merge())
      },
    })
  }

  /** HOT PATH of a recorded request: one push, and a timer when none is set. */
  add(exchange: LiveExchange, origin: string): void {
    this.queue.add(exchange, origin)
  }

  /**
   * Merges what is queued into the recorded requests (readers call it first, so that they see
   * every answered request). Returns how many exchanges were merged; those skipped are returned in
   * `skipped`: a body larger than what the runtime captures, or a new request past
   * MAX_RECORDED_REQUESTS.
   */
  merge(): MergeResult {
    const batch = this.queue.take()
    const result = this.recorded.merge(batch.requests)
    return { merged: result.merged, skipped: [...batch.skipped, ...result.skipped] }
  }

  /** Stops the batching timer; what is queued stays until the next `merge`. */
  stop(): void {
    this.queue.stop()
  }

  /** How many distinct requests are recorded (merged ones). */
  get size(): number {
    return this.recorded.size
  }

  /** The recorded requests, in the order they were first seen. */
  list(): RecordedRequest[] {
    return this.recorded.list()
  }

  /** Takes back requests recorded before (a previous run's state). */
  restore(requests: readonly RecordedRequest[]): void {
    this.recorded.restore(requests)
  }

  /** Forgets everything recorded and queued; returns how many requests were recorded. */
  clear(): number {
    this.queue.drop()
    return this.recorded.clear()
  }

  /** The recording as transactions, one per distinct request (see RecordedRequests.transactions). */
  transactions(importHar: HarImporter, keepLatency: boolean): TransactionInput[] {
    return this.recorded.transactions(importHar, keepLatency)
  }
}
