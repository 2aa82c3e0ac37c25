import { createError, isUnderstudyError, type ErrorDetail, type UnderstudyError } from '../../src/errors/index.js'
import type { SourcePosition } from '../../src/dsl/index.js'

/** Finds the line and column of a JSON pointer in the parsed file, when it can. */
export type Locate = (pointer: string) => SourcePosition | undefined

/**
 * One error detail about `pointer` in `file`, with its line and column when `locate` finds them.
 *
 * @example
 * detailAt('api.yaml', '/paths', 'must be an object', locate) // { path: '/paths', message: 'must be an object', file: 'api.yaml', line: 12, column: 1 }
 */
export function detailAt (file: string, pointer: string, message: string, locate?: Locate): ErrorDetail {
  const detail: ErrorDetail = { path: pointer, message, file }
  const pos = locate?.(pointer)
  if (pos !== undefined) {
    detail.line = pos.line
    detail.column = pos.column
  }
  return detail
}

/**
 * ERR_IMPORT_INVALID for `file`: `reason` says what was expected, in one line, and `details` say
 * where (JSON pointers, and file:line:column when known).
 *
 * @example
 * throw importInvalid('a.har', 'not a HAR file: log.entries is missing', [detailAt('a.har', '/log', 'must have property "entries"')])
 */
export function importInvalid (file: string, reason: string, details: ErrorDetail[] = [], cause?: unknown): UnderstudyError {
  const where = details[0]?.line === undefined ? '' : ` (line ${details[0].line}, column ${details[0].column ?? 0})`
  const options: { details: ErrorDetail[]; cause?: unknown } = { details }
  if (cause !== undefined) options.cause = cause
  return createError('ERR_IMPORT_INVALID', [file, `${reason}${where}`], options)
}

/**
 * Runs an importer body so that nothing but an UnderstudyError leaves it: a TypeError or
 * RangeError (a stack overflow on a pathological input) becomes ERR_IMPORT_INVALID naming the
 * file, with the original kept as `cause` for the log.
 *
 * @example
 * return guardImport(input.fileName, () => importSomething(input))
 */
export function guardImport<T> (file: string, run: () => T): T {
  try {
    return run()
  } catch (err) {
    if (isUnderstudyError(err)) throw err
    const reason = err instanceof Error ? err.message : String(err)
    throw importInvalid(file, `unexpected structure (${reason})`, [{ path: '', message: reason, file }], err)
  }
}
