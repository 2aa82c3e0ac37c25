import { parentPort, type MessagePort } from 'node:worker_threads'
import { importPending, type FinishInput, type ImportContext, type ImportInput, type ImportResult, type ImportWarning } from '../../importers/index.js'
import { isUnderstudyError } from '../errors/index.js'
import { lowerThreadPriority } from '../config/index.js'
import { writeThroughOwnConnection, type OwnWriteTarget } from '../store/index.js'
import { runImportJob, transferablesOf, type ImportJob } from './import-jobs.js'
import { serviceGone } from './v1/catalog-lookups.js'
import { packDraftsInRuns, packPendingInRuns, type PackedDrafts } from './v1/import-drafts.js'
import { UploadStorer, type UploadTarget } from './v1/upload-store.js'

/*
 * The worker thread of import-off-thread.ts. It is started before its work is known (while a
 * large upload's body is still arriving), then answers the messages of its one client in order:
 *
 * - `job`: runs one import job and posts its answer (its buffers transferred, not copied);
 * - `upload`: imports every file of an upload, keeps the results, and posts their warnings (a
 *   large HAR is kept before the DSL's validation: importers `importPending`);
 * - `pack`: validates what is not yet, compiles and packs what `upload` kept, a run at a time,
 *   onto a port (to the writer);
 * - `write` (another worker, the writer): stores the runs arriving on its port through a
 *   database connection of its own, while the event loop holds the store's write mutex
 *   (Store.writeElsewhere), and posts the answer's JSON. The two threads work at once: packing
 *   and inserting each take seconds for 90,000 transactions (issue 8).
 *
 * Errors are posted as plain data: an UnderstudyError does not survive structured cloning as itself.
 */
// An import is background work: where it shares a core with the event loop, requests go first.
lowerThreadPriority()

export type ImportWorkerRequest =
  | { type: 'job'; job: ImportJob; input: ImportInput; ctx: ImportContext }
  | { type: 'upload'; inputs: ImportInput[]; ctx: ImportContext }
  | { type: 'pack'; runs: MessagePort }
  | { type: 'write'; target: OwnWriteTarget; upload: UploadTarget; runs: MessagePort }

/** What `upload` answers: each file's transaction count and warnings, in order. */
export interface UploadImported { files: Array<{ file: string; count: number; warnings: ImportWarning[] }> }

/** What goes from the packer to the writer: runs, then the end, or an abort (nothing is to be kept). */
type RunMessage = { run: PackedDrafts } | { end: true } | { abort: true }

/** Transactions packed and sent to the writer at a time (about 1.5 MB of a HAR's). */
const RUN_LENGTH = 2000

/** What `upload` kept for `pack`: each file's import, validated or not yet (importers `importPending`). */
let kept: Array<{ file: string } & ({ result: ImportResult } | { pending: FinishInput })> | null = null

async function answer (request: ImportWorkerRequest): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (request.type) {
    case 'job': {
      const result = runImportJob(request.job, request.input, request.ctx)
      return { result, transfer: transferablesOf(result) }
    }
    case 'upload': {
      kept = request.inputs.map((input) => ({ file: input.fileName, ...importPending(input, request.ctx) }))
      const files = kept.map((imported) => 'result' in imported
        ? { file: imported.file, count: imported.result.document.transactions.length, warnings: imported.result.warnings }
        : { file: imported.file, count: imported.pending.transactions.length, warnings: imported.pending.warnings })
      return { result: { files } satisfies UploadImported, transfer: [] }
    }
    case 'pack': {
      const imported = kept ?? []
      kept = null
      const { runs } = request
      try {
        const emit = (run: PackedDrafts): void => runs.postMessage({ run } satisfies RunMessage, run.packed.map((b) => b.buffer as ArrayBuffer))
        for (const file of imported) {
          if ('result' in file) packDraftsInRuns(file.file, file.result, RUN_LENGTH, emit)
          else packPendingInRuns(file.file, file.pending, RUN_LENGTH, emit)
        }
        runs.postMessage({ end: true } satisfies RunMessage)
      } catch (err) {
        runs.postMessage({ abort: true } satisfies RunMessage)
        throw err
      } finally {
        runs.close()
      }
      return { result: null, transfer: [] }
    }
    case 'write': {
      const { target, upload, runs } = request
      const resultJson = await writeThroughOwnConnection(target, async (tx) => {
        const storer = new UploadStorer(tx, upload)
        for await (const message of messagesOf(runs)) {
          if ('abort' in message) throw new Error('the upload was abandoned')
          if ('end' in message) return storer.done()
          await storer.add(message.run)
        }
        throw new Error('the packer went away')
      }).catch((err: unknown) => { throw serviceGone(err, upload.serviceId) })
      // the pieces own their ArrayBuffers (never Node's pool): hand them over without a copy
      return { result: resultJson, transfer: [...new Set(resultJson.map((piece) => piece.buffer as ArrayBuffer))] }
    }
  }
}

/** The messages of a port, in order, until it closes (its other end closed or gone). */
async function * messagesOf (port: MessagePort): AsyncGenerator<RunMessage> {
  const queue: RunMessage[] = []
  let closed = false
  let wake: (() => void) | null = null
  port.on('message', (message: RunMessage) => { queue.push(message); wake?.() })
  port.once('close', () => { closed = true; wake?.() })
  try {
    for (;;) {
      const next = queue.shift()
      if (next !== undefined) yield next
      else if (closed) return
      else await new Promise<void>((resolve) => { wake = resolve })
      wake = null
    }
  } finally {
    port.close()
  }
}

parentPort?.on('message', (request: ImportWorkerRequest) => {
  answer(request).then(({ result, transfer }) => {
    parentPort?.postMessage({ ok: true, result }, transfer)
  }, (err: unknown) => {
    if (isUnderstudyError(err)) {
      parentPort?.postMessage({ ok: false, error: { code: err.code, message: err.message, details: err.details } })
    } else {
      parentPort?.postMessage({ ok: false, error: { code: 'ERR_INTERNAL', message: err instanceof Error ? err.message : String(err) } })
    }
  })
})
