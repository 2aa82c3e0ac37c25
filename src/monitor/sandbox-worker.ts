import { parentPort } from 'node:worker_threads'
import { evaluateScript, warmUp, type ScriptInput, type ScriptLimits } from './sandbox-engine.js'

/** The sandbox worker: evaluates one script at a time, in the order received. */
interface Job {
  id: number
  source: string
  input: ScriptInput
  limits: ScriptLimits
}

// Jobs wait for the warm-up, which the host's watchdog does not count (it starts at `started`).
let chain: Promise<void> = warmUp().catch(() => {})
parentPort?.on('message', (job: Job) => {
  chain = chain.then(async () => {
    // The host's watchdog counts from here: loading the worker and the engine is not the script's time.
    parentPort?.postMessage({ id: job.id, started: true })
    const outcome = await evaluateScript(job.source, job.input, job.limits)
    parentPort?.postMessage({ id: job.id, outcome })
  })
})
