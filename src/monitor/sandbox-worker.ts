import { parentPort } from 'node:worker_threads'
import { evaluateScript, type ScriptInput, type ScriptLimits } from './sandbox-engine.js'

/** The sandbox worker: evaluates one script at a time, in the order received. */
interface Job {
  id: number
  source: string
  input: ScriptInput
  limits: ScriptLimits
}

let chain: Promise<void> = Promise.resolve()
parentPort?.on('message', (job: Job) => {
  chain = chain.then(async () => {
    // The host's watchdog counts from here: loading the worker and the engine is not the script's time.
    parentPort?.postMessage({ id: job.id, started: true })
    const outcome = await evaluateScript(job.source, job.input, job.limits)
    parentPort?.postMessage({ id: job.id, outcome })
  })
})
