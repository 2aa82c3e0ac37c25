import { Worker } from 'node:worker_threads'
import { importFile, type ImportContext, type ImportInput, type ImportResult } from '../../importers/index.js'
import { createError, UnderstudyError, type ErrorCode, type ErrorDetail } from '../errors/index.js'

/**
 * Files at least this large are imported in a worker thread. Parsing and converting a 50 MB HAR
 * took seconds of one thread: on the event loop it stalled every other API request meanwhile
 * (issue 8). Smaller files import inline, where a thread's start-up (tens of ms) would cost more
 * than it saves.
 */
export const OFF_THREAD_BYTES = 1024 * 1024

// Under the test runner the sources are TypeScript: the worker then registers tsx before loading
// its module (`--import` in a worker's execArgv is not honoured by Node 20).
const fromSource = import.meta.url.endsWith('.ts')
const workerUrl = new URL(fromSource ? './import-worker.ts' : './import-worker.js', import.meta.url)

function startWorker (workerData: unknown): Worker {
  if (!fromSource) return new Worker(workerUrl, { workerData })
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}) })`
  return new Worker(bootstrap, { eval: true, workerData })
}

/**
 * `importFile`, run in a worker thread for large inputs so that the event loop keeps answering.
 * Throws the importer's own errors (same codes, messages and details).
 *
 * @example
 * const result = await importOffThread({ bytes, fileName: 'capture.har' }, { maxBytes })
 */
export async function importOffThread (input: ImportInput, ctx: ImportContext = {}): Promise<ImportResult> {
  if (input.bytes.byteLength < OFF_THREAD_BYTES) return importFile(input, ctx)
  return await new Promise<ImportResult>((resolve, reject) => {
    const worker = startWorker({ input: { bytes: input.bytes, fileName: input.fileName }, ctx })
    let settled = false
    worker.once('message', (message: WorkerAnswer) => {
      settled = true
      if (message.ok) resolve(message.result)
      else reject(errorOf(message.error))
      worker.terminate().catch(() => {})
    })
    worker.once('error', (err) => {
      if (settled) return
      settled = true
      reject(createError('ERR_INTERNAL', [], { cause: err }))
    })
    worker.once('exit', (code) => {
      if (settled) return
      settled = true
      reject(createError('ERR_INTERNAL', [], { cause: new Error(`import worker exited with ${code}`) }))
    })
  })
}

type WorkerAnswer =
  | { ok: true; result: ImportResult }
  | { ok: false; error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] } }

function errorOf (error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] }): UnderstudyError {
  if (error.code === 'ERR_INTERNAL') return createError('ERR_INTERNAL', [], { cause: new Error(error.message) })
  return new UnderstudyError(error.code, error.message, error.details)
}
