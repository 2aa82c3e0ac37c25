import { parseText } from './parse.js'
import { readDefinition } from './validate.js'
import type { MockServiceDocument } from './types.js'

/**
 * Parses and reads a definition file's text (JSON or YAML) into a normalized mock-service
 * document. Throws ERR_DSL_PARSE or ERR_DSL_INVALID naming the file and line.
 *
 * @example
 * loadDefinitionText('- dsl: {requestDsl: {path: /a}, responseDsl: {text: hi}}', 'a.yaml').transactions[0].name // 'ANY /a'
 */
export function loadDefinitionText(text: string, fileName: string): MockServiceDocument {
  const parsed = parseText(text, fileName)
  return readDefinition(parsed.value, { file: fileName, locate: parsed.locate })
}
