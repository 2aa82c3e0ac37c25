import { compileUserRegex, MAX_REGEX_INPUT, RegexRejection, type Matcher } from '../../dsl/index.js'
import { actualInstant, expectedInstant } from '../date-value.js'

/** How an actual instant compares with the expected one, per date matcher (epoch milliseconds). */
const dateComparisons = {
  before_date: (actual: number, expected: number) => actual < expected,
  after_date: (actual: number, expected: number) => actual > expected,
  equals_date: (actual: number, expected: number) => actual === expected,
}

/**
 * Values longer than MAX_REGEX_INPUT that a regex matcher refused to look at, since the process
 * started (reported by the runtime's admin health as `oversizeRegexInputs`).
 */
export const regexInputStats = { oversize: 0 }

/** A test of one string value, compiled once from a matcher. */
export type ValueCheck = (value: string) => boolean

/** A value check, or why it could not be built. */
type ValueCheckResult = { check: ValueCheck; negated: boolean } | { error: string }

/**
 * Compiles the string comparison of a matcher: `equals`, `equals_insensitive`, `contains`,
 * `matches`/`matches_url` (whole value), `not_matches` (returned as the positive regex with
 * `negated: true`, so that with several values it holds only when none matches).
 *
 * @example
 * const r = compileValueCheck({ matcherName: 'contains', matchingValue: 'json' })
 * 'check' in r && r.check('application/json') // true
 */
export function compileValueCheck(matcher: Matcher): ValueCheckResult {
  const expected = matcher.matchingValue ?? ''
  switch (matcher.matcherName) {
    case 'equals':
      return { check: (v) => v === expected, negated: false }
    case 'equals_insensitive': {
      const lowered = expected.toLowerCase()
      // The length shortcut holds only for ASCII: lowercasing `İ` gives two code units.
      const sameLength = /^[\x20-\x7e]*$/.test(lowered)
      return {
        check: (v) => (!sameLength || v.length === lowered.length) && v.toLowerCase() === lowered,
        negated: false,
      }
    }
    case 'contains':
      return { check: (v) => v.includes(expected), negated: false }
    case 'before_date':
    case 'after_date':
    case 'equals_date': {
      const at = expectedInstant(expected, matcher.truncateExpected)
      if (typeof at === 'string') return { error: at }
      const read = actualInstant(matcher)
      if (typeof read === 'string') return { error: read }
      const holds = dateComparisons[matcher.matcherName]
      return {
        check: (v) => {
          const actual = read(v)
          return actual !== null && holds(actual, at())
        },
        negated: false,
      }
    }
    case 'matches':
    case 'matches_url':
    case 'not_matches': {
      const re = compileUserRegex(expected, true)
      if (re instanceof RegexRejection) {
        return {
          error:
            re.kind === 'invalid'
              ? `is not a valid regular expression: ${re.reason}`
              : `is refused: ${re.reason}`,
        }
      }
      const negated = matcher.matcherName === 'not_matches'
      return {
        check: (v) => {
          if (v.length <= MAX_REGEX_INPUT) return re.test(v)
          // Too long to run a regex on within bounded time: the matcher fails either way (for
          // not_matches the answer is inverted by the caller, so `true` makes it fail too).
          regexInputStats.oversize++
          return negated
        },
        negated,
      }
    }
    case 'absent':
    case 'equals_url':
    case 'matches_json':
    case 'equals_json':
    case 'equals_xml':
    case 'matches_xml':
    case 'matches_xml_schema':
    case 'matches_xml_cdata':
    case 'matches_json_schema':
      return { error: `${matcher.matcherName} is not a string comparison` }
  }
}
