import type { Repositories } from '../../../store/index.js'
import { readDrafts, type EncodedDraft } from './drafts.js'
import { transactionLink } from '../views.js'

/*
 * Storing an upload's imported transactions and writing its answer, in one pass over the packed
 * drafts: on the event loop for small uploads (yielding between runs of rows), in the import
 * worker for large ones (through its own database connection, so that neither the inserts nor
 * the COMMIT hold the event loop). The answer is JSON text in buffers; the stored DSL's
 * bytes are copied into it as they are, never decoded.
 */

/** Where an upload's transactions go, and who stores them. */
export interface UploadTarget {
  accountId: number
  workspaceId: number
  serviceId: number
  serviceName: string
  /** The email of the user who uploads (created_by). */
  by: string
}

/** An imported file, packed (jobs.ts, job `store`). */
interface PackedImport {
  count: number
  packed: readonly Uint8Array[]
  tags: readonly string[]
}

/**
 * Rows stored in one synchronous step (about 25 us each): short enough that a request waiting
 * meanwhile is answered within milliseconds, long enough that the per-call costs vanish.
 */
const ROWS_PER_RUN = 200

/** The size of one piece of the response. */
const PIECE_BYTES = 256 * 1024

interface PiecesMark {
  pieces: number
  piece: Buffer<ArrayBuffer>
  at: number
}

/** The rows of a file stored before their order is known, and where their answer begins. */
interface Held {
  ids: number[]
  drafts: EncodedDraft[]
  answered: { mark: PiecesMark; separator: string }
}

/**
 * Writes answer text and bytes into buffers of about PIECE_BYTES: text is encoded once, straight
 * into the piece, and bytes (the stored DSL's JSON) are copied as they are, never decoded. Each
 * piece owns its memory, so that a worker can transfer it.
 */
class Pieces {
  readonly #out: Buffer[] = []
  #piece = Buffer.allocUnsafeSlow(PIECE_BYTES)
  #at = 0

  text(value: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: when that fits, no separate measuring pass
    if (this.#piece.length - this.#at < value.length * 3) this.#room(Buffer.byteLength(value))
    this.#at += this.#piece.write(value, this.#at)
  }

  bytes(value: Uint8Array): void {
    this.#room(value.length)
    this.#piece.set(value, this.#at)
    this.#at += value.length
  }

  done(): Buffer[] {
    if (this.#at > 0) this.#out.push(this.#piece.subarray(0, this.#at))
    this.#at = 0
    return this.#out
  }

  /** Where the text written so far ends, to come back to (`rewind`). */
  mark(): PiecesMark {
    return { pieces: this.#out.length, piece: this.#piece, at: this.#at }
  }

  /** Forgets what was written after `mark` (the piece then current still holds what came before). */
  rewind(mark: PiecesMark): void {
    this.#out.length = mark.pieces
    this.#piece = mark.piece
    this.#at = mark.at
  }

  #room(bytes: number): void {
    if (this.#piece.length - this.#at >= bytes) return
    if (this.#at > 0) this.#out.push(this.#piece.subarray(0, this.#at))
    this.#piece = Buffer.allocUnsafeSlow(Math.max(PIECE_BYTES, bytes))
    this.#at = 0
  }
}

/**
 * Stores an upload's packed drafts, run after run, and writes its answer along the way: `result`
 * of the upload's answer, the JSON array of the created Transactions (transactionView's members,
 * in its order).
 *
 * @example
 * const storer = new UploadStorer(tx, target)
 * for (const run of runs) await storer.add(run)
 * const resultJson = storer.done()
 */
export class UploadStorer {
  readonly #tx: Repositories
  readonly #target: UploadTarget
  readonly #answer = new Pieces()
  readonly #serviceMembers: string
  #separator = '['
  /**
   * The rows of a file stored before their order is known (`hold`), until `place` or `drop`;
   * they are answered in the order they came (`answered`: where their answer begins), which is
   * the order placed unless the import reordered them.
   */
  #held: Held | null = null

  constructor(tx: Repositories, target: UploadTarget) {
    this.#tx = tx
    this.#target = target
    this.#serviceMembers = `"serviceId":${target.serviceId},"serviceName":${JSON.stringify(target.serviceName)},`
  }

  /**
   * Creates the tags the drafts carry, then the transactions, in order. `slice` is awaited after
   * each run of ROWS_PER_RUN rows (a timeSlicer on the event loop).
   */
  async add(imported: PackedImport, slice: () => Promise<void> = async () => {}): Promise<void> {
    await this.#addRows(imported, null, slice)
  }

  /**
   * `add` for a run of a file whose order is not known yet (a large HAR streamed): its
   * rows are created and answered in the order given, and kept until the file's `place` (which
   * moves them into order) or `drop`. Runs of the same file follow each other; nothing else is
   * added before its `place` or `drop`.
   */
  async hold(imported: PackedImport): Promise<void> {
    this.#held ??= {
      ids: [],
      drafts: [],
      answered: { mark: this.#answer.mark(), separator: this.#separator },
    }
    await this.#addRows(imported, this.#held, async () => {})
  }

  /**
   * The held file is complete: `order` (SpecificityOrder `order`: for each place, the index of
   * the held transaction it takes; null for the order they came in) is given to its rows, so that
   * the ids run in that order as if the rows had been created in it, and they are answered so.
   */
  async place(order: readonly number[] | null): Promise<void> {
    const held = this.#held
    this.#held = null
    if (held === null || order === null) return
    const { ids, drafts, answered } = held
    if (order.length !== drafts.length) {
      throw new Error(`an order of ${order.length} for ${drafts.length} held transactions`)
    }
    // answered in the order they came: answered again, in this one
    this.#rewind(answered)
    const { workspaceId } = this.#target
    for (let place = 0; place < ids.length; place++) {
      const id = ids[place] as number
      const from = order[place] as number
      const draft = drafts[from] as EncodedDraft
      if (from !== place && !(await this.#tx.transactions.rewriteEncoded(workspaceId, id, draft))) {
        throw new Error(`held transaction ${id} is gone`)
      }
      this.#answerRow(id, draft)
    }
  }

  /** The held file's rows are void (it is imported whole instead): they are deleted, and their answer forgotten. */
  async drop(): Promise<void> {
    const held = this.#held
    this.#held = null
    if (held === null) return
    await this.#tx.transactions.deleteMany(this.#target.workspaceId, held.ids)
    this.#rewind(held.answered)
  }

  /** The answer's `result`: JSON text in buffers that own their memory. */
  done(): Buffer[] {
    if (this.#held !== null) {
      throw new Error('a file stored before its order was known was never placed')
    }
    this.#answer.text(this.#separator === '[' ? '[]' : ']')
    return this.#answer.done()
  }

  /** Creates the tags, then the rows a run of ROWS_PER_RUN at a time, answering each (and keeping it in `held`). */
  async #addRows(
    { count, packed, tags }: PackedImport,
    held: Held | null,
    slice: () => Promise<void>,
  ): Promise<void> {
    const { accountId, workspaceId, serviceId, by } = this.#target
    if (tags.length > 0) await this.#tx.tags.ensure(accountId, [...tags], by)
    let run: EncodedDraft[] = []
    const store = async (): Promise<void> => {
      const ids = await this.#tx.transactions.createEncodedMany({ workspaceId, serviceId, by }, run)
      run.forEach((draft, i) => this.#answerRow(ids[i] as number, draft))
      if (held !== null) {
        held.ids.push(...ids)
        held.drafts.push(...run)
      }
      run = []
      await slice()
    }
    for (const draft of readDrafts(packed, count)) {
      run.push(draft)
      if (run.length === ROWS_PER_RUN) await store()
    }
    if (run.length > 0) await store()
  }

  /** Forgets the answer written since `answered`. */
  #rewind(answered: Held['answered']): void {
    this.#answer.rewind(answered.mark)
    this.#separator = answered.separator
  }

  #answerRow(id: number, { name, description, tagsJson, dslType, dslJson }: EncodedDraft): void {
    const { workspaceId } = this.#target
    const answer = this.#answer
    answer.text(
      `${this.#separator}{"id":${id},"name":${JSON.stringify(name)},"description":${JSON.stringify(description ?? '')},${this.#serviceMembers}"tags":`,
    )
    answer.bytes(tagsJson)
    answer.text(
      `,"link":${JSON.stringify(transactionLink(workspaceId, id))},"dslType":${JSON.stringify(dslType)},"dsl":`,
    )
    answer.bytes(dslJson)
    answer.text('}')
    this.#separator = ','
  }
}

/**
 * Creates every file's tags and transactions, in file order, and returns the answer's `result`
 * (see UploadStorer).
 *
 * @example
 * const resultJson = await store.write(async (tx) => await storeUploaded(tx, imported, target, timeSlicer()))
 */
export async function storeUploaded(
  tx: Repositories,
  imported: readonly PackedImport[],
  target: UploadTarget,
  slice?: () => Promise<void>,
): Promise<Buffer[]> {
  const storer = new UploadStorer(tx, target)
  for (const file of imported) await storer.add(file, slice)
  return storer.done()
}
