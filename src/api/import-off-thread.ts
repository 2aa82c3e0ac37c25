import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import type { ImportContext, ImportInput, ImportResult } from '../../importers/index.js'
import { createError, UnderstudyError, type ErrorCode, type ErrorDetail } from '../errors/index.js'
import type { Store } from '../store/index.js'
import { ownsBuffer, runImportJob, type ImportJob, type ImportJobOutput } from './import-jobs.js'
import type { ImportWorkerRequest, UploadImported } from './import-worker.js'
import type { UploadTarget } from './v1/upload-store.js'

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

type WorkerAnswer =
  | { ok: true; result: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] } }

/**
 * An import worker thread (import-worker.ts) and its requests, answered one at a time in order.
 * Starting one takes tens of ms and loading the importers a few hundred more: a large upload
 * starts its worker when the request arrives, so that this overlaps the body's transfer.
 * `close` ends the thread (whatever it still holds); call it when done, on every path.
 *
 * @example
 * const worker = ImportWorker.start()
 * try { await worker.request({ type: 'job', job: 'document', input, ctx }) } finally { worker.close() }
 */
export class ImportWorker {
  readonly #worker: Worker
  #waiting: { resolve: (answer: WorkerAnswer) => void; reject: (err: Error) => void } | null = null
  #failure: Error | null = null

  private constructor () {
    this.#worker = fromSource
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}) })`, { eval: true })
      : new Worker(workerUrl)
    this.#worker.on('message', (answer: WorkerAnswer) => {
      const waiting = this.#waiting
      this.#waiting = null
      waiting?.resolve(answer)
    })
    this.#worker.once('error', (err) => this.#fail(err))
    this.#worker.once('exit', (code) => this.#fail(new Error(`import worker exited with ${code}`)))
  }

  static start (): ImportWorker {
    return new ImportWorker()
  }

  /**
   * Posts a request (moving `transfer`'s buffers: the caller must not read them afterwards) and
   * returns its result. Throws the worker's error: the importers' own codes, messages and details.
   */
  async request<T> (request: ImportWorkerRequest, transfer: Array<ArrayBuffer | MessagePort> = []): Promise<T> {
    if (this.#failure !== null) throw internal(this.#failure)
    if (this.#waiting !== null) throw new Error('an import worker answers one request at a time')
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      this.#waiting = { resolve, reject }
      this.#worker.postMessage(request, transfer)
    })
    if (!answer.ok) throw errorOf(answer.error)
    return answer.result as T
  }

  close (): void {
    this.#failure ??= new Error('import worker closed')
    this.#worker.terminate().catch(() => {})
  }

  #fail (err: Error): void {
    this.#failure ??= err
    const waiting = this.#waiting
    this.#waiting = null
    waiting?.reject(internal(err))
  }
}

/**
 * `importFile`, run in a worker thread for large inputs so that the event loop keeps answering.
 * Throws the importer's own errors (same codes, messages and details).
 *
 * @example
 * const result = await importOffThread({ bytes, fileName: 'capture.har' }, { maxBytes })
 */
export async function importOffThread (input: ImportInput, ctx: ImportContext = {}): Promise<ImportResult> {
  return await runOffThread('document', { ...input, movable: false }, ctx)
}

/**
 * An input whose bytes may be moved to the worker (`movable`: their ArrayBuffer belongs to them
 * alone, like an UploadedFile's when `exclusive`); by default, only when the view covers its whole
 * ArrayBuffer. Moved bytes must not be read afterwards.
 */
export type MovableInput = ImportInput & { movable?: boolean }

/**
 * The convert answer of an uploaded file, prepared in a worker thread for large inputs. The
 * input's bytes are moved to the worker, not copied, when they may be (MovableInput): the caller
 * must not read them afterwards.
 *
 * @example
 * const { count, json } = await convertForUpload({ bytes: file.bytes, fileName: file.filename, movable: file.exclusive }, { maxBytes })
 */
export async function convertForUpload (input: MovableInput, ctx: ImportContext): Promise<ImportJobOutput['convert']> {
  return await runOffThread('convert', input, ctx)
}

async function runOffThread<J extends ImportJob> (job: J, input: MovableInput, ctx: ImportContext): Promise<ImportJobOutput[J]> {
  if (input.bytes.byteLength < OFF_THREAD_BYTES) return runImportJob(job, input, ctx)
  const worker = ImportWorker.start()
  try {
    return await worker.request<ImportJobOutput[J]>({ type: 'job', job, input: { bytes: input.bytes, fileName: input.fileName }, ctx }, transferOf([input]))
  } finally {
    worker.close()
  }
}

/** What `uploadInWorkers` gives back: the answer's `result` JSON and each file's warnings. */
export interface UploadedInWorkers extends UploadImported {
  resultJson: Buffer[]
}

/** The two threads of a large upload: one imports and packs, the other stores. */
export interface UploadWorkers {
  importer: ImportWorker
  writer: ImportWorker
}

/**
 * Starts the threads of a large upload (`uploadInWorkers`), to call as the request arrives: they
 * load their modules while its body is transferred. Close both when done.
 *
 * @example
 * const workers = startUploadWorkers(); try { ... } finally { closeUploadWorkers(workers) }
 */
export function startUploadWorkers (): UploadWorkers {
  return { importer: ImportWorker.start(), writer: ImportWorker.start() }
}

export function closeUploadWorkers ({ importer, writer }: UploadWorkers): void {
  importer.close()
  writer.close()
}

/**
 * A large upload stored from worker threads: the importer imports every file; then, holding the
 * store's write mutex (`store.writeElsewhere`), it compiles and packs the transactions a run at a
 * time while the writer inserts each run through its own database connection, commits, and hands
 * back the answer's JSON. The event loop only moves buffers: none of the import, the inserts or
 * the COMMIT runs on it (issue 8). The inputs' bytes are moved to the importer. Throws the
 * importers' errors (naming the file) and ERR_API_NOT_FOUND when the service is deleted
 * meanwhile; nothing is stored then.
 *
 * @example
 * const { resultJson, files } = await uploadInWorkers(startUploadWorkers(), store, inputs, { maxBytes }, target)
 */
export async function uploadInWorkers ({ importer, writer }: UploadWorkers, store: Store, inputs: readonly MovableInput[], ctx: ImportContext, upload: UploadTarget): Promise<UploadedInWorkers> {
  const request: ImportWorkerRequest = { type: 'upload', inputs: inputs.map((i) => ({ bytes: i.bytes, fileName: i.fileName })), ctx }
  const { files } = await importer.request<UploadImported>(request, transferOf(inputs))
  const resultJson = await store.writeElsewhere(async (target) => {
    const { port1, port2 } = new MessageChannel()
    const written = writer.request<Buffer[]>({ type: 'write', target, upload, runs: port2 }, [port2])
    const packed = importer.request<null>({ type: 'pack', runs: port1 }, [port1])
    const [pack, write] = await Promise.allSettled([packed, written])
    // a transaction that could never be served aborts the write: the packer's error is the answer
    if (pack.status === 'rejected') throw pack.reason
    if (write.status === 'rejected') throw write.reason
    return write.value
  })
  return { files, resultJson: resultJson.map((piece) => Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)) }
}

/** The inputs' buffers that can move to a worker without a copy (each at most once). */
function transferOf (inputs: readonly MovableInput[]): ArrayBuffer[] {
  return [...new Set(inputs.filter((i) => i.movable ?? ownsBuffer(i.bytes)).map((i) => i.bytes.buffer as ArrayBuffer))]
}

function internal (err: Error): UnderstudyError {
  return createError('ERR_INTERNAL', [], { cause: err })
}

function errorOf (error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] }): UnderstudyError {
  if (error.code === 'ERR_INTERNAL') return createError('ERR_INTERNAL', [], { cause: new Error(error.message) })
  return new UnderstudyError(error.code, error.message, error.details)
}
