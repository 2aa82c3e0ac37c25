import type { Worker } from 'node:worker_threads'
import { spawnWorker } from '../config/index.js'
import type { ScriptInput, ScriptLimits, ScriptOutcome } from './sandbox-engine.js'

export type { ScriptInput, ScriptLimits, ScriptRequest, ScriptResponse } from './sandbox-engine.js'

/*
 * Scripts are evaluated off the main thread, in one worker running QuickJS (sandbox-engine.ts).
 * The engine's own deadline stops a looping script; a watchdog here terminates the worker when a
 * script overruns that deadline by GRACE_MS (a single native operation inside QuickJS, such as
 * filling a huge array near the memory limit, is not interruptible), and a new worker takes the
 * next script. The platform's event loop is never held by a script.
 */
const GRACE_MS = 1500

interface Pending {
  id: number
  source: string
  input: ScriptInput
  limits: ScriptLimits
  resolve: (outcome: ScriptOutcome) => void
  timer: NodeJS.Timeout | null
}

function spawnSandbox(): Worker {
  return spawnWorker(import.meta.url, './sandbox-worker', {
    resourceLimits: { maxOldGenerationSizeMb: 128 },
  })
}

class SandboxPool {
  #worker: Worker | null = null
  #nextId = 1
  /** Jobs sent to the worker, in order; the first is the one running. */
  readonly #inFlight: Pending[] = []

  run(source: string, input: ScriptInput, limits: ScriptLimits): Promise<ScriptOutcome> {
    return new Promise((resolve) => {
      const job: Pending = { id: this.#nextId++, source, input, limits, resolve, timer: null }
      this.#inFlight.push(job)
      this.#send(job)
    })
  }

  #spawn(): Worker {
    const worker = spawnSandbox()
    worker.on('message', (msg: { id: number; started?: true; outcome?: ScriptOutcome }) => {
      if (msg.started === true) this.#started(msg.id)
      else if (msg.outcome !== undefined) this.#settle(msg.id, msg.outcome)
    })
    worker.on('error', (err) => this.#crash(worker, `the script engine failed: ${err.message}`))
    worker.on('exit', () => this.#crash(worker, 'the script engine stopped'))
    return worker
  }

  #send(job: Pending): void {
    if (this.#worker === null) this.#worker = this.#spawn()
    this.#worker.ref()
    this.#worker.postMessage({
      id: job.id,
      source: job.source,
      input: job.input,
      limits: job.limits,
    })
  }

  /** The watchdog of the running script, armed when the worker starts it. */
  #arm(job: Pending): void {
    job.timer = setTimeout(() => this.#overrun(job), job.limits.timeMs + GRACE_MS)
    job.timer.unref()
  }

  #started(id: number): void {
    const job = this.#inFlight[0]
    if (job !== undefined && job.id === id && job.timer === null) this.#arm(job)
  }

  #settle(id: number, outcome: ScriptOutcome): void {
    const job = this.#inFlight[0]
    if (job === undefined || job.id !== id) return
    this.#inFlight.shift()
    if (job.timer !== null) clearTimeout(job.timer)
    job.resolve(outcome)
    if (this.#inFlight.length === 0) this.#worker?.unref()
  }

  /** The running script ignored its deadline: the worker is replaced, the queued scripts resent. */
  #overrun(job: Pending): void {
    if (this.#inFlight[0] !== job) return
    const worker = this.#worker
    this.#worker = null
    this.#inFlight.shift()
    job.resolve(this.#failed(job, 'the script was stopped: it ran longer than the time limit'))
    if (worker !== null) {
      worker.removeAllListeners('exit')
      worker.removeAllListeners('message')
      worker.on('error', () => {})
      worker.terminate().catch(() => {})
    }
    this.#resend()
  }

  #crash(worker: Worker, reason: string): void {
    if (this.#worker !== worker) return
    this.#worker = null
    const job = this.#inFlight.shift()
    if (job !== undefined) {
      if (job.timer !== null) clearTimeout(job.timer)
      job.resolve(this.#failed(job, reason))
    }
    this.#resend()
  }

  #resend(): void {
    for (const pending of this.#inFlight) {
      if (pending.timer !== null) clearTimeout(pending.timer)
      pending.timer = null
      this.#send(pending)
    }
  }

  #failed(job: Pending, error: string): ScriptOutcome {
    return {
      ok: false,
      error,
      output: '',
      variables: job.input.variables,
      request: job.input.request,
    }
  }

  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = null
    if (worker !== null) {
      worker.removeAllListeners('exit')
      await worker.terminate()
    }
  }
}

let pool: SandboxPool | null = null

/**
 * Runs one script in the sandbox. Never throws for anything the script does: errors, failed
 * asserts, the time and memory limits all come back as `ok: false` with the reason.
 */
export async function runScript(
  source: string,
  input: ScriptInput,
  limits: ScriptLimits,
): Promise<ScriptOutcome> {
  pool ??= new SandboxPool()
  return await pool.run(source, input, limits)
}

/** Stops the sandbox worker (a later script starts a new one). */
export async function closeSandbox(): Promise<void> {
  const current = pool
  pool = null
  await current?.close()
}
