import { parentPort, workerData } from 'node:worker_threads'
import { Agent } from 'undici'
import type { SenderData, SenderReport, WebhookCall } from './post-serve.js'
import { lowerThreadPriority } from '../config/index.js'
import { EgressPolicy, egressConnector } from '../net/index.js'

/*
 * The webhook sender's thread: the HTTP calls of `postServe` cost about as much CPU as
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
// Webhooks are background work: on a core shared with the serving thread, answers go first and
// the calls take the idle time (the queue absorbs bursts).
lowerThreadPriority()

// Its own agent: the global dispatcher may be Node's built-in undici (of another major version,
// with another handler API) once anything in the process used fetch.
// Every connection resolves and checks the address it connects to (docs/security.md "Egress").
const egress = new EgressPolicy((workerData as SenderData).egress)
const dispatcher = new Agent({
  headersTimeout: TIMEOUT_MS,
  bodyTimeout: TIMEOUT_MS,
  connect: egressConnector(egress, { timeout: TIMEOUT_MS }),
})
const queue: WebhookCall[] = []
let running = 0
let report: SenderReport = { sent: 0, failed: 0, failures: [] }
let reportScheduled = false

port.on('message', (batch: WebhookCall[]) => {
  for (const call of batch) queue.push(call)
  pump()
})

function pump(): void {
  while (running < CONCURRENCY && queue.length > 0) {
    const call = queue.shift() as WebhookCall
    running++
    send(call)
      .finally(() => {
        running--
        pump()
      })
      .catch(() => {})
  }
}

/**
 * One call through the agent's low-level `dispatch` (no response object, no body
 * stream: about a fifth less CPU per call than `request`). Never rejects.
 */
async function send(call: WebhookCall): Promise<void> {
  let target: URL
  try {
    target = new URL(call.url)
  } catch {
    fail(call.url, 'not a URL')
    scheduleReport()
    return
  }
  await new Promise<void>((resolve) => {
    let status = 0
    let settled = false
    const done = (error: string | null): void => {
      if (settled) return
      settled = true
      if (error !== null) fail(call.url, error)
      else if (status >= 400) fail(call.url, `answered ${status}`)
      else report.sent++
      scheduleReport()
      resolve()
    }
    const options = {
      origin: target.origin,
      path: target.pathname + target.search,
      method: call.method as 'POST',
      headers: call.headers,
      body: call.body ?? null,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    }
    try {
      dispatcher.dispatch(options, {
        // undici tells the handler API apart by onRequestStart
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode
        },
        onResponseData() {},
        onResponseEnd() {
          done(null)
        },
        onResponseError(_controller, err) {
          done(err.message)
        },
      })
    } catch (err) {
      done(err instanceof Error ? err.message : String(err))
    }
  })
}

function fail(url: string, reason: string): void {
  report.failed++
  if (report.failures.length < FAILURES_PER_REPORT) report.failures.push({ url, reason })
}

function scheduleReport(): void {
  if (reportScheduled) return
  reportScheduled = true
  setTimeout(() => {
    reportScheduled = false
    port?.postMessage(report)
    report = { sent: 0, failed: 0, failures: [] }
  }, 20)
}
