import { createError, isUnderstudyError, type ErrorDetail, type UnderstudyError } from '../../src/errors/index.js'

/**
 * ERR_IMPORT_INVALID naming the file and, when known, the position, with what was expected.
 *
 * @example
 * throw importInvalid('a.json', 'expected a WireMock stub mapping', { path: '/request' })
 */
export function importInvalid (
  file: string,
  message: string,
  where: { path?: string; line?: number; column?: number } = {},
  more: ErrorDetail[] = [],
): UnderstudyError {
  const detail: ErrorDetail = { path: where.path ?? '', message, file }
  if (where.line !== undefined) detail.line = where.line
  if (where.column !== undefined) detail.column = where.column
  const position = where.line === undefined ? '' : ` at line ${where.line}${where.column === undefined ? '' : ` column ${where.column}`}`
  return createError('ERR_IMPORT_INVALID', [file, `${message}${position}`], { details: [detail, ...more] })
}

/**
 * ERR_IMPORT_INVALID listing several problems (one detail each), for inputs where nothing could
 * be imported.
 *
 * @example
 * throw importInvalidAll('pairs.zip', 'no pair could be read', details)
 */
export function importInvalidAll (file: string, summary: string, details: ErrorDetail[]): UnderstudyError {
  return createError('ERR_IMPORT_INVALID', [file, summary], { details })
}

/**
 * Turns whatever an importer step threw into an UnderstudyError: ours pass through, anything
 * else (a TypeError on a shape nobody expected) becomes ERR_IMPORT_INVALID naming the file, so
 * that no raw exception escapes an importer.
 *
 * @example
 * try { step() } catch (err) { throw asImportError(err, 'a.json') }
 */
export function asImportError (err: unknown, file: string): UnderstudyError {
  if (isUnderstudyError(err)) return err
  const reason = err instanceof Error ? err.message : String(err)
  return createError('ERR_IMPORT_INVALID', [file, `unexpected content (${reason})`], {
    cause: err,
    details: [{ path: '', message: reason, file }],
  })
}
