import { checkSchemaSync } from './xsd/xmllint-pool.js'

/**
 * A schema of `matches_xml_schema`, checked once at load by libxml2 (xmllint-wasm).
 * Request bodies are validated asynchronously before the synchronous match (see
 * predicates/xsd.ts and prepare.ts); `id` keys the per-request outcome, so that a schema several
 * matchers share is validated once per request.
 */
export interface CompiledXsd {
  readonly id: number
  readonly text: string
}

// Compiling a mock (each reload, each sandbox call, each transaction PUT) checks its schemas:
// remember the verdict per text, bounded.
const MAX_REMEMBERED = 512
const known = new Map<string, CompiledXsd | { error: string }>()
let nextId = 1

/**
 * Checks an XSD text with libxml2, or says why it cannot be used. External `xs:import` /
 * `xs:include` can be resolved neither from disk nor from the network: such a schema is refused.
 *
 * @example
 * compileXsd('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:int"/></xs:schema>') // { id: 1, text: ... }
 */
export function compileXsd(text: string): CompiledXsd | { error: string } {
  const remembered = known.get(text)
  if (remembered !== undefined) return remembered
  const problem =
    text.trim() === '' ? 'must be an XML Schema (an xs:schema document)' : checkSchemaSync(text)
  const compiled =
    problem === null ? { id: nextId++, text } : { error: `is not a usable XML Schema: ${problem}` }
  // A check that could not run (a loaded machine) is not a verdict on the text: not remembered.
  if (problem !== null && problem.startsWith('could not be checked')) return compiled
  if (known.size >= MAX_REMEMBERED) known.clear()
  known.set(text, compiled)
  return compiled
}
