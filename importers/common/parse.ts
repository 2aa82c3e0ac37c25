import { parseText, type ParsedText } from '../../src/dsl/index.js'
import { isUnderstudyError } from '../../src/errors/index.js'
import { importInvalid } from './errors.js'

/**
 * Parses JSON or YAML text (chosen by file name, else by the first character) into a value and a
 * locator from JSON pointers back to line:column. It reuses the DSL parser, so JSON is read by the
 * fast `JSON.parse` and positions are computed only when an error needs one. A syntax error
 * becomes ERR_IMPORT_INVALID naming the file, line and column, never a raw SyntaxError.
 *
 * @example
 * parseStructured('{"log": {}}', 'capture.har').value // { log: {} }
 * parseStructured('{"log": ', 'broken.har') // throws ERR_IMPORT_INVALID: Cannot import broken.har: not valid JSON: ... (line 1, column 9)
 */
export function parseStructured (text: string, fileName: string, what = 'JSON or YAML'): ParsedText {
  try {
    return parseText(text, fileName)
  } catch (err) {
    if (!isUnderstudyError(err, 'ERR_DSL_PARSE')) throw err
    const detail = err.details?.[0]
    const message = detail?.message ?? err.message
    throw importInvalid(fileName, `not valid ${what}: ${message}`, detail === undefined ? [] : [{ ...detail, file: fileName }], err)
  }
}
