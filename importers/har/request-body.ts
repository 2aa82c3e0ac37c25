import type { MatcherInput } from '../../src/dsl/index.js'
import { isJsonType, parseMediaType } from '../shared/index.js'
import { headerValues, type HarRequest } from './har-types.js'

/** The body matchers of a recorded request, and a key that identifies the body for duplicates. */
interface BodyMatch {
  matchers: MatcherInput[]
  /** Equal for bodies that the matchers cannot tell apart. */
  key: string
  /** Set when part of the body could not be matched, to be reported as a warning. */
  note?: string
}

const none: BodyMatch = { matchers: [], key: '' }

/**
 * Body matchers for a recorded request:
 * - JSON (by media type, or text that parses as a JSON object or array, as `sendBeacon` posts
 *   with `text/plain`): one `equals_json` on the whole body. Semantic equality makes a replay
 *   match whatever its key order and whitespace; `matches_json` would only test a JSONPath.
 * - `application/x-www-form-urlencoded`: one `equals` per field (key = field name), so that
 *   field order does not matter.
 * - `multipart/form-data`: one `equals` per non-file field of `postData.params`; the boundary
 *   changes on every request, so the raw text could never match again. File parts are not matched.
 * - anything else: one `equals` on the whole body text.
 * An empty body gets no matcher.
 *
 * @example
 * matchBody({ method: 'POST', url: 'http://a/x', postData: { mimeType: 'application/json', text: '{"a":1}' } }).matchers
 * // [{ matcherName: 'equals_json', matchingValue: '{"a":1}' }]
 */
export function matchBody(request: HarRequest): BodyMatch {
  const postData = request.postData
  if (postData === undefined || postData === null) return none
  const declared = postData.mimeType ?? headerValues(request.headers, 'content-type')[0] ?? ''
  const essence = parseMediaType(declared).essence
  const text = typeof postData.text === 'string' ? postData.text : ''
  const params = (Array.isArray(postData.params) ? postData.params : []).filter(
    (p) => typeof p.name === 'string',
  )

  if (essence === 'multipart/form-data') {
    const fields = params.filter((p) => p.fileName === undefined)
    const files = params.length - fields.length
    const match = fieldMatch(fields.map((p) => [p.name, String(p.value ?? '')]))
    if (match === undefined) {
      return text === ''
        ? none
        : {
            matchers: [],
            key: '',
            note: 'its multipart body has no usable fields and is not matched',
          }
    }
    return files > 0 ? { ...match, note: `its ${files} file part(s) are not matched` } : match
  }
  if (essence === 'application/x-www-form-urlencoded') {
    const pairs: Array<[string, string]> =
      text !== ''
        ? [...new URLSearchParams(text)]
        : params.map((p) => [p.name, String(p.value ?? '')])
    const match = fieldMatch(pairs)
    if (match !== undefined) return match
  }
  if (text === '') return none
  const json = isJsonType(essence) || /^\s*[[{]/.test(text) ? parseJson(text) : undefined
  if (json !== undefined) {
    return {
      matchers: [{ matcherName: 'equals_json', matchingValue: text }],
      key: `json:${canonicalJson(json.value)}`,
    }
  }
  return { matchers: [{ matcherName: 'equals', matchingValue: text }], key: `text:${text}` }
}

/**
 * One `equals` matcher per form field. A field name that starts with `$` or `/` would be read as
 * a JSONPath or XPath by the runtime (docs/dsl.md#request-requestdsl), so such bodies are not split.
 */
function fieldMatch(pairs: Array<[string, string]>): BodyMatch | undefined {
  if (
    pairs.length === 0 ||
    pairs.some(([name]) => name === '' || name.startsWith('$') || name.startsWith('/'))
  ) {
    return undefined
  }
  const matchers: MatcherInput[] = pairs.map(([name, value]) => ({
    key: name,
    matcherName: 'equals',
    matchingValue: value,
  }))
  const key = pairs
    .map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&')
  return { matchers, key: `form:${key}` }
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/**
 * JSON with object keys sorted, so that bodies equal under `equals_json` get the same key.
 *
 * @example
 * canonicalJson({ b: 1, a: [true] }) // '{"a":[true],"b":1}'
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
