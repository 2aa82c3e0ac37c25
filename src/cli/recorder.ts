import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TransactionInput } from '../dsl/index.js'
import type { Logger } from '../log/index.js'
import type { LiveExchange } from '../serve/index.js'
import type { ImportInput, ImportResult } from '../../importers/index.js'

/** What a recording keeps per distinct request, across runs (in `.recording-state.json`). */
interface Recorded {
  key: string
  /** A HAR 1.2 entry: the HAR importer turns it into a transaction as it does any capture. */
  entry: Record<string, unknown>
  /** Every latency seen for this request, ms (the last 200). */
  latencies: number[]
}

export interface RecorderOptions {
  /** Output directory: `recorded.json` (the DSL) and `.recording-state.json` (what re-runs merge). */
  dir: string
  /** Origin of the live system, for the HAR urls. */
  target: string
  keepLatency: boolean
  log: Logger
  importHar: (input: ImportInput) => ImportResult
  /** Batching interval, ms. */
  flushEvery?: number
}

const STATE_FILE = '.recording-state.json'
const OUTPUT_FILE = 'recorded.json'
const MAX_SAMPLES = 200

/**
 * Turns live exchanges into transactions. `add` only queues (the proxied answer never waits);
 * a timer converts and writes in batches. One transaction per distinct request (method, path,
 * query, body): recording again replaces it, never duplicates it.
 */
export class Recorder {
  private readonly recorded = new Map<string, Recorded>()
  private pending: LiveExchange[] = []
  private timer: NodeJS.Timeout | null = null
  private writing = Promise.resolve()

  constructor (private readonly options: RecorderOptions) {
    mkdirSync(options.dir, { recursive: true })
    try {
      const state = JSON.parse(readFileSync(join(options.dir, STATE_FILE), 'utf8')) as { recorded?: Recorded[] }
      for (const r of state.recorded ?? []) this.recorded.set(r.key, r)
    } catch {
      // No previous recording.
    }
  }

  /** HOT PATH of the proxied request: one push. */
  add (exchange: LiveExchange): void {
    this.pending.push(exchange)
    this.timer ??= setTimeout(() => {
      this.timer = null
      this.flush().catch(() => {})
    }, this.options.flushEvery ?? 200)
  }

  /** Converts what is pending and writes the files. */
  async flush (): Promise<void> {
    const batch = this.pending
    this.pending = []
    this.writing = this.writing.then(() => { if (batch.length > 0) this.write(batch) }).catch((err: unknown) => {
      this.options.log.error({ err }, 'cannot write the recording')
    })
    return this.writing
  }

  /** How many distinct requests are recorded. */
  get size (): number {
    return this.recorded.size
  }

  private write (batch: LiveExchange[]): void {
    for (const exchange of batch) {
      if (exchange.truncated) {
        this.options.log.warn({ url: exchange.url }, 'response body larger than the capture limit; not recorded')
        continue
      }
      const key = keyOf(exchange)
      const previous = this.recorded.get(key)
      const latencies = [...(previous?.latencies ?? []), exchange.durationMs].slice(-MAX_SAMPLES)
      this.recorded.set(key, { key, entry: harEntry(exchange, this.options.target), latencies })
    }
    const list = [...this.recorded.values()]
    const har = { log: { version: '1.2', creator: { name: 'understudy record', version: '1' }, entries: list.map((r) => r.entry) } }
    const result = this.options.importHar({ bytes: Buffer.from(JSON.stringify(har)), fileName: 'recording.har' })
    const transactions = result.document.transactions.map((txn): TransactionInput => {
      const input = JSON.parse(JSON.stringify(txn)) as TransactionInput
      // The HAR importer names the entry each transaction came from.
      const index = Number(/log\.entries\[(\d+)\]/.exec(txn.description ?? '')?.[1] ?? -1)
      const latencies = list[index]?.latencies ?? []
      if (this.options.keepLatency && latencies.length > 0 && input.dsl.responseDsl !== undefined) input.dsl.responseDsl.responseDelay = fitDelay(latencies)
      return input
    })
    atomicWrite(join(this.options.dir, OUTPUT_FILE), JSON.stringify({ name: 'recorded', transactions }, null, 2) + '\n')
    atomicWrite(join(this.options.dir, STATE_FILE), JSON.stringify({ target: this.options.target, recorded: list }) + '\n')
    this.options.log.info({ transactions: transactions.length, file: join(this.options.dir, OUTPUT_FILE) }, 'recording written')
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

function harEntry (x: LiveExchange, target: string): Record<string, unknown> {
  const requestHeaders = Object.entries(x.requestHeaders).flatMap(([name, value]) =>
    value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })))
  const responseHeaders: Array<{ name: string; value: string }> = []
  for (let i = 0; i < x.responseHeaders.length; i += 2) responseHeaders.push({ name: x.responseHeaders[i] as string, value: x.responseHeaders[i + 1] as string })
  const mime = (name: string, list: Array<{ name: string; value: string }>): string => list.find((h) => h.name.toLowerCase() === name)?.value ?? ''
  const url = new URL(x.url, target)
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

function atomicWrite (file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}
