import type { ResponseDslInput } from '../../src/dsl/index.js'
import { isJsonType, isTextType, isXmlType, parseMediaType } from '../shared/index.js'
import type { RefResolver } from './resolver.js'
import { toXml } from './xml.js'

/**
 * Picks the media type to answer with: `application/json` first, then any other JSON type, then
 * a wildcard (answered with JSON), then XML, then other text, then the first listed.
 *
 * @example
 * pickMediaType(['application/xml', 'application/vnd.api+json']) // 'application/vnd.api+json'
 */
export function pickMediaType(types: readonly string[]): string | undefined {
  let best: string | undefined
  let bestRank = Infinity
  for (const type of types) {
    const rank = rankOf(parseMediaType(type).essence)
    if (rank < bestRank) {
      best = type
      bestRank = rank
    }
  }
  return best
}

function rankOf(essence: string): number {
  if (essence === 'application/json') return 0
  if (isJsonType(essence)) return 1
  if (essence.includes('*')) return 2
  if (isXmlType(essence)) return 3
  if (isTextType(essence)) return 4
  return 5
}

/** An example as found: a value (from `example`, `examples` or generated), or the bytes of an `externalValue` file. */
export type ExampleSource = { value: unknown } | { bytes: Uint8Array }

/**
 * Writes an example into a responseDsl's `contentType`, `content`, `charset` and `binary`, as the
 * media type demands:
 * - JSON (and wildcards such as `*\/*`, answered as `application/json`): the value as JSON; a
 *   string that is itself a JSON object or array is taken as the JSON text it holds.
 * - XML: a string as it is, any other value serialized by toXml with the schema's XML hints.
 * - other text: a string as it is, any other value as JSON text.
 * - other types: an object, array, number or boolean as JSON text (vendor types such as
 *   `application/vnd.github.v3` carry JSON without saying so); a string (a `format: binary`
 *   schema, a base64 sample) cannot stand for the bytes, so only an `externalValue` file gives
 *   a body, and otherwise it is left empty with `binary: true` and a note says so.
 * Returns the notes to report as warnings.
 *
 * @example
 * const dsl = { status: 200 }
 * writeBody(dsl, 'application/json', { value: { id: 1 } }, schema, resolver) // dsl.content = base64('{"id":1}')
 */
export function writeBody(
  dsl: ResponseDslInput,
  mediaType: string,
  source: ExampleSource | undefined,
  schema: unknown,
  resolver: RefResolver,
): string[] {
  const parsed = parseMediaType(mediaType)
  const essence = parsed.essence
  const wildcard = essence.includes('*')
  const json = isJsonType(essence) || wildcard
  if (wildcard) {
    dsl.contentType = essence.startsWith('image/') ? 'application/octet-stream' : 'application/json'
  } else if (essence !== '') dsl.contentType = parsed.withoutCharset
  if (parsed.charset !== undefined && !wildcard) dsl.charset = parsed.charset
  if (source === undefined) return []
  if ('bytes' in source) {
    if (!isTextType(essence)) dsl.binary = true
    if (source.bytes.length > 0) dsl.content = Buffer.from(source.bytes).toString('base64')
    return []
  }
  const value = source.value
  let text: string
  if (json) {
    text = typeof value === 'string' && isJsonContainer(value) ? value : JSON.stringify(value)
  } else if (isXmlType(essence)) {
    text = typeof value === 'string' ? value : toXml(value, schema, resolver)
  } else if (isTextType(essence) || typeof value !== 'string') {
    // A structured value under an unknown type is JSON in practice (`application/vnd.github.v3`).
    text = typeof value === 'string' ? value : JSON.stringify(value)
  } else {
    dsl.binary = true
    return [`the ${essence} body is binary and no externalValue file gives it, so it is left empty`]
  }
  dsl.content = Buffer.from(text, 'utf8').toString('base64')
  return []
}

function isJsonContainer(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
