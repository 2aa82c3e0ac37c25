import { parentPort } from 'node:worker_threads'
import { request } from 'undici'
import type { SenderReport, WebhookCall } from './post-serve.js'

/*
 * The webhook sender's thread (issue 12): the HTTP calls of `postServe` cost about as much CPU as
 * the answers that cause them (a request written, a response parsed), so they are made here, not
 * on the thread that serves. Batches of rendered calls come in; counters and the first failures
 * go back, coalesced.
 */

/** Calls sent at once. */
const CONCURRENCY = 64
/** Each call's time limit. */
const TIMEOUT_MS = 10_000
/** Failures described per report (the rest are only counted). */
const FAILURES_PER_REPORT = 5

const port = parentPort
if (port === null) throw new Error('post-serve-worker must run in a worker thread')

const queue: WebhookCall[] = []
let running = 0
let report: SenderReport = { sent: 0, failed: 0, failures: [] }
let reportScheduled = false

port.on('message', (batch: WebhookCall[]) => {
  for (const call of batch) queue.push(call)
  pump()
})

function pump (): void {
  while (running < CONCURRENCY && queue.length > 0) {
    const call = queue.shift() as WebhookCall
    running++
    send(call).finally(() => {
      running--
      pump()
    }).catch(() => {})
  }
}

async function send (call: WebhookCall): Promise<void> {
  try {
    const res = await request(call.url, {
      method: call.method as 'POST',
      headers: call.headers,
      body: call.body ?? null,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    })
    await res.body.dump()
    if (res.statusCode >= 400) fail(call.url, `answered ${res.statusCode}`)
    else report.sent++
  } catch (err) {
    fail(call.url, err instanceof Error ? err.message : String(err))
  }
  scheduleReport()
}

function fail (url: string, reason: string): void {
  report.failed++
  if (report.failures.length < FAILURES_PER_REPORT) report.failures.push({ url, reason })
}

function scheduleReport (): void {
  if (reportScheduled) return
  reportScheduled = true
  setTimeout(() => {
    reportScheduled = false
    port?.postMessage(report)
    report = { sent: 0, failed: 0, failures: [] }
  }, 20)
}
