import { parentPort, workerData } from 'node:worker_threads'
import type { ImportContext, ImportInput } from '../../importers/index.js'
import { isUnderstudyError } from '../errors/index.js'
import { lowerThreadPriority } from '../config/index.js'
import { runImportJob, transferablesOf, type ImportJob } from './import-jobs.js'

/*
 * The worker thread of import-off-thread.ts: runs one import job and posts its answer (its
 * buffers transferred, not copied), or the error as plain data (an UnderstudyError does not
 * survive structured cloning as itself).
 */
// An import is background work: where it shares a core with the event loop, requests go first.
lowerThreadPriority()
const { job, input, ctx } = workerData as { job: ImportJob; input: ImportInput; ctx: ImportContext }
try {
  const result = runImportJob(job, { bytes: input.bytes, fileName: input.fileName }, ctx)
  parentPort?.postMessage({ ok: true, result }, transferablesOf(result))
} catch (err) {
  if (isUnderstudyError(err)) {
    parentPort?.postMessage({ ok: false, error: { code: err.code, message: err.message, details: err.details } })
  } else {
    parentPort?.postMessage({ ok: false, error: { code: 'ERR_INTERNAL', message: err instanceof Error ? err.message : String(err) } })
  }
}
