import { isPrintable, utf8Text } from '../shared/text.js'

/**
 * The rule for base64 body matcher values in exported transactions (docs/dsl.md#request-requestdsl). The
 * export does not say which values it encoded, so a value is decoded only when every test below
 * passes; a value written as plain text almost never passes them all, because the decoded bytes of
 * ordinary words are not valid UTF-8 text.
 *
 * 1. The matcher is a body matcher whose value is literal text (`equals`, `equals_insensitive`,
 *    `contains`, `matches`, `not_matches`, `equals_json`, `equals_xml`); JSONPath, XPath and
 *    `absent` values are expressions or names and are never decoded.
 * 2. The value is canonical base64: only `A-Z a-z 0-9 + /`, `=` padding, a length that is a
 *    non-zero multiple of 4, and it re-encodes to itself.
 * 3. The decoded bytes are valid UTF-8 with no control characters other than tab and line breaks.
 * 4. For `equals_json`, the value itself is not JSON and the decoded text is; for `equals_xml`, the
 *    decoded text starts with `<`.
 */
const decodable = new Set([
  'equals',
  'equals_insensitive',
  'contains',
  'matches',
  'not_matches',
  'equals_json',
  'equals_xml',
])

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * The decoded text of a body matcher value when the rule says it was base64, else undefined.
 *
 * @example
 * decodedMatcherValue('equals_json', 'eyJhIjoxfQ==') // '{"a":1}'
 * decodedMatcherValue('equals', 'hello') // undefined
 */
export function decodedMatcherValue(matcherName: string, value: string): string | undefined {
  if (!decodable.has(matcherName)) return undefined
  if (value.length === 0 || value.length % 4 !== 0 || !BASE64.test(value)) return undefined
  const bytes = Buffer.from(value, 'base64')
  if (bytes.length === 0 || bytes.toString('base64') !== value) return undefined
  const text = utf8Text(bytes)
  if (text === undefined || !isPrintable(text)) return undefined
  if (matcherName === 'equals_json' && (isJson(value) || !isJson(text))) return undefined
  if (matcherName === 'equals_xml' && !text.trimStart().startsWith('<')) return undefined
  return text
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
