import { createHash } from 'node:crypto'
import type { Transaction, TransactionInput } from '../../dsl/index.js'
import type { LiveExchange } from '../runtime-state.js'

/*
 * Recording live traffic into transactions (issue 12), shared by `understudy record` (which writes
 * files) and the runtime's `noMatchingRequestPreference: record` mode (read through the admin API's
 * `GET /recordings`). The request path only queues; a timer merges the queue into one entry per
 * distinct request, so recording the same request again replaces its entry, never adds one.
 */

/** What a recording keeps per distinct request (and what `understudy record` saves across runs). */
export interface RecordedRequest {
  /** `METHOD url sha256(body)`: the identity of a request (method, path, query, body). */
  key: string
  /** A HAR 1.2 entry: the HAR importer turns it into a transaction as it does any capture. */
  entry: Record<string, unknown>
  /** Every latency seen for this request, ms (the last 200). */
  latencies: number[]
}

/**
 * The HAR importer (importers/har), injected: the runtime may not import importers/ (DESIGN.md
 * section 2), and a runtime that never records does not load them.
 */
export type HarImporter = (input: { bytes: Uint8Array; fileName: string }) => { document: { transactions: readonly Transaction[] } }
export type LoadHarImporter = () => Promise<HarImporter>

export interface RecordingOptions {
  /** Batching interval, ms (default 200). */
  flushEvery?: number
  /** Called after the timer merged a batch (`understudy record` writes its files then). */
  onMerged?: (result: MergeResult) => void
  /** Told about each exchange a merge skips (for the log), with the reason. */
  onSkipped?: (url: string, reason: string) => void
}

/** What one merge did: exchanges merged, and the urls of those skipped for a truncated body. */
export interface MergeResult {
  merged: number
  skipped: string[]
}

const MAX_SAMPLES = 200
/** Distinct requests one recording keeps: past it, new ones are skipped (reported), known ones still update. */
export const MAX_RECORDED_REQUESTS = 10_000

export class Recording {
  private readonly recorded = new Map<string, RecordedRequest>()
  private pending: Array<{ exchange: LiveExchange; origin: string }> = []
  private timer: NodeJS.Timeout | null = null

  constructor (private readonly options: RecordingOptions = {}) {}

  /** HOT PATH of a recorded request: one push, and a timer when none is set. */
  add (exchange: LiveExchange, origin: string): void {
    this.pending.push({ exchange, origin })
    if (this.timer !== null) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.options.onMerged?.(this.merge())
    }, this.options.flushEvery ?? 200)
    this.timer.unref()
  }

  /**
   * Merges what is queued into the recorded requests (readers call it first, so that they see
   * every answered request). Returns how many exchanges were merged; those skipped are returned in
   * `skipped`: a body larger than what the runtime captures, or a new request past
   * MAX_RECORDED_REQUESTS.
   */
  merge (): MergeResult {
    const batch = this.pending
    this.pending = []
    const skipped: string[] = []
    for (const { exchange, origin } of batch) {
      if (exchange.truncated) {
        skipped.push(exchange.url)
        this.options.onSkipped?.(exchange.url, 'response body larger than the capture limit; not recorded')
        continue
      }
      const key = keyOf(exchange)
      const previous = this.recorded.get(key)
      if (previous === undefined && this.recorded.size >= MAX_RECORDED_REQUESTS) {
        skipped.push(exchange.url)
        this.options.onSkipped?.(exchange.url, `the recording holds ${MAX_RECORDED_REQUESTS} distinct requests already; not recorded`)
        continue
      }
      const latencies = [...(previous?.latencies ?? []), exchange.durationMs].slice(-MAX_SAMPLES)
      this.recorded.set(key, { key, entry: harEntry(exchange, origin), latencies })
    }
    return { merged: batch.length - skipped.length, skipped }
  }

  /** Stops the batching timer; what is queued stays until the next `merge`. */
  stop (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  /** How many distinct requests are recorded (merged ones). */
  get size (): number {
    return this.recorded.size
  }

  /** The recorded requests, in the order they were first seen. */
  list (): RecordedRequest[] {
    return [...this.recorded.values()]
  }

  /** Takes back requests recorded before (a previous run's state). */
  restore (requests: readonly RecordedRequest[]): void {
    for (const r of requests) this.recorded.set(r.key, r)
  }

  /** Forgets everything recorded and queued; returns how many requests were recorded. */
  clear (): number {
    const count = this.recorded.size
    this.recorded.clear()
    this.pending = []
    return count
  }

  /**
   * The recording as transactions, one per distinct request, converted by the HAR importer (its
   * choice of method, path, query and body matchers, volatile headers dropped). With
   * `keepLatency`, the recorded latency becomes the `responseDelay` (see `fitDelay`).
   */
  transactions (importHar: HarImporter, keepLatency: boolean): TransactionInput[] {
    const list = this.list()
    if (list.length === 0) return []
    const har = { log: { version: '1.2', creator: { name: 'understudy record', version: '1' }, entries: list.map((r) => r.entry) } }
    const result = importHar({ bytes: Buffer.from(JSON.stringify(har)), fileName: 'recording.har' })
    return result.document.transactions.map((txn): TransactionInput => {
      const input = JSON.parse(JSON.stringify(txn)) as TransactionInput
      // The HAR importer names the entry each transaction came from.
      const index = Number(/log\.entries\[(\d+)\]/.exec(txn.description ?? '')?.[1] ?? -1)
      const latencies = list[index]?.latencies ?? []
      if (keepLatency && latencies.length > 0 && input.dsl.responseDsl !== undefined) input.dsl.responseDsl.responseDelay = fitDelay(latencies)
      return input
    })
  }
}

/**
 * The delay of a recorded request: its one latency as `fixed`, or a lognormal fitted to repeats
 * (median = e^mean(ln t), sigma = sd(ln t)).
 */
export function fitDelay (latencies: readonly number[]): { type: string; duration?: number; median?: number; sigma?: number } {
  const samples = latencies.map((t) => Math.max(t, 1))
  if (samples.length === 1) return { type: 'fixed', duration: Math.round(samples[0] as number) }
  const logs = samples.map(Math.log)
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length
  const variance = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1)
  return { type: 'lognormal', median: Math.round(Math.exp(mean)), sigma: Number(Math.sqrt(variance).toFixed(3)) }
}

function keyOf (exchange: LiveExchange): string {
  const body = exchange.requestBody === null ? '' : createHash('sha256').update(exchange.requestBody).digest('hex')
  return `${exchange.method.toUpperCase()} ${exchange.url} ${body}`
}

function harEntry (x: LiveExchange, origin: string): Record<string, unknown> {
  const requestHeaders = Object.entries(x.requestHeaders).flatMap(([name, value]) =>
    value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })))
  const responseHeaders: Array<{ name: string; value: string }> = []
  for (let i = 0; i < x.responseHeaders.length; i += 2) responseHeaders.push({ name: x.responseHeaders[i] as string, value: x.responseHeaders[i + 1] as string })
  const mime = (name: string, list: Array<{ name: string; value: string }>): string => list.find((h) => h.name.toLowerCase() === name)?.value ?? ''
  const url = new URL(x.url, origin)
  const request: Record<string, unknown> = {
    method: x.method.toUpperCase(),
    url: url.toString(),
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: requestHeaders,
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    headersSize: -1,
    bodySize: x.requestBody?.length ?? 0,
  }
  if (x.requestBody !== null && x.requestBody.length > 0) request['postData'] = { mimeType: mime('content-type', requestHeaders), text: x.requestBody.toString('utf8') }
  const body = x.responseBody ?? Buffer.alloc(0)
  return {
    startedDateTime: new Date(Date.now() - x.durationMs).toISOString(),
    time: x.durationMs,
    request,
    response: {
      status: x.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content: { size: body.length, mimeType: mime('content-type', responseHeaders), text: body.toString('base64'), encoding: 'base64' },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: x.durationMs, receive: 0 },
  }
}
