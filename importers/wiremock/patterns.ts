import { compileDateFormat, dateTruncationNames, type MatcherInput } from '../../src/dsl/index.js'
import { isObject, str } from '../shared/structured.js'
import { escapeRegex } from '../shared/url.js'

/** Which part of the request a WireMock value pattern applies to. */
export type Part = 'headers' | 'queryParams' | 'cookies' | 'body'

/** Where a pattern sits, for keys and warnings. */
interface PatternPlace {
  part: Part
  /** Header, parameter or cookie name; for the body a JSONPath, an XPath or a form field. */
  key?: string
  /** Human name of the place: `header "Accept"`, `bodyPatterns[0]`. */
  where: string
  note: (message: string) => void
}

/** Options that modify an operator rather than being one. */
const modifiers = new Set([
  'caseInsensitive',
  'ignoreArrayOrder',
  'ignoreExtraElements',
  'xPathNamespaces',
  'enablePlaceholders',
  'placeholderOpeningDelimiterRegex',
  'placeholderClosingDelimiterRegex',
  'exemptedComparisons',
  'namespaceAwareness',
  'expression',
  'schemaVersion',
  'actualFormat',
  'truncateExpected',
  'truncateActual',
  'applyTruncationLast',
  'expectedOffset',
  'expectedOffsetUnit',
])

/** WireMock's date-time operators and the DSL matchers they become. */
const dateOperators: Record<string, 'before_date' | 'after_date' | 'equals_date'> = {
  before: 'before_date',
  after: 'after_date',
  equalToDateTime: 'equals_date',
}

/** WireMock's truncations (`first day of month` or `FIRST_DAY_OF_MONTH`) as the DSL names them. */
function truncationOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const name = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
  return (dateTruncationNames as readonly string[]).includes(name) ? name : undefined
}

/** WireMock's `schemaVersion` values and the `$schema` each stands for (V202012 is its default). */
const schemaVersions: Record<string, string> = {
  V7: 'http://json-schema.org/draft-07/schema#',
  V201909: 'https://json-schema.org/draft/2019-09/schema',
  V202012: 'https://json-schema.org/draft/2020-12/schema',
}

const ANY = '[\\s\\S]*'

/**
 * Maps one WireMock value pattern (`{"equalTo": "x"}`, `{"matchesJsonPath": {...}}`, `{"and": [...]}`)
 * to DSL matchers on one place of the request. What cannot be expressed is reported through
 * `place.note` and left out, which makes the stub match more requests than WireMock would.
 *
 * @example
 * matchersOf({ equalTo: 'json', caseInsensitive: true }, { part: 'headers', key: 'Accept', where: 'header "Accept"', note })
 * // [{ key: 'Accept', matcherName: 'equals_insensitive', matchingValue: 'json' }]
 */
export function matchersOf(pattern: unknown, place: PatternPlace): MatcherInput[] {
  if (!isObject(pattern)) {
    place.note(`${place.where}: expected a pattern object such as {"equalTo": "..."}; not matched`)
    return []
  }
  const operators = Object.keys(pattern).filter((k) => !modifiers.has(k))
  if (operators.length !== 1) {
    place.note(
      `${place.where}: expected exactly one operator (equalTo, contains, matches, ...), found ${operators.length === 0 ? 'none' : operators.join(', ')}; not matched`,
    )
    return []
  }
  const op = operators[0] ?? ''
  const value = pattern[op]
  const keyed = (m: MatcherInput): MatcherInput =>
    place.key === undefined ? m : { key: place.key, ...m }
  const asText = (v: unknown): string | undefined =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
  const text = asText(value)
  switch (op) {
    case 'equalTo':
      if (text === undefined) break
      return [
        keyed({
          matcherName: pattern['caseInsensitive'] === true ? 'equals_insensitive' : 'equals',
          matchingValue: text,
        }),
      ]
    case 'contains':
      if (text === undefined) break
      return [keyed({ matcherName: 'contains', matchingValue: text })]
    case 'doesNotContain':
      if (text === undefined) break
      return [
        keyed({ matcherName: 'not_matches', matchingValue: `${ANY}${escapeRegex(text)}${ANY}` }),
      ]
    case 'binaryEqualTo': {
      // Exact when the bytes are UTF-8 text: the body is compared as that text.
      const bytes =
        typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value)
          ? Buffer.from(value, 'base64')
          : null
      const decoded = bytes?.toString('utf8')
      if (
        place.part === 'body' &&
        place.key === undefined &&
        bytes !== null &&
        decoded !== undefined &&
        Buffer.from(decoded, 'utf8').equals(bytes)
      ) {
        return [{ matcherName: 'equals', matchingValue: decoded }]
      }
      place.note(
        `${place.where}: binaryEqualTo is supported only on the whole body, with bytes that are UTF-8 text; not matched`,
      )
      return []
    }
    case 'matches':
      if (text === undefined) break
      return [keyed({ matcherName: 'matches', matchingValue: text })]
    case 'doesNotMatch':
      if (text === undefined) break
      return [keyed({ matcherName: 'not_matches', matchingValue: text })]
    case 'absent':
      if (place.part === 'body' && place.key === undefined) {
        place.note(`${place.where}: "absent" on the whole body cannot be expressed; not matched`)
        return []
      }
      if (value === false) return [keyed({ matcherName: 'matches', matchingValue: ANY })]
      return [keyed({ matcherName: 'absent', matchingValue: place.key ?? '' })]
    case 'equalToJson':
    case 'matchesJsonPath':
    case 'equalToXml':
    case 'matchesXPath':
      return structured(op, value, pattern, place)
    case 'matchesJsonSchema':
      return jsonSchema(value, pattern, place)
    case 'before':
    case 'after':
    case 'equalToDateTime':
      if (text === undefined) break
      return dateTime(op, text, pattern, place)
    case 'and':
    case 'includes':
    case 'hasExactly':
      if (!Array.isArray(value)) break
      if (op === 'hasExactly') {
        place.note(
          `${place.where}: hasExactly is matched as includes (each listed value must be present; other values are allowed)`,
        )
      }
      return value.flatMap((p, i) =>
        matchersOf(p, { ...place, where: `${place.where} ${op}[${i}]` }),
      )
    case 'or':
      if (!Array.isArray(value)) break
      return alternation(value, place)
    default:
      place.note(`${place.where}: unknown operator ${op}; not matched`)
      return []
  }
  place.note(
    `${place.where}: ${op} needs a ${Array.isArray(value) ? 'single value' : 'value of the right type'}; not matched`,
  )
  return []
}

function structured(
  op: string,
  value: unknown,
  pattern: Record<string, unknown>,
  place: PatternPlace,
): MatcherInput[] {
  if (place.part !== 'body') {
    place.note(`${place.where}: ${op} applies to request bodies only; not matched`)
    return []
  }
  const keyed = (m: MatcherInput): MatcherInput =>
    place.key === undefined ? m : { key: place.key, ...m }
  if (op === 'equalToJson') {
    const json = typeof value === 'string' ? value : JSON.stringify(value)
    try {
      JSON.parse(json)
    } catch {
      place.note(`${place.where}: equalToJson is not valid JSON; not matched`)
      return []
    }
    const matcher: MatcherInput = { matcherName: 'equals_json', matchingValue: json }
    if (pattern['ignoreArrayOrder'] === true) matcher.ignoreArrayOrder = true
    if (pattern['ignoreExtraElements'] === true) matcher.ignoreExtraElements = true
    return [keyed(matcher)]
  }
  if (op === 'equalToXml') {
    const xml = str(value)
    if (xml === undefined) {
      place.note(`${place.where}: equalToXml needs the XML as text; not matched`)
      return []
    }
    if (pattern['enablePlaceholders'] === true) {
      place.note(`${place.where}: equalToXml placeholders are not supported; the XML must be equal`)
    }
    return [keyed({ matcherName: 'equals_xml', matchingValue: xml })]
  }
  const json = op === 'matchesJsonPath'
  if (!json && pattern['xPathNamespaces'] !== undefined) {
    place.note(
      `${place.where}: xPathNamespaces are not supported; the XPath is evaluated without them`,
    )
  }
  const plain = str(value)
  if (plain !== undefined) {
    return [keyed({ matcherName: json ? 'matches_json' : 'matches_xml', matchingValue: plain })]
  }
  if (isObject(value) && typeof value['expression'] === 'string') {
    // {"expression": "$.a", "equalTo": "x"}: the inner pattern applies to what the expression selects
    const expression = value['expression']
    const prefix = json ? '$' : '/'
    if (!expression.startsWith(prefix)) {
      place.note(
        `${place.where}: ${op} expression ${JSON.stringify(expression)} must start with "${prefix}" to select a value; not matched`,
      )
      return []
    }
    const { expression: _expression, ...inner } = value
    if (Object.keys(inner).length === 0) {
      return [{ matcherName: json ? 'matches_json' : 'matches_xml', matchingValue: expression }]
    }
    return matchersOf(inner, {
      ...place,
      key: expression,
      where: `${place.where} ${op} ${expression}`,
    })
  }
  place.note(`${place.where}: ${op} needs an expression; not matched`)
  return []
}

/**
 * `before`, `after`, `equalToDateTime`: an ISO-8601 date-time or `now` (with `expectedOffset` and
 * `expectedOffsetUnit` folded into `now +N unit`); `actualFormat` becomes the DSL's `dateFormat`
 * (a pattern using letters the DSL does not read is not matched, with a warning), the truncations
 * its `truncateExpected`/`truncateActual`; `applyTruncationLast: true` is not matched (warning).
 */
function dateTime(
  op: string,
  expected: string,
  pattern: Record<string, unknown>,
  place: PatternPlace,
): MatcherInput[] {
  if (pattern['applyTruncationLast'] === true) {
    place.note(
      `${place.where}: ${op} with applyTruncationLast is not supported (the expected date is truncated before its offset, WireMock's default); not matched`,
    )
    return []
  }
  const options: Pick<MatcherInput, 'dateFormat' | 'truncateExpected' | 'truncateActual'> = {}
  const format = pattern['actualFormat']
  if (format !== undefined) {
    const compiled = typeof format === 'string' ? compileDateFormat(format) : null
    if (compiled === null || 'error' in compiled) {
      place.note(
        `${place.where}: ${op} actualFormat ${JSON.stringify(format)} ${compiled === null ? 'must be a string' : compiled.error}; not matched`,
      )
      return []
    }
    options.dateFormat = format as string
  }
  for (const option of ['truncateExpected', 'truncateActual'] as const) {
    if (pattern[option] === undefined) continue
    const truncation = truncationOf(pattern[option])
    if (truncation === undefined) {
      place.note(
        `${place.where}: ${op} ${option} ${JSON.stringify(pattern[option])} is not one of ${dateTruncationNames.join(', ')}; not matched`,
      )
      return []
    }
    options[option] = truncation
  }
  let value = expected
  const offset = pattern['expectedOffset']
  if (offset !== undefined) {
    const unit = str(pattern['expectedOffsetUnit'])?.toLowerCase()
    if (
      typeof offset !== 'number' ||
      !Number.isInteger(offset) ||
      unit === undefined ||
      expected.trim().toLowerCase() !== 'now'
    ) {
      place.note(
        `${place.where}: ${op} expectedOffset is supported as an integer with expectedOffsetUnit, on "now"; not matched`,
      )
      return []
    }
    value = `now ${offset < 0 ? '-' : '+'}${Math.abs(offset)} ${unit}`
  }
  const m: MatcherInput = {
    matcherName: dateOperators[op] ?? 'equals_date',
    matchingValue: value,
    ...options,
  }
  return [place.key === undefined ? m : { key: place.key, ...m }]
}

/**
 * `matchesJsonSchema` (a schema as JSON text or as an object) on the body or what a JSONPath
 * selects; `schemaVersion` becomes the schema's `$schema` when it declares none.
 */
function jsonSchema(
  value: unknown,
  pattern: Record<string, unknown>,
  place: PatternPlace,
): MatcherInput[] {
  if (place.part !== 'body') {
    place.note(`${place.where}: matchesJsonSchema applies to request bodies only; not matched`)
    return []
  }
  let schema: unknown = value
  if (typeof value === 'string') {
    try {
      schema = JSON.parse(value)
    } catch {
      place.note(`${place.where}: matchesJsonSchema is not valid JSON; not matched`)
      return []
    }
  }
  const version = pattern['schemaVersion']
  if (version !== undefined) {
    const uri = typeof version === 'string' ? schemaVersions[version] : undefined
    if (uri === undefined) {
      place.note(
        `${place.where}: matchesJsonSchema schemaVersion ${JSON.stringify(version)} is not supported (V7, V201909, V202012); not matched`,
      )
      return []
    }
    if (isObject(schema) && schema['$schema'] === undefined) schema = { $schema: uri, ...schema }
  }
  const m: MatcherInput = {
    matcherName: 'matches_json_schema',
    matchingValue: JSON.stringify(schema),
  }
  return [place.key === undefined ? m : { key: place.key, ...m }]
}

/** `or` of equalTo / matches values becomes one regex alternation; anything else cannot. */
function alternation(alternatives: unknown[], place: PatternPlace): MatcherInput[] {
  const branches: string[] = []
  for (const alt of alternatives) {
    if (
      isObject(alt) &&
      typeof alt['equalTo'] === 'string' &&
      alt['caseInsensitive'] !== true &&
      Object.keys(alt).length === 1
    ) {
      branches.push(escapeRegex(alt['equalTo']))
    } else if (
      isObject(alt) &&
      typeof alt['matches'] === 'string' &&
      Object.keys(alt).length === 1
    ) {
      branches.push(`(?:${alt['matches']})`)
    } else {
      place.note(
        `${place.where}: "or" can be mapped only when every branch is equalTo or matches; not matched`,
      )
      return []
    }
  }
  const m: MatcherInput = { matcherName: 'matches', matchingValue: branches.join('|') }
  return [place.key === undefined ? m : { key: place.key, ...m }]
}
