import {
  readDefinition,
  type DocumentInput,
  type MockServiceDocument,
  type TransactionInput,
} from '../../src/dsl/index.js'
import { isUnderstudyError } from '../../src/errors/index.js'
import type { DslTypeKey, ImportFormat, ImportResult, ImportWarning } from '../types.js'
import { importInvalid } from './errors.js'

/** What an importer produced, before validation. */
export interface FinishInput {
  format: ImportFormat
  dslType: DslTypeKey
  /** The input's name, for messages. */
  fileName: string
  transactions: TransactionInput[]
  warnings: ImportWarning[]
  /** Mock-service fields to set on the document (`name`, `description`, ...). */
  fields?: Omit<DocumentInput, 'transactions'>
}

/**
 * Validates and normalizes an importer's transactions with the DSL's own `readDefinition`, so that
 * every import result is exactly what a hand-written file with the same content would load as.
 * A transaction the DSL rejects is a fault of the input the importer could not catch earlier;
 * it becomes ERR_IMPORT_INVALID naming the file, with the DSL's details (their paths point into
 * the generated `transactions`, since no file holds them).
 *
 * @example
 * finishImport({ format: 'har', dslType: 'HAR_DSL', fileName: 'a.har', warnings: [],
 *   transactions: [{ name: 'GET /a', dsl: { requestDsl: { method: 'GET', path: '/a' }, responseDsl: { text: 'a' } } }] })
 * // { format: 'har', dslType: 'HAR_DSL', document: { transactions: [ ... ], ... }, warnings: [] }
 */
export function finishImport(input: FinishInput): ImportResult {
  let document: MockServiceDocument
  try {
    document = readDefinition({ ...input.fields, transactions: input.transactions })
  } catch (err) {
    if (!isUnderstudyError(err, 'ERR_DSL_INVALID')) throw err
    const details = (err.details ?? []).map((d) => ({
      ...d,
      message: `generated transaction: ${d.message}`,
    }))
    throw importInvalid(
      input.fileName,
      `the ${input.format} input produced an invalid transaction`,
      details,
      err,
    )
  }
  return { format: input.format, dslType: input.dslType, document, warnings: input.warnings }
}
