import { Ajv, type Options, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import {
  compileUserRegex,
  jsonTextDepth,
  MAX_DEFINITION_DEPTH,
  RegexRejection,
} from '../dsl/index.js'

/** Drafts a `matches_json_schema` schema may declare in `$schema`; none means 2020-12 (WireMock's default). */
const drafts = {
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
} as const

type Draft = (typeof drafts)[keyof typeof drafts]

/**
 * Ajv instances, one per draft, made on first use. Schemas are user input: `pattern` and
 * `patternProperties` regexes go through the runtime's regex policy (compileUserRegex: refused when
 * they could backtrack for minutes, docs/regex.md); `format` is an annotation, not asserted (as in
 * 2019-09 and later, and WireMock); unknown keywords are ignored; nothing is ever fetched (`$ref`
 * resolves within the schema only).
 */
const instances = new Map<Draft, Ajv>()

function ajvFor(draft: Draft): Ajv {
  const known = instances.get(draft)
  if (known !== undefined) return known
  const options: Options = {
    strict: false,
    allErrors: false,
    validateFormats: false,
    unicodeRegExp: false,
    // `code` names the engine in standalone code, which is never generated here.
    code: { regExp: Object.assign(safeRegExp, { code: 'safeRegExp' }) },
  }
  const made =
    draft === '2020-12'
      ? new Ajv2020(options)
      : draft === '2019-09'
        ? new Ajv2019(options)
        : new Ajv(options)
  instances.set(draft, made)
  return made
}

function safeRegExp(pattern: string): { test: (s: string) => boolean } {
  const compiled = compileUserRegex(pattern, false)
  if (compiled instanceof RegexRejection) {
    throw new Error(`pattern ${JSON.stringify(pattern)} is ${compiled.kind}: ${compiled.reason}`)
  }
  return compiled
}

/** Schema texts compiled lately, and their results: at most this many, and this many characters. */
const MAX_CACHED_SCHEMAS = 256
const MAX_CACHED_SCHEMA_CHARS = 4_000_000
const compiledByText = new Map<string, ValidateFunction | { error: string }>()
let cachedChars = 0

/**
 * A JSON Schema text compiled once, at load, for `matches_json_schema`; or why it cannot be used
 * (not JSON, nested too deep, an unknown `$schema`, an invalid schema, an unsafe pattern). The
 * same text is compiled once: an imported description gives many operations the same schema, and
 * ajv's compilation costs far more than the validation. The cache is bounded (the oldest texts
 * go first); a validator keeps no state between calls but `errors`, read right after each call.
 *
 * @example
 * const valid = compileJsonSchema('{"type":"object","required":["id"]}')
 * if (!('error' in valid)) valid({ id: 1 }) // true
 */
export function compileJsonSchema(text: string): ValidateFunction | { error: string } {
  const known = compiledByText.get(text)
  if (known !== undefined) return known
  const compiled = compileSchemaText(text)
  if (text.length <= MAX_CACHED_SCHEMA_CHARS) {
    while (
      compiledByText.size >= MAX_CACHED_SCHEMAS ||
      cachedChars + text.length > MAX_CACHED_SCHEMA_CHARS
    ) {
      const oldest = compiledByText.keys().next().value as string
      compiledByText.delete(oldest)
      cachedChars -= oldest.length
    }
    compiledByText.set(text, compiled)
    cachedChars += text.length
  }
  return compiled
}

function compileSchemaText(text: string): ValidateFunction | { error: string } {
  if (jsonTextDepth(text) > MAX_DEFINITION_DEPTH) {
    return { error: `nests deeper than ${MAX_DEFINITION_DEPTH} levels` }
  }
  let schema: unknown
  try {
    schema = JSON.parse(text)
  } catch (err) {
    return {
      error: `must be a JSON Schema (JSON): ${err instanceof Error ? err.message : String(err)}`,
    }
  }
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    return { error: 'must be a JSON Schema: an object or a boolean' }
  }
  const declared =
    typeof schema === 'object' ? (schema as Record<string, unknown>)['$schema'] : undefined
  let draft: Draft = '2020-12'
  if (declared !== undefined) {
    const found =
      typeof declared === 'string'
        ? drafts[declared.replace(/#$/, '') as keyof typeof drafts]
        : undefined
    if (found === undefined) {
      return {
        error: `$schema ${JSON.stringify(declared)} is not a supported draft (draft-07, 2019-09, 2020-12)`,
      }
    }
    draft = found
  }
  const ajv = ajvFor(draft)
  try {
    const validate = ajv.compile(schema as object)
    return validate
  } catch (err) {
    return {
      error: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
    }
  } finally {
    // The instance is shared: forget the schema (and its $id) so that each transaction has its own
    // and nothing accumulates over reloads. The compiled function stays usable.
    if (typeof schema === 'object') ajv.removeSchema(schema as object)
  }
}
