import { parentPort, type MessagePort } from 'node:worker_threads'
import type { ImportContext, ImportInput } from '../../../../importers/index.js'
import { toWireError } from '../../../errors/index.js'
import { lowerThreadPriority } from '../../../config/index.js'
import { writeThroughOwnConnection, type OwnWriteTarget } from '../../../store/index.js'
import { runImportJob, transferablesOf, type ImportJob } from './jobs.js'
import {
  explainFiles,
  streamFile,
  WRITER_BACKLOG_RUNS,
  type ImportedFile,
  type RunMessage,
} from './stream.js'
import { serviceGone } from '../catalog-lookups.js'
import { packRawRun } from './raw-runs.js'
import { UploadStorer, type UploadTarget } from './store.js'

/*
 * The worker thread of off-thread.ts. It is started before its work is known (while a
 * large upload's body is still arriving, or as the platform's spare), then answers the messages
 * of its one client in order:
 *
 * - `job`: runs one import job and posts its answer (its buffers transferred, not copied);
 * - `stream`: imports every file of an upload and sends its transactions onto a port (to the
 *   writer) as they are made, then posts each file's count and warnings. A large HAR goes out
 *   run by run while it is still read, not validated (RawRun: the writer validates it), then its
 *   order (`placed`); any other file is validated, compiled and packed here (`run`);
 * - `explain`: after the writer refused a streamed run, imports the files of the last `stream`
 *   again the usual way, to throw the exact error (its places are the whole file's);
 * - `write` (another worker, the writer): validates and stores what arrives on its port through
 *   a database connection of its own, while the event loop holds the store's write mutex
 *   (Store.writeElsewhere), and posts the answer's JSON. The two threads work at once: reading
 *   and storing 90,000 transactions each take seconds.
 *
 * Errors are posted as plain data (toWireError): an UnderstudyError does not survive structured
 * cloning as itself.
 */
// An import is background work: where it shares a core with the event loop, requests go first.
lowerThreadPriority()

export type ImportWorkerRequest =
  | { type: 'job'; job: ImportJob; input: ImportInput; ctx: ImportContext }
  | {
      type: 'stream'
      inputs: ImportInput[]
      ctx: ImportContext
      runs: MessagePort
      progress: SharedArrayBuffer
    }
  | { type: 'explain' }
  | {
      type: 'write'
      target: OwnWriteTarget
      upload: UploadTarget
      runs: MessagePort
      progress: SharedArrayBuffer
    }

/** What `stream` answers: each file's transaction count and warnings, in order. */
export interface UploadImported {
  files: ImportedFile[]
}

/** The files of the last `stream`, for `explain`. */
let streamed: { inputs: ImportInput[]; ctx: ImportContext } | null = null

async function answer(
  request: ImportWorkerRequest,
): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (request.type) {
    case 'job': {
      const result = runImportJob(request.job, request.input, request.ctx)
      return { result, transfer: transferablesOf(result) }
    }
    case 'stream': {
      const { inputs, ctx, runs } = request
      streamed = { inputs, ctx }
      const stored = new Int32Array(request.progress)
      let sent = 0
      const send = (message: RunMessage, transfer: readonly Uint8Array[] = []): void => {
        if ('raw' in message || 'held' in message) sent++
        runs.postMessage(
          message,
          transfer.map((b) => b.buffer as ArrayBuffer),
        )
      }
      const writer = { send, behind: () => sent - Atomics.load(stored, 0) >= WRITER_BACKLOG_RUNS }
      try {
        const files = inputs.map((input) =>
          streamFile(input, ctx, writer, () => explainFiles(inputs, ctx)),
        )
        send({ end: true })
        return { result: { files } satisfies UploadImported, transfer: [] }
      } catch (err) {
        send({ abort: true })
        throw err
      } finally {
        runs.close()
      }
    }
    case 'explain': {
      const files = streamed ?? { inputs: [], ctx: {} }
      streamed = null
      explainFiles(files.inputs, files.ctx)
      return { result: null, transfer: [] }
    }
    case 'write': {
      const { target, upload, runs } = request
      const stored = new Int32Array(request.progress)
      const resultJson = await writeThroughOwnConnection(target, async (tx) => {
        const storer = new UploadStorer(tx, upload)
        for await (const message of messagesOf(runs)) {
          if ('abort' in message) throw new Error('the upload was abandoned')
          if ('end' in message) return storer.done()
          if ('run' in message) await storer.add(message.run)
          else if ('raw' in message || 'held' in message) {
            await storer.hold('raw' in message ? packRawRun(message.raw) : message.held)
            Atomics.add(stored, 0, 1)
          } else if ('placed' in message) await storer.place(message.placed.order)
          else await storer.drop()
        }
        throw new Error('the importer went away')
      }).catch((err: unknown) => {
        throw serviceGone(err, upload.serviceId)
      })
      // the pieces own their ArrayBuffers (never Node's pool): hand them over without a copy
      return {
        result: resultJson,
        transfer: [...new Set(resultJson.map((piece) => piece.buffer as ArrayBuffer))],
      }
    }
  }
}

/** The messages of a port, in order, until it closes (its other end closed or gone). */
async function* messagesOf(port: MessagePort): AsyncGenerator<RunMessage> {
  const queue: RunMessage[] = []
  let closed = false
  let wake: (() => void) | null = null
  port.on('message', (message: RunMessage) => {
    queue.push(message)
    wake?.()
  })
  port.once('close', () => {
    closed = true
    wake?.()
  })
  try {
    for (;;) {
      const next = queue.shift()
      if (next !== undefined) yield next
      else if (closed) return
      else {
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
      wake = null
    }
  } finally {
    port.close()
  }
}

parentPort?.on('message', (request: ImportWorkerRequest) => {
  answer(request).then(
    ({ result, transfer }) => {
      parentPort?.postMessage({ ok: true, result }, transfer)
    },
    (err: unknown) => {
      parentPort?.postMessage({ ok: false, error: toWireError(err, { sameProcess: true }) })
    },
  )
})
