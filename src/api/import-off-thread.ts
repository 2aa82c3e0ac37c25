import { Worker } from 'node:worker_threads'
import type { ImportContext, ImportInput, ImportResult } from '../../importers/index.js'
import { createError, UnderstudyError, type ErrorCode, type ErrorDetail } from '../errors/index.js'
import { ownsBuffer, runImportJob, type ImportJob, type ImportJobOutput } from './import-jobs.js'

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

function startWorker (workerData: unknown, transferList: ArrayBuffer[]): Worker {
  if (!fromSource) return new Worker(workerUrl, { workerData, transferList })
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}) })`
  return new Worker(bootstrap, { eval: true, workerData, transferList })
}

/**
 * `importFile`, run in a worker thread for large inputs so that the event loop keeps answering.
 * Throws the importer's own errors (same codes, messages and details).
 *
 * @example
 * const result = await importOffThread({ bytes, fileName: 'capture.har' }, { maxBytes })
 */
export async function importOffThread (input: ImportInput, ctx: ImportContext = {}): Promise<ImportResult> {
  return await runOffThread('document', input, ctx, false)
}

/**
 * An import for an upload (`store`: drafts to store, `convert`: the convert answer), prepared in
 * a worker thread for large inputs. The input's bytes are moved to the worker, not copied, when
 * they own their memory: the caller must not read them afterwards.
 *
 * @example
 * const { count, packed } = await importForUpload('store', { bytes: file.bytes, fileName: file.filename }, { maxBytes })
 */
export async function importForUpload<J extends 'store' | 'convert'> (job: J, input: ImportInput, ctx: ImportContext): Promise<ImportJobOutput[J]> {
  return await runOffThread(job, input, ctx, true)
}

async function runOffThread<J extends ImportJob> (job: J, input: ImportInput, ctx: ImportContext, move: boolean): Promise<ImportJobOutput[J]> {
  if (input.bytes.byteLength < OFF_THREAD_BYTES) return runImportJob(job, input, ctx)
  const transfer = move && ownsBuffer(input.bytes) ? [input.bytes.buffer as ArrayBuffer] : []
  return await new Promise<ImportJobOutput[J]>((resolve, reject) => {
    const worker = startWorker({ job, input: { bytes: input.bytes, fileName: input.fileName }, ctx }, transfer)
    let settled = false
    worker.once('message', (message: WorkerAnswer<J>) => {
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

type WorkerAnswer<J extends ImportJob> =
  | { ok: true; result: ImportJobOutput[J] }
  | { ok: false; error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] } }

function errorOf (error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] }): UnderstudyError {
  if (error.code === 'ERR_INTERNAL') return createError('ERR_INTERNAL', [], { cause: new Error(error.message) })
  return new UnderstudyError(error.code, error.message, error.details)
}
