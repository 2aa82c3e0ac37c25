import { request } from 'undici'
import type { PostServeCall } from '../dsl/index.js'
import type { Logger } from '../log/index.js'
import type { MatchRequest } from '../match/index.js'
import type { TemplateEngine, TemplateFn } from './template/engine.js'
import { TemplateSyntaxError } from './template/engine.js'
import type { ReportProblem } from '../match/index.js'

/** Webhooks waiting or in flight past this are dropped (and counted): answers never wait for them. */
const QUEUE_LIMIT = 10_000
/** Calls sent at once. */
const CONCURRENCY = 64
/** Each call's time limit. */
const TIMEOUT_MS = 10_000

/** Counters of the webhooks of one runtime, shown by the admin API. */
export interface PostServeStats {
  sent: number
  failed: number
  dropped: number
  queued: number
}

/**
 * One call. Its url and body are rendered when it is sent, not when it is queued: template work
 * stays out of the request's turn.
 */
interface Job {
  method: string
  headers: Record<string, string>
  /** Renders `{url, body}`; throws when a template helper fails. */
  render: () => { url: string; body: string | undefined }
}

/**
 * The runtime's webhook sender: a bounded queue drained by a few concurrent undici calls, each
 * with a timeout. Failures are logged and counted, never retried.
 */
export class PostServeQueue {
  readonly stats: PostServeStats = { sent: 0, failed: 0, dropped: 0, queued: 0 }
  private readonly jobs: Job[] = []
  private running = 0
  private pumpScheduled = false

  constructor (private readonly log: Logger) {}

  /** Queues a call, after `delay` ms. */
  enqueue (job: Job, delay: number): void {
    if (this.jobs.length + this.running >= QUEUE_LIMIT) {
      this.stats.dropped++
      return
    }
    if (delay > 0) {
      setTimeout(() => this.push(job), delay).unref()
      return
    }
    this.push(job)
  }

  private push (job: Job): void {
    this.jobs.push(job)
    this.stats.queued = this.jobs.length
    // Sending starts after the current turn, in which the answer is written.
    if (this.pumpScheduled) return
    this.pumpScheduled = true
    setImmediate(() => {
      this.pumpScheduled = false
      this.pump()
    })
  }

  private pump (): void {
    while (this.running < CONCURRENCY && this.jobs.length > 0) {
      const job = this.jobs.shift() as Job
      this.stats.queued = this.jobs.length
      this.running++
      this.send(job).finally(() => {
        this.running--
        this.pump()
      }).catch(() => {})
    }
  }

  private async send (job: Job): Promise<void> {
    let url = ''
    try {
      const rendered = job.render()
      url = rendered.url
      const res = await request(url, {
        method: job.method as 'POST',
        headers: job.headers,
        body: rendered.body ?? null,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
      await res.body.dump()
      if (res.statusCode >= 400) {
        this.stats.failed++
        this.log.warn({ url, statusCode: res.statusCode }, 'webhook answered with an error')
        return
      }
      this.stats.sent++
    } catch (err) {
      this.stats.failed++
      this.log.warn({ url, err: err instanceof Error ? err.message : String(err) }, 'webhook failed')
    }
  }
}

/** A transaction's `postServe` calls, their bodies and URLs compiled as templates. */
export interface CompiledPostServe {
  /**
   * Queues every call for this request; `after` is the answer's delay. `context` is called once,
   * when the first call is sent (off the request's turn).
   */
  fire: (queue: PostServeQueue, context: () => Record<string, unknown>, after: number) => void
}

/** Compiles `postServe`; reports template errors at their pointer. */
export function compilePostServe (calls: PostServeCall[] | undefined, engine: TemplateEngine, report: ReportProblem): CompiledPostServe | null {
  if (calls === undefined || calls.length === 0) return null
  const compile = (source: string, pointer: string): TemplateFn => {
    try {
      return engine.compile(source)
    } catch (err) {
      const line = err instanceof TemplateSyntaxError && err.line !== null ? ` (line ${err.line} of the template)` : ''
      report(pointer, `template error${line}: ${err instanceof Error ? err.message : String(err)}`)
      return () => ''
    }
  }
  const compiled = calls.map((call, i) => ({
    url: call.url.includes('{{') ? compile(call.url, `/dsl/responseDsl/postServe/${i}/url`) : () => call.url,
    method: call.method,
    headers: Object.fromEntries((call.headers ?? []).map((h) => [h.name, h.value])),
    body: call.body === undefined ? null : compile(call.body, `/dsl/responseDsl/postServe/${i}/body`),
    delay: call.delay ?? 0,
  }))
  return {
    fire (queue, context, after) {
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

export type { MatchRequest }
