import {
  importStreamed,
  type ImportContext,
  type ImportInput,
  type ImportWarning,
} from '../../../../importers/index.js'
import type { TransactionInput } from '../../../dsl/index.js'
import { isUnderstudyError } from '../../../errors/index.js'
import { runImportJob } from './jobs.js'
import { packDraftsInRuns, type PackedDrafts } from './drafts.js'
import { packTransactions, rawRunOf, type RawRun } from './raw-runs.js'

/*
 * The importer's side of a large upload (worker.ts `stream`): each file's transactions
 * sent to the writer thread as they are made.
 */

/** What `stream` gives of each file: its transaction count and warnings. */
export interface ImportedFile {
  file: string
  count: number
  warnings: ImportWarning[]
}

/**
 * What goes from the importer to the writer, in order: validated runs (`run`), or a streamed
 * file's runs, raw or (when the writer fell behind) validated and packed (`held`), followed by
 * its order (`placed`) or by `dropped` (it is imported whole after all: its rows are void); then
 * the end, or an abort (nothing is to be kept). The writer counts the streamed runs it has
 * stored in a shared counter (`progress`), so that the importer sees how far behind it is.
 */
export type RunMessage =
  | { run: PackedDrafts }
  | { raw: RawRun }
  | { held: PackedDrafts }
  | { placed: { order: number[] | null } }
  | { dropped: true }
  | { end: true }
  | { abort: true }

/** Transactions sent to the writer at a time (about 1.5 MB of a HAR's). */
export const RUN_LENGTH = 2000

/**
 * Streamed runs the writer may have waiting before the importer validates and packs the next
 * one itself. Validating, compiling and inserting take the writer longer than reading and
 * converting take the importer (on a 2-vCPU VM, about 7 s against 6 s for 90,000 transactions):
 * the importer, otherwise done first, takes a share of the validation and the two end together.
 */
export const WRITER_BACKLOG_RUNS = 2

/** What `importStreamed` streams: a large HAR (any other file comes back whole). */
const STREAMED = { format: 'har', dslType: 'HAR_DSL' } as const

/** Where `streamFile` sends runs, and whether the writer has fallen behind. */
interface WriterLink {
  send: (message: RunMessage, transfer?: readonly Uint8Array[]) => void
  behind: () => boolean
}

/**
 * Imports one file of a `stream` and sends its transactions: a large HAR run by run as it is
 * read (raw, or validated and packed here when the writer has fallen behind), then its order;
 * any other file validated, compiled and packed, run by run. Throws the importer's errors, and
 * the file's exact ERR_IMPORT_INVALID or ERR_DSL_INVALID for a transaction refused here (`explain`
 * throws it: see explainFiles).
 */
export function streamFile(
  input: ImportInput,
  ctx: ImportContext,
  writer: WriterLink,
  explain: () => void,
): ImportedFile {
  const file = input.fileName
  let run: TransactionInput[] = []
  let sent = false
  const flush = (): void => {
    if (run.length === 0) return
    if (writer.behind()) {
      let held: PackedDrafts
      try {
        held = packTransactions(file, STREAMED.format, STREAMED.dslType, run)
      } catch (err) {
        // the places in the error are the run's: the whole file's import names them
        if (
          isUnderstudyError(err, 'ERR_IMPORT_INVALID') ||
          isUnderstudyError(err, 'ERR_DSL_INVALID')
        ) {
          explain()
        }
        throw err
      }
      writer.send({ held }, held.packed)
    } else {
      const raw = rawRunOf(file, STREAMED.format, STREAMED.dslType, run)
      writer.send({ raw }, raw.packed)
    }
    sent = true
    run = []
  }
  const imported = importStreamed(input, ctx, {
    add: (txn) => {
      run.push(txn)
      if (run.length === RUN_LENGTH) flush()
    },
    drop: () => {
      run = []
      if (sent) writer.send({ dropped: true })
      sent = false
    },
  })
  if ('streamed' in imported) {
    const { count, warnings, order } = imported.streamed
    flush()
    if (sent) writer.send({ placed: { order } })
    return { file, count, warnings }
  }
  const { result } = imported
  const count = result.document.transactions.length
  packDraftsInRuns(file, result, RUN_LENGTH, (packed) =>
    writer.send({ run: packed }, packed.packed),
  )
  return { file, count, warnings: result.warnings }
}

/**
 * Imports files again the usual way (`runImportJob`'s `store`: the whole file validated, then
 * compiled), throwing the exact error of the first that fails (its places are the whole file's,
 * where a run's validation named places in the run); returns when none does.
 */
export function explainFiles(inputs: readonly ImportInput[], ctx: ImportContext): void {
  for (const input of inputs) runImportJob('store', input, ctx)
}
