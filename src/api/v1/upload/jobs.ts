import {
  importFile,
  type ImportContext,
  type ImportInput,
  type ImportResult,
  type ImportWarning,
} from '../../../../importers/index.js'
import { convertItemsJson, packDrafts } from './drafts.js'

/*
 * What an import is run for, and what it gives back: run in the import worker thread for large
 * inputs (off-thread.ts), inline for small ones. Uploads get their answer prepared where
 * the import ran, so that the event loop receives bytes, not an object graph to clone.
 */

/** `document`: the import result itself; `store`: packed drafts to store; `convert`: the convert answer. */
export type ImportJob = 'document' | 'store' | 'convert'

/** The answer of each job. */
export interface ImportJobOutput {
  document: ImportResult
  /** `packed`: `count` drafts (drafts.ts `readDrafts`); `tags`: every tag they carry. */
  store: { count: number; packed: Buffer[]; tags: string[]; warnings: ImportWarning[] }
  /** `json`: the convert items of the file, comma-separated, without brackets. */
  convert: { count: number; json: Buffer; warnings: ImportWarning[] }
}

/**
 * Imports the input and prepares the job's answer. Throws the importer's errors (and, for
 * `store`, ERR_DSL_INVALID for a transaction that could never be served).
 *
 * @example
 * runImportJob('store', { bytes, fileName: 'a.har' }, { maxBytes }).count
 */
export function runImportJob<J extends ImportJob>(
  job: J,
  input: ImportInput,
  ctx: ImportContext,
): ImportJobOutput[J] {
  const result = importFile(input, ctx)
  const count = result.document.transactions.length
  const output: ImportJobOutput[ImportJob] =
    job === 'document'
      ? result
      : job === 'store'
        ? { ...packDrafts(input.fileName, result), count, warnings: result.warnings }
        : { count, json: convertItemsJson(result), warnings: result.warnings }
  return output as ImportJobOutput[J]
}

/** The buffers of an answer that a worker can hand over without copying. */
export function transferablesOf(output: ImportJobOutput[ImportJob]): ArrayBuffer[] {
  const buffers = 'packed' in output ? output.packed : 'json' in output ? [output.json] : []
  return buffers.filter(ownsBuffer).map((bytes) => bytes.buffer as ArrayBuffer)
}

/** True when the view covers its whole ArrayBuffer (not a slice of Node's shared pool). */
export function ownsBuffer(bytes: Uint8Array): boolean {
  return (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  )
}
