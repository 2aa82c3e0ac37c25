import { locatedDetail, type SourcePosition } from '../../src/dsl/index.js'
import {
  createError,
  isUnderstudyError,
  type ErrorDetail,
  type UnderstudyError,
} from '../../src/errors/index.js'

/** Finds the line and column of a JSON pointer in the parsed file, when it can. */
export type Locate = (pointer: string) => SourcePosition | undefined

/**
 * One error detail about `pointer` in `file`, with its line and column when `locate` finds them.
 *
 * @example
 * detailAt('api.yaml', '/paths', 'must be an object', locate) // { path: '/paths', message: 'must be an object', file: 'api.yaml', line: 12, column: 1 }
 */
export function detailAt(
  file: string,
  pointer: string,
  message: string,
  locate?: Locate,
): ErrorDetail {
  return locatedDetail(pointer, message, file, locate)
}

/**
 * Where a detail is, as the one position format of every import error: " (line 3, column 5)", or
 * nothing when the line is unknown.
 *
 * @example
 * positionSuffix({ path: '', message: 'x', line: 3, column: 5 }) // ' (line 3, column 5)'
 */
function positionSuffix(detail: ErrorDetail | undefined): string {
  return detail?.line === undefined ? '' : ` (line ${detail.line}, column ${detail.column ?? 0})`
}

/**
 * ERR_IMPORT_INVALID for `file`: `reason` says what was expected, in one line, and `details` say
 * where (JSON pointers, and file:line:column when known). The message ends with the first
 * detail's position when that detail is about `file` itself. Without details, one detail naming
 * the file is made, so that every import error carries at least one.
 *
 * @example
 * throw importInvalid('a.har', 'not a HAR file: log.entries is missing', [detailAt('a.har', '/log', 'must have property "entries"')])
 * throw importInvalid('a.json', 'expected a WireMock stub mapping') // details: [{ path: '', message: ..., file: 'a.json' }]
 */
export function importInvalid(
  file: string,
  reason: string,
  details: ErrorDetail[] = [],
  cause?: unknown,
): UnderstudyError {
  const all = details.length > 0 ? details : [{ path: '', message: reason, file }]
  const first = all[0]
  const where = first?.file === undefined || first.file === file ? positionSuffix(first) : ''
  const options: { details: ErrorDetail[]; cause?: unknown } = { details: all }
  if (cause !== undefined) options.cause = cause
  return createError('ERR_IMPORT_INVALID', [file, `${reason}${where}`], options)
}

/**
 * Runs an importer body so that nothing but an UnderstudyError leaves it: a TypeError or
 * RangeError (a stack overflow on a pathological input) becomes ERR_IMPORT_INVALID naming the
 * file, with the original kept as `cause` for the log. The one wrapper for unknown throws.
 *
 * @example
 * return guardImport(input.fileName, () => importSomething(input))
 */
export function guardImport<T>(file: string, run: () => T): T {
  try {
    return run()
  } catch (err) {
    if (isUnderstudyError(err)) throw err
    const reason = err instanceof Error ? err.message : String(err)
    throw importInvalid(
      file,
      `unexpected structure (${reason})`,
      [{ path: '', message: reason, file }],
      err,
    )
  }
}
