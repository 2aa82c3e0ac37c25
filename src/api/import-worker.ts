import { parentPort, workerData } from 'node:worker_threads'
import { importFile, type ImportContext, type ImportInput } from '../../importers/index.js'
import { isUnderstudyError } from '../errors/index.js'

/*
 * The worker thread of import-off-thread.ts: imports one file and posts the result, or the error
 * as plain data (an UnderstudyError does not survive structured cloning as itself).
 */
const { input, ctx } = workerData as { input: ImportInput; ctx: ImportContext }
try {
  const result = importFile({ bytes: input.bytes, fileName: input.fileName }, ctx)
  parentPort?.postMessage({ ok: true, result })
} catch (err) {
  if (isUnderstudyError(err)) {
    parentPort?.postMessage({ ok: false, error: { code: err.code, message: err.message, details: err.details } })
  } else {
    parentPort?.postMessage({ ok: false, error: { code: 'ERR_INTERNAL', message: err instanceof Error ? err.message : String(err) } })
  }
}
