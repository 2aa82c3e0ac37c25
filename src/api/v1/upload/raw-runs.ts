import { finishImport, type DslTypeKey, type ImportFormat } from '../../../../importers/index.js'
import type { TransactionInput } from '../../../dsl/index.js'
import { PackedReader, PackedWriter } from './packed-strings.js'
import { packDrafts, type PackedDrafts } from './drafts.js'

/*
 * A large upload's transactions on their way from the importer thread, which makes them, to the
 * writer thread, which validates, compiles and stores them while the importer reads on (so
 * the two threads then share the work, where the importer alone validated everything before the
 * first row was stored). In between they are JSON text in transferred buffers: a structured clone
 * of tens of thousands of objects would cost more than the text. When the writer falls behind,
 * the importer validates and packs a run itself (`packTransactions`), and sends it packed.
 */

/** A run of transactions as an importer made them (importers `importStreamed`), not validated yet. */
export interface RawRun {
  file: string
  format: ImportFormat
  dslType: DslTypeKey
  count: number
  /** The JSON text of the array of the transactions, packed (packed-strings.ts): one text parses faster than one per transaction. */
  packed: Buffer[]
}

/**
 * A run of transactions as JSON text, to send to the writer.
 *
 * @example
 * const raw = rawRunOf('big.har', 'har', 'HAR_DSL', transactions); port.postMessage({ raw }, raw.packed.map((b) => b.buffer))
 */
export function rawRunOf(
  file: string,
  format: ImportFormat,
  dslType: DslTypeKey,
  transactions: readonly TransactionInput[],
): RawRun {
  const writer = new PackedWriter()
  writer.add(JSON.stringify(transactions))
  return { file, format, dslType, count: transactions.length, packed: writer.done() }
}

/**
 * Validates a raw run with the DSL's validation (finishImport), then compiles and packs it
 * (`packDrafts`). Throws ERR_IMPORT_INVALID or
 * ERR_DSL_INVALID for these transactions alone: the places its details name are the run's, so
 * the caller asks the importer for the file's exact error (worker.ts `explain`).
 *
 * @example
 * const packed = packRawRun(message.raw); await storer.hold(packed)
 */
export function packRawRun(raw: RawRun): PackedDrafts {
  const transactions = JSON.parse(new PackedReader(raw.packed).text()) as TransactionInput[]
  if (transactions.length !== raw.count) {
    throw new Error(`a raw run of ${raw.count} transactions holds ${transactions.length}`)
  }
  return packTransactions(raw.file, raw.format, raw.dslType, transactions)
}

/**
 * `packRawRun` of transactions in hand (the importer packs a run itself when the writer falls
 * behind). The transactions are emptied (see packDraftsInRuns).
 */
export function packTransactions(
  file: string,
  format: ImportFormat,
  dslType: DslTypeKey,
  transactions: TransactionInput[],
): PackedDrafts {
  return packDrafts(
    file,
    finishImport({ format, dslType, fileName: file, transactions, warnings: [] }),
  )
}
