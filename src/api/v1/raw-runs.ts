import { finishImport, type DslTypeKey, type ImportFormat } from '../../../importers/index.js'
import type { TransactionInput } from '../../dsl/index.js'
import { PackedReader, PackedWriter } from '../packed-strings.js'
import { packDraftsInRuns, type PackedDrafts } from './import-drafts.js'

/*
 * A large upload's transactions on their way from the importer thread, which makes them, to the
 * writer thread, which validates, compiles and stores them while the importer reads on (issue 8:
 * the two threads then share the work, where the importer alone validated everything before the
 * first row was stored). In between they are JSON text in transferred buffers: a structured clone
 * of tens of thousands of objects would cost more than the text.
 */

/** A run of transactions as an importer made them (importers `importStreamed`), not validated yet. */
export interface RawRun {
  file: string
  format: ImportFormat
  dslType: DslTypeKey
  count: number
  /** Each transaction's JSON text (packed-strings.ts). */
  packed: Buffer[]
}

/**
 * Collects transactions into a RawRun.
 *
 * @example
 * const raw = new RawRunWriter('big.har', 'har', 'HAR_DSL'); raw.add(txn); port.postMessage({ raw: raw.done() })
 */
export class RawRunWriter {
  readonly #file: string
  readonly #format: ImportFormat
  readonly #dslType: DslTypeKey
  readonly #writer = new PackedWriter()
  #count = 0

  constructor (file: string, format: ImportFormat, dslType: DslTypeKey) {
    this.#file = file
    this.#format = format
    this.#dslType = dslType
  }

  get count (): number {
    return this.#count
  }

  add (txn: TransactionInput): void {
    this.#writer.add(JSON.stringify(txn))
    this.#count++
  }

  done (): RawRun {
    return { file: this.#file, format: this.#format, dslType: this.#dslType, count: this.#count, packed: this.#writer.done() }
  }
}

/**
 * Validates a raw run with the DSL's validation (finishImport, as `packPendingInRuns` does a run
 * at a time), then compiles and packs it (`packDraftsInRuns`). Throws ERR_IMPORT_INVALID or
 * ERR_DSL_INVALID for these transactions alone: the places its details name are the run's, so
 * the caller asks the importer for the file's exact error (import-worker.ts `explain`).
 *
 * @example
 * const packed = packRawRun(message.raw); await storer.hold(packed)
 */
export function packRawRun (raw: RawRun): PackedDrafts {
  const reader = new PackedReader(raw.packed)
  const transactions: TransactionInput[] = []
  for (let i = 0; i < raw.count; i++) transactions.push(JSON.parse(reader.text()) as TransactionInput)
  const result = finishImport({ format: raw.format, dslType: raw.dslType, fileName: raw.file, transactions, warnings: [] })
  let packed: PackedDrafts = { count: 0, packed: [], tags: [] }
  packDraftsInRuns(raw.file, result, Infinity, (run) => { packed = run })
  return packed
}
