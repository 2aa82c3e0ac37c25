import type { Worker } from 'node:worker_threads'
import { spawnWorker } from '../config/index.js'
import type { PostServeCall } from '../dsl/index.js'
import type { Logger } from '../log/index.js'
import type { EgressPolicy, EgressSettings } from '../net/index.js'
import type { TemplateEngine, TemplateFn } from './template/engine.js'
import { constantTemplate, TemplateSyntaxError } from './template/engine.js'
import {
  contextFields,
  unionReads,
  type ContextFields,
  type TemplateReads,
} from './template/reads.js'
import type { ReportProblem } from '../match/index.js'

/** Webhooks waiting or in flight past this are dropped (and counted): answers never wait for them. */
const QUEUE_LIMIT = 10_000
/**
 * Calls are handed to the sender thread in batches, at most this many ms after they are queued:
 * one message per batch rather than per call (a message and the sender's wake-up cost about as
 * much as rendering the call) keeps the serving thread's share of a webhook small under load.
 */
const BATCH_WINDOW_MS = 5
/** A batch this large goes at once, without waiting for the window. */
const BATCH_LIMIT = 512

/** Counters of the webhooks of one runtime, shown by the admin API. */
export interface PostServeStats {
  sent: number
  failed: number
  dropped: number
  /** Calls waiting to be sent or in flight. */
  queued: number
}

/** What the sender thread is started with. */
export interface SenderData {
  /** The runtime's egress policy, as data: every call's connection goes through it. */
  egress: EgressSettings
}

/** One call, rendered, as the sender thread takes it. */
export interface WebhookCall {
  url: string
  method: string
  headers: Record<string, string>
  body: string | undefined
}

/** What the sender thread reports back, coalesced: calls done since its last report. */
export interface SenderReport {
  sent: number
  failed: number
  /** The first few failures of the period, for the log. */
  failures: Array<{ url: string; reason: string }>
}

/**
 * One call. Its url and body are rendered just before it goes to the sender thread, not when it
 * is queued: template work stays out of the request's turn.
 */
interface Job {
  method: string
  headers: Record<string, string>
  /** Renders `{url, body}`; throws when a template helper fails. */
  render: () => { url: string; body: string | undefined }
}

/**
 * The runtime's webhook sender: a bounded queue whose calls are rendered after the answer's turn
 * and sent by a worker thread (undici, 64 at once, a timeout each), started on the first call.
 * Failures are logged and counted, never retried; a destination the egress policy refuses is such
 * a failure (logged with the policy's reason, nothing sent). The HTTP work of a webhook costs about what an
 * answer costs: on the serving thread it would halve the answers a process can give.
 */
export class PostServeQueue {
  readonly stats: PostServeStats = { sent: 0, failed: 0, dropped: 0, queued: 0 }
  private outbox: Job[] = []
  /** Calls waiting for their delay. */
  private delayed = 0
  private flushScheduled = false
  private worker: Worker | null = null

  constructor(
    private readonly log: Logger,
    private readonly egress: EgressPolicy,
  ) {}

  /** Queues a call, after `delay` ms. */
  enqueue(job: Job, delay: number): void {
    if (this.stats.queued + this.outbox.length + this.delayed >= QUEUE_LIMIT) {
      this.stats.dropped++
      return
    }
    if (delay > 0) {
      this.delayed++
      setTimeout(() => {
        this.delayed--
        this.push(job)
      }, delay).unref()
      return
    }
    this.push(job)
  }

  /**
   * Ends the sender thread, after giving the calls queued up to `graceMs` to go out (the rest are
   * lost); the runtime calls it when it closes, once its answers are written.
   */
  async close(graceMs = 1000): Promise<void> {
    const deadline = Date.now() + graceMs
    while (
      this.worker !== null &&
      (this.stats.queued > 0 || this.outbox.length > 0 || this.delayed > 0) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const worker = this.worker
    this.worker = null
    this.outbox = []
    if (worker !== null) await worker.terminate()
  }

  private push(job: Job): void {
    this.outbox.push(job)
    if (this.outbox.length === BATCH_LIMIT) {
      // Rendering and handing over start after the current turn, in which the answer is written.
      setImmediate(this.flushNow)
      return
    }
    if (this.flushScheduled) return
    this.flushScheduled = true
    setTimeout(this.flushNow, BATCH_WINDOW_MS).unref()
  }

  private readonly flushNow = (): void => {
    this.flushScheduled = false
    this.flush()
  }

  private flush(): void {
    if (this.outbox.length === 0) return
    const jobs = this.outbox
    this.outbox = []
    const batch: WebhookCall[] = []
    for (const job of jobs) {
      try {
        const { url, body } = job.render()
        batch.push({ url, method: job.method, headers: job.headers, body })
      } catch (err) {
        this.stats.failed++
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'webhook template failed',
        )
      }
    }
    if (batch.length === 0) return
    this.stats.queued += batch.length
    this.sender().postMessage(batch)
  }

  private sender(): Worker {
    if (this.worker !== null) return this.worker
    // The ports protected when the first call goes (the admin listener's is known by then).
    const workerData: SenderData = { egress: this.egress.snapshot() }
    const worker = spawnWorker(import.meta.url, './post-serve-worker', { workerData })
    // The sender never keeps a process alive on its own.
    worker.unref()
    worker.on('message', (report: SenderReport) => this.received(report))
    worker.on('error', (err) => {
      this.log.error({ err }, 'webhook sender failed; calls in flight are lost')
      this.stats.failed += this.stats.queued
      this.stats.queued = 0
      if (this.worker === worker) this.worker = null
    })
    this.worker = worker
    return worker
  }

  private received(report: SenderReport): void {
    this.stats.sent += report.sent
    this.stats.failed += report.failed
    this.stats.queued = Math.max(0, this.stats.queued - report.sent - report.failed)
    for (const f of report.failures) this.log.warn({ url: f.url, err: f.reason }, 'webhook failed')
  }
}

/** A transaction's `postServe` calls, their bodies and URLs compiled as templates. */
export interface CompiledPostServe {
  /** What the calls' templates read of the context: a request builds only that. */
  fields: ContextFields
  /**
   * Queues every call for this request; `after` is the answer's delay. `context` is called once,
   * when the first call is rendered (off the request's turn).
   */
  fire: (queue: PostServeQueue, context: () => Record<string, unknown>, after: number) => void
}

/** Compiles `postServe`; reports template errors at their pointer. */
export function compilePostServe(
  calls: PostServeCall[] | undefined,
  engine: TemplateEngine,
  report: ReportProblem,
): CompiledPostServe | null {
  if (calls === undefined || calls.length === 0) return null
  const compile = (source: string, pointer: string): TemplateFn => {
    try {
      return engine.compile(source)
    } catch (err) {
      const line =
        err instanceof TemplateSyntaxError && err.line !== null
          ? ` (line ${err.line} of the template)`
          : ''
      report(pointer, `template error${line}: ${err instanceof Error ? err.message : String(err)}`)
      return constantTemplate('')
    }
  }
  const compiled = calls.map((call, i) => ({
    url: call.url.includes('{{')
      ? compile(call.url, `/dsl/responseDsl/postServe/${i}/url`)
      : constantTemplate(call.url),
    method: call.method,
    headers: Object.fromEntries((call.headers ?? []).map((h) => [h.name, h.value])),
    body:
      call.body === undefined ? null : compile(call.body, `/dsl/responseDsl/postServe/${i}/body`),
    delay: call.delay ?? 0,
  }))
  const fields = contextFields(
    compiled.reduce<TemplateReads>(
      (all, call) => unionReads(unionReads(all, call.url.reads), call.body?.reads ?? new Set()),
      new Set(),
    ),
  )
  return {
    fields,
    fire(queue, context, after) {
      let ctx: Record<string, unknown> | null = null
      for (const call of compiled) {
        const render = (): { url: string; body: string | undefined } => {
          ctx ??= context()
          return { url: call.url(ctx), body: call.body === null ? undefined : call.body(ctx) }
        }
        queue.enqueue({ method: call.method, headers: call.headers, render }, after + call.delay)
      }
    },
  }
}
