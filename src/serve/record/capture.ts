import { createHash } from 'node:crypto'
import type { LiveExchange, LiveRecorder } from '../live-exchange.js'
import type { CapturedRequest, SkipListener } from './recorded-requests.js'

export type { CapturedRequest } from './recorded-requests.js'
import { CREDENTIAL_HEADERS } from './credentials.js'

/*
 * The capturing half of a recording: the request path only queues an exchange; off
 * that path, the queue is coalesced into one `CapturedRequest` per distinct request. A single
 * runtime merges those into its own RecordedRequests; a cluster replica sends them to the primary,
 * which merges every replica's into one (cluster-worker.ts, cluster-primary.ts).
 */

/** What one coalescing produced. */
interface CaptureBatch {
  requests: CapturedRequest[]
  /** Exchanges coalesced into `requests` (the truncated ones are not among them). */
  exchanges: number
  /** Urls of exchanges skipped for a response body larger than the capture limit. */
  skipped: string[]
}

export type { LiveRecorder } from '../live-exchange.js'

interface CaptureQueueOptions {
  /** Called by the batching timer once something is queued and `flushEvery` has passed. */
  onDue: () => void
  /** Batching interval, ms (default 200). */
  flushEvery?: number
  onSkipped?: SkipListener
}

/**
 * The queue of exchanges awaiting their merge. `add` is all the request path pays; the first
 * `add` after a `take` arms a timer (unref'd) that calls `onDue`, whose owner then calls `take`.
 *
 * @example
 * const queue = new CaptureQueue({ onDue: () => send(queue.take().requests) })
 */
export class CaptureQueue implements LiveRecorder {
  private pending: Array<{ exchange: LiveExchange; origin: string }> = []
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly options: CaptureQueueOptions) {}

  /** HOT PATH of a recorded request: one push, and a timer when none is set. */
  add(exchange: LiveExchange, origin: string): void {
    this.pending.push({ exchange, origin })
    if (this.timer !== null) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.options.onDue()
    }, this.options.flushEvery ?? 200)
    this.timer.unref()
  }

  /** Empties the queue, coalesced: one CapturedRequest per distinct request, first-seen order. */
  take(): CaptureBatch {
    const batch = this.pending
    this.pending = []
    return coalesce(batch, this.options.onSkipped)
  }

  /** Forgets what is queued; how many exchanges were. */
  drop(): number {
    const count = this.pending.length
    this.pending = []
    return count
  }

  /** How many exchanges are queued. */
  get queued(): number {
    return this.pending.length
  }

  /** Stops the batching timer; what is queued stays until the next `take`. */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}

/**
 * Coalesces exchanges into one CapturedRequest per distinct request (method, url with query,
 * SHA-256 of the body): the newest exchange gives the entry, every exchange a latency sample.
 * An exchange whose response body was truncated is skipped (and reported).
 */
export function coalesce(
  batch: ReadonlyArray<{ exchange: LiveExchange; origin: string }>,
  onSkipped?: SkipListener,
): CaptureBatch {
  const newest = new Map<string, { exchange: LiveExchange; origin: string; latencies: number[] }>()
  const skipped: string[] = []
  for (const { exchange, origin } of batch) {
    if (exchange.truncated) {
      skipped.push(exchange.url)
      onSkipped?.(exchange.url, 'response body larger than the capture limit; not recorded')
      continue
    }
    const key = keyOf(exchange)
    const seen = newest.get(key)
    if (seen === undefined) {
      newest.set(key, { exchange, origin, latencies: [exchange.durationMs] })
    } else {
      seen.exchange = exchange
      seen.origin = origin
      seen.latencies.push(exchange.durationMs)
    }
  }
  const requests: CapturedRequest[] = []
  for (const [key, { exchange, origin, latencies }] of newest) {
    const at = exchange.endedAt ?? Date.now()
    requests.push({ key, entry: harEntry(exchange, origin, at), latencies, at, url: exchange.url })
  }
  return { requests, exchanges: batch.length - skipped.length, skipped }
}

function keyOf(exchange: LiveExchange): string {
  const body =
    exchange.requestBody === null
      ? ''
      : createHash('sha256').update(exchange.requestBody).digest('hex')
  return `${exchange.method.toUpperCase()} ${exchange.url} ${body}`
}

function harEntry(x: LiveExchange, origin: string, endedAt: number): Record<string, unknown> {
  const requestHeaders = Object.entries(x.requestHeaders).flatMap(([name, value]) =>
    value === undefined || CREDENTIAL_HEADERS.has(name.toLowerCase())
      ? []
      : (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })),
  )
  const responseHeaders: Array<{ name: string; value: string }> = []
  for (let i = 0; i < x.responseHeaders.length; i += 2) {
    responseHeaders.push({
      name: x.responseHeaders[i] as string,
      value: x.responseHeaders[i + 1] as string,
    })
  }
  const mime = (name: string, list: Array<{ name: string; value: string }>): string =>
    list.find((h) => h.name.toLowerCase() === name)?.value ?? ''
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
  if (x.requestBody !== null && x.requestBody.length > 0) {
    request['postData'] = {
      mimeType: mime('content-type', requestHeaders),
      text: x.requestBody.toString('utf8'),
    }
  }
  const body = x.responseBody ?? Buffer.alloc(0)
  return {
    startedDateTime: new Date(endedAt - x.durationMs).toISOString(),
    time: x.durationMs,
    request,
    response: {
      status: x.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content: {
        size: body.length,
        mimeType: mime('content-type', responseHeaders),
        text: body.toString('base64'),
        encoding: 'base64',
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: x.durationMs, receive: 0 },
  }
}
