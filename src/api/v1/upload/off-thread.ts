import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads'
import { spawnWorker } from '../../../config/index.js'
import type { ImportContext, ImportInput } from '../../../../importers/index.js'
import {
  createError,
  fromWireError,
  isUnderstudyError,
  type UnderstudyError,
  type WireError,
} from '../../../errors/index.js'
import type { Store } from '../../../store/index.js'
import { ownsBuffer, runImportJob, type ImportJob, type ImportJobOutput } from './jobs.js'
import type { ImportWorkerRequest, UploadImported } from './worker.js'
import type { UploadTarget } from './store.js'

/**
 * Files at least this large are imported in a worker thread. Parsing and converting a 50 MB HAR
 * took seconds of one thread: on the event loop it stalled every other API request meanwhile.
 * Smaller files import inline, where a thread's start-up (tens of ms) would cost more
 * than it saves.
 */
export const OFF_THREAD_BYTES = 1024 * 1024

/**
 * The young generation of an import thread's heap, in MiB. An import makes millions of objects
 * that die young (each HAR entry's parse tree, each transaction's text): a young generation of
 * 64 MiB, rather than V8's default, halved the time these threads spent collecting garbage (from
 * about 0.9 to 0.5 s for a 90,000-transaction upload) and took about 0.8 s off it; 128 MiB cost
 * more memory and was slower (bench/README.md).
 */
const YOUNG_GENERATION_MB = 64

type WorkerAnswer = { ok: true; result: unknown } | { ok: false; error: WireError }

/**
 * An import worker thread (worker.ts) and its requests, answered one at a time in order.
 * Starting one takes tens of ms and loading the importers a few hundred more: a large upload
 * starts its worker when the request arrives, so that this overlaps the body's transfer.
 * `close` ends the thread (whatever it still holds); call it when done, on every path.
 *
 * @example
 * const worker = new ImportWorker()
 * try { await worker.request({ type: 'job', job: 'document', input, ctx }) } finally { worker.close() }
 */
class ImportWorker {
  readonly #worker: Worker
  readonly #onClose: (() => void) | undefined
  #waiting: { resolve: (answer: WorkerAnswer) => void; reject: (err: Error) => void } | null = null
  #failure: Error | null = null

  /** Starts a worker; `onClose` runs once when it is closed (not when it fails on its own). */
  constructor(onClose?: () => void) {
    this.#onClose = onClose
    const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }
    this.#worker = spawnWorker(import.meta.url, './worker', { resourceLimits })
    this.#worker.on('message', (answer: WorkerAnswer) => {
      const waiting = this.#waiting
      this.#waiting = null
      waiting?.resolve(answer)
    })
    this.#worker.once('error', (err) => this.#fail(err))
    this.#worker.once('exit', (code) => this.#fail(new Error(`import worker exited with ${code}`)))
  }

  /** False once the thread failed, exited or was closed: it answers no request any more. */
  get usable(): boolean {
    return this.#failure === null
  }

  /** Whether the thread keeps the process alive (Worker `ref`/`unref`): an idle spare does not. */
  keepsProcessAlive(keeps: boolean): void {
    if (keeps) this.#worker.ref()
    else this.#worker.unref()
  }

  /**
   * Posts a request (moving `transfer`'s buffers: the caller must not read them afterwards) and
   * returns its result. Throws the worker's error: the importers' own codes, messages and details.
   */
  async request<T>(
    request: ImportWorkerRequest,
    transfer: Array<ArrayBuffer | MessagePort> = [],
  ): Promise<T> {
    if (this.#failure !== null) throw internal(this.#failure)
    if (this.#waiting !== null) throw new Error('an import worker answers one request at a time')
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      this.#waiting = { resolve, reject }
      this.#worker.postMessage(request, transfer)
    })
    if (!answer.ok) throw fromWireError(answer.error)
    return answer.result as T
  }

  close(): void {
    const open = this.#failure === null
    this.#failure ??= new Error('import worker closed')
    this.#worker.terminate().catch(() => {})
    if (open) this.#onClose?.()
  }

  #fail(err: Error): void {
    this.#failure ??= err
    const waiting = this.#waiting
    this.#waiting = null
    waiting?.reject(internal(err))
  }
}

/**
 * An input whose bytes may be moved to the worker (`movable`: their ArrayBuffer belongs to them
 * alone, like an UploadedFile's when `exclusive`); by default, only when the view covers its whole
 * ArrayBuffer. Moved bytes must not be read afterwards.
 */
type MovableInput = ImportInput & { movable?: boolean }

/**
 * Runs an import job (`document`: the import result; `convert`: the convert answer of an uploaded
 * file; `store`: packed drafts) in a worker thread for large inputs, so that the event loop keeps
 * answering; inline for small ones. The input's bytes are moved to the worker, not copied, when
 * they may be (MovableInput): the caller must not read them afterwards. Throws the importer's own
 * errors (same codes, messages and details).
 *
 * @example
 * const result = await importOffThread('document', { bytes, fileName: 'capture.har', movable: false }, { maxBytes })
 * const { count, json } = await importOffThread('convert', { bytes: file.bytes, fileName: file.filename, movable: file.exclusive }, { maxBytes }, spare)
 */
export async function importOffThread<J extends ImportJob>(
  job: J,
  input: MovableInput,
  ctx: ImportContext = {},
  spare?: SpareImportWorker,
): Promise<ImportJobOutput[J]> {
  if (input.bytes.byteLength < OFF_THREAD_BYTES) return runImportJob(job, input, ctx)
  const worker = spare?.take() ?? new ImportWorker()
  try {
    return await worker.request<ImportJobOutput[J]>(
      { type: 'job', job, input: { bytes: input.bytes, fileName: input.fileName }, ctx },
      transferOf([input]),
    )
  } finally {
    worker.close()
  }
}

/** What `uploadInWorkers` gives back: the answer's `result` JSON and each file's warnings. */
interface UploadedInWorkers extends UploadImported {
  resultJson: Buffer[]
}

/**
 * The two threads of a large upload: the importer imports, the writer validates and stores. The
 * importer is taken (the platform's loaded spare) or started as the request arrives, so that it
 * is ready when the body is in. The writer starts only when the upload begins (`writer`): while
 * the body arrives, the event loop needs the CPU (a thread loading its modules then delayed other
 * requests past 100 ms), and a writer that starts late only leaves the importer a larger share of
 * the validation (stream.ts).
 */
export class UploadWorkers {
  readonly importer: ImportWorker
  #writer: ImportWorker | null = null
  #closed = false

  /**
   * Starts the importer, to call as the request arrives: the platform's loaded `spare` when it
   * has one, else a thread started now. Close them when done.
   *
   * @example
   * const workers = new UploadWorkers(ctx.deps.importSpare); try { ... } finally { workers.close() }
   */
  constructor(spare?: SpareImportWorker) {
    this.importer = spare?.take() ?? new ImportWorker()
  }

  /** The writer thread, started on first use; ERR_INTERNAL once closed. */
  get writer(): ImportWorker {
    if (this.#closed) throw internal(new Error('the upload workers are closed'))
    this.#writer ??= new ImportWorker()
    return this.#writer
  }

  close(): void {
    this.#closed = true
    this.importer.close()
    this.#writer?.close()
  }
}

/**
 * A large upload stored from worker threads. Holding the store's write mutex
 * (`store.writeElsewhere`), the importer imports every file and sends its transactions onto a
 * port as they are made, while the writer validates, compiles and inserts them through its own
 * database connection, commits, and hands back the answer's JSON. A large HAR is stored while it
 * is still read, its rows put in order at its end (worker.ts `stream`). The event loop
 * only moves buffers: none of the import, the inserts or the COMMIT runs on it. The
 * inputs' bytes are moved to the importer. Throws the importers' errors (naming the file) and
 * ERR_API_NOT_FOUND when the service is deleted meanwhile; nothing is stored then.
 *
 * @example
 * const { resultJson, files } = await uploadInWorkers(new UploadWorkers(), store, inputs, { maxBytes }, target)
 */
export async function uploadInWorkers(
  workers: UploadWorkers,
  store: Store,
  inputs: readonly MovableInput[],
  ctx: ImportContext,
  upload: UploadTarget,
): Promise<UploadedInWorkers> {
  const { importer, writer } = workers
  const files = inputs.map((i) => ({ bytes: i.bytes, fileName: i.fileName }))
  const moved = transferOf(inputs)
  const { imported, resultJson } = await store.writeElsewhere(async (target) => {
    const { port1, port2 } = new MessageChannel()
    // the streamed runs the writer has stored: the importer takes on work when it falls behind
    const progress = new SharedArrayBuffer(4)
    const written = writer.request<Buffer[]>(
      { type: 'write', target, upload, runs: port2, progress },
      [port2],
    )
    const read = importer.request<UploadImported>(
      { type: 'stream', inputs: files, ctx, runs: port1, progress },
      [port1, ...moved],
    )
    const [importing, writing] = await Promise.allSettled([read, written])
    // a file that cannot be imported, or a transaction that could never be served, is the answer
    if (importing.status === 'rejected') throw importing.reason
    if (writing.status === 'rejected') {
      // the writer refused a streamed transaction: the importer names it as the whole file places it
      const refused: unknown = writing.reason
      if (
        isUnderstudyError(refused, 'ERR_IMPORT_INVALID') ||
        isUnderstudyError(refused, 'ERR_DSL_INVALID')
      ) {
        await importer.request<null>({ type: 'explain' })
      }
      throw refused
    }
    return { imported: importing.value, resultJson: writing.value }
  })
  return {
    files: imported.files,
    resultJson: resultJson.map((piece) =>
      Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength),
    ),
  }
}

/** How long after a spare given out is closed the next one is started (after the upload's answer is written). */
const SPARE_DELAY_MS = 1000

/**
 * One import worker kept started and loaded, for the next large upload or convert. Loading a
 * worker's modules takes about half a second of CPU, longer while the event loop receives the
 * body on the same two cores: an upload that took a thread started on arrival waited up to a
 * second after its body was in before the import began. The spare costs about 40 MiB
 * while idle. The first is started as the platform starts (a thread of lowered priority), each
 * next one SPARE_DELAY_MS after the previous one, once taken, is closed (so that a new spare never
 * loads while an upload imports). An idle spare does not keep the process alive.
 *
 * @example
 * const spare = new SpareImportWorker(); const worker = spare.take(); ... worker.close(); spare.close()
 */
export class SpareImportWorker {
  readonly #delayMs: number
  #spare: ImportWorker | null = null
  #timer: NodeJS.Timeout | null = null
  #closed = false

  /** The first spare starts after `firstDelayMs`, each next one `delayMs` after the previous is closed. */
  constructor(firstDelayMs = 0, delayMs = SPARE_DELAY_MS) {
    this.#delayMs = delayMs
    this.#schedule(firstDelayMs)
  }

  /** Whether a spare is started and waiting to be taken. */
  get waiting(): boolean {
    return this.#spare !== null
  }

  /** The spare when it is loaded and well, else a worker started now; the caller closes it. */
  take(): ImportWorker {
    const spare = this.#spare
    this.#spare = null
    // the next spare waits until this worker is closed, not loading while it imports
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    if (spare !== null && spare.usable) {
      spare.keepsProcessAlive(true)
      return spare
    }
    spare?.close()
    return new ImportWorker(() => this.#schedule())
  }

  /** Ends the spare and starts no more. */
  close(): void {
    this.#closed = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#spare?.close()
    this.#spare = null
  }

  // Every worker this gives out starts the next spare's countdown when it is closed.
  #schedule(delayMs = this.#delayMs): void {
    if (this.#closed || this.#spare !== null || this.#timer !== null) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      if (this.#closed || this.#spare !== null) return
      this.#spare = new ImportWorker(() => this.#schedule())
      this.#spare.keepsProcessAlive(false)
    }, delayMs)
    this.#timer.unref()
  }
}

/** The inputs' buffers that can move to a worker without a copy (each at most once). */
function transferOf(inputs: readonly MovableInput[]): ArrayBuffer[] {
  return [
    ...new Set(
      inputs
        .filter((i) => i.movable ?? ownsBuffer(i.bytes))
        .map((i) => i.bytes.buffer as ArrayBuffer),
    ),
  ]
}

function internal(err: Error): UnderstudyError {
  return createError('ERR_INTERNAL', [], { cause: err })
}
