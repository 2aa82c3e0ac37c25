import type { Transaction, TransactionInput } from '../../dsl/index.js'
import { withoutCredentials } from './credentials.js'

/*
 * The merged half of a recording: one entry per distinct request, whichever batch (and,
 * in a cluster, whichever replica) captured it. Recording a request again replaces its entry
 * (the newest exchange wins) and adds its latencies, never a second entry. A single runtime and
 * `understudy record` keep one inside their Recording; a cluster primary keeps one for all of
 * its replicas (cluster-primary.ts).
 */

/** What a recording keeps per distinct request (and what `understudy record` saves across runs). */
export interface RecordedRequest {
  /** `METHOD url sha256(body)`: the identity of a request (method, path, query, body). */
  key: string
  /** A HAR 1.2 entry: the HAR importer turns it into a transaction as it does any capture. */
  entry: Record<string, unknown>
  /** Every latency seen for this request, ms (the last 200). */
  latencies: number[]
  /** When the exchange that gave `entry` ended (epoch ms); absent in state saved by older versions. */
  at?: number
}

/**
 * One distinct request of a batch, plain data (it crosses the IPC channel as JSON): its newest
 * exchange as a HAR entry, and the latency of every exchange of the batch.
 */
export interface CapturedRequest extends RecordedRequest {
  /** When the newest exchange of the batch ended (epoch ms): a merge keeps the newest entry. */
  at: number
  /** The request's url as received (what a merge's skip report names). */
  url: string
}

/** Told about an exchange (or a request) left out of the recording, with the reason (for the log). */
export type SkipListener = (url: string, reason: string) => void

/**
 * The HAR importer (importers/har), injected: the runtime may not import importers/
 * (docs/architecture.md#layout-and-boundaries), and a runtime that never records does not load
 * them.
 */
export type HarImporter = (input: { bytes: Uint8Array; fileName: string }) => {
  document: { transactions: readonly Transaction[] }
}
export type LoadHarImporter = () => Promise<HarImporter>

/** What one merge did: exchanges merged, and the urls of those skipped (truncated, or past the bound). */
export interface MergeResult {
  merged: number
  skipped: string[]
}

const MAX_SAMPLES = 200
/** Distinct requests one recording keeps: past it, new ones are skipped (reported), known ones still update. */
export const MAX_RECORDED_REQUESTS = 10_000

/**
 * The recorded requests, merged.
 *
 * @example
 * const recorded = new RecordedRequests()
 * recorded.merge(queue.take().requests)
 * recorded.transactions(importHar, false) // one transaction per distinct request
 */
export class RecordedRequests {
  private readonly recorded = new Map<string, RecordedRequest>()

  constructor(private readonly onSkipped?: SkipListener) {}

  /**
   * Merges captured requests: a known one gets the newer entry of the two (by `at`, so batches
   * arriving out of order from several replicas keep the latest answer) and the new latency
   * samples; a new one is added, unless MAX_RECORDED_REQUESTS are held already (then skipped and
   * reported). `merged` counts exchanges (latency samples).
   */
  merge(requests: readonly CapturedRequest[]): MergeResult {
    let merged = 0
    const skipped: string[] = []
    for (const captured of requests) {
      const previous = this.recorded.get(captured.key)
      if (previous === undefined && this.recorded.size >= MAX_RECORDED_REQUESTS) {
        skipped.push(captured.url)
        this.onSkipped?.(
          captured.url,
          `the recording holds ${MAX_RECORDED_REQUESTS} distinct requests already; not recorded`,
        )
        continue
      }
      merged += captured.latencies.length
      const latencies = [...(previous?.latencies ?? []), ...captured.latencies].slice(-MAX_SAMPLES)
      const newer = previous === undefined || captured.at >= (previous.at ?? 0)
      this.recorded.set(
        captured.key,
        newer
          ? { key: captured.key, entry: captured.entry, latencies, at: captured.at }
          : { ...previous, latencies },
      )
    }
    return { merged, skipped }
  }

  /** How many distinct requests are recorded. */
  get size(): number {
    return this.recorded.size
  }

  /** The recorded requests, in the order they were first seen. */
  list(): RecordedRequest[] {
    return [...this.recorded.values()]
  }

  /** Takes back requests recorded before (a previous run's state; credential headers dropped, as they are from new captures). */
  restore(requests: readonly RecordedRequest[]): void {
    for (const r of requests) this.recorded.set(r.key, { ...r, entry: withoutCredentials(r.entry) })
  }

  /** Forgets everything recorded; returns how many requests were. */
  clear(): number {
    const count = this.recorded.size
    this.recorded.clear()
    return count
  }

  /**
   * The recording as transactions, one per distinct request, converted by the HAR importer (its
   * choice of method, path, query and body matchers, volatile headers dropped). With
   * `keepLatency`, the recorded latency becomes the `responseDelay` (see `fitDelay`).
   */
  transactions(importHar: HarImporter, keepLatency: boolean): TransactionInput[] {
    const list = this.list()
    if (list.length === 0) return []
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'understudy record', version: '1' },
        entries: list.map((r) => r.entry),
      },
    }
    const result = importHar({ bytes: Buffer.from(JSON.stringify(har)), fileName: 'recording.har' })
    return result.document.transactions.map((txn): TransactionInput => {
      const input = JSON.parse(JSON.stringify(txn)) as TransactionInput
      // The HAR importer names the entry each transaction came from.
      const index = Number(/log\.entries\[(\d+)\]/.exec(txn.description ?? '')?.[1] ?? -1)
      const latencies = list[index]?.latencies ?? []
      if (keepLatency && latencies.length > 0 && input.dsl.responseDsl !== undefined) {
        input.dsl.responseDsl.responseDelay = fitDelay(latencies)
      }
      return input
    })
  }
}

/**
 * The delay of a recorded request: its one latency as `fixed`, or a lognormal fitted to repeats
 * (median = e^mean(ln t), sigma = sd(ln t)).
 */
export function fitDelay(latencies: readonly number[]): {
  type: string
  duration?: number
  median?: number
  sigma?: number
} {
  const samples = latencies.map((t) => Math.max(t, 1))
  if (samples.length === 1) return { type: 'fixed', duration: Math.round(samples[0] as number) }
  const logs = samples.map(Math.log)
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length
  const variance = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1)
  return {
    type: 'lognormal',
    median: Math.round(Math.exp(mean)),
    sigma: Number(Math.sqrt(variance).toFixed(3)),
  }
}
