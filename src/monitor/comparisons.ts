import { compileValueCheck, jsonValueText } from '../match/index.js'

/** The canonical comparisons of the product. */
export type Comparison =
  | 'equal'
  | 'not_equal'
  | 'empty'
  | 'not_empty'
  | 'contains'
  | 'does_not_contain'
  | 'is_a_number'
  | 'equal_number'
  | 'is_less_than'
  | 'is_less_than_or_equal'
  | 'is_greater_than'
  | 'is_greater_than_or_equal'
  | 'has_key'
  | 'has_value'
  | 'is_null'
  | 'matches'
  | 'does_not_match'

/** Aliases found in exports and clients (`is_equal` in the product's own samples), to the canonical name. */
const ALIASES: Readonly<Record<string, Comparison>> = {
  equal: 'equal',
  equals: 'equal',
  is_equal: 'equal',
  not_equal: 'not_equal',
  not_equals: 'not_equal',
  is_not_equal: 'not_equal',
  empty: 'empty',
  is_empty: 'empty',
  not_empty: 'not_empty',
  is_not_empty: 'not_empty',
  contains: 'contains',
  does_not_contain: 'does_not_contain',
  not_contains: 'does_not_contain',
  is_a_number: 'is_a_number',
  is_number: 'is_a_number',
  equal_number: 'equal_number',
  equals_number: 'equal_number',
  is_equal_number: 'equal_number',
  is_less_than: 'is_less_than',
  less_than: 'is_less_than',
  is_less_than_or_equal: 'is_less_than_or_equal',
  less_than_or_equal: 'is_less_than_or_equal',
  is_greater_than: 'is_greater_than',
  greater_than: 'is_greater_than',
  is_greater_than_or_equal: 'is_greater_than_or_equal',
  greater_than_or_equal: 'is_greater_than_or_equal',
  has_key: 'has_key',
  has_value: 'has_value',
  is_null: 'is_null',
  matches: 'matches',
  does_not_match: 'does_not_match',
  not_matches: 'does_not_match',
}

/** The canonical name of a comparison, or null when the product has no such comparison. */
export function canonicalComparison(name: string): Comparison | null {
  return ALIASES[name.trim().toLowerCase()] ?? null
}

/** Comparisons that take no target value. */
export const UNARY: ReadonlySet<Comparison> = new Set([
  'empty',
  'not_empty',
  'is_a_number',
  'is_null',
])

/** A value read from a response: a JSON value, a string, or undefined when the property is absent. */
type Actual = unknown

/** The text a value compares as: strings as they are, other JSON values as JSON (the mock DSL's rule). */
export function textOf(value: Actual): string {
  if (value === undefined) return ''
  // undefined: nested deeper than the matchers read (docs/limits.md); it compares as no text
  return jsonValueText(value) ?? ''
}

function numberOf(value: Actual): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'boolean' || value === null || value === undefined) return null
  const text = textOf(value).trim()
  if (text === '') return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}

function isEmpty(value: Actual): boolean {
  if (value === undefined || value === null) return true
  if (typeof value === 'string') return value.length === 0
  if (Array.isArray(value)) return value.length === 0
  if (typeof value === 'object') return Object.keys(value).length === 0
  return false
}

/** Runs a string check of the mock DSL (`equals`, `contains`, `matches`) on a text. */
function dslCheck(
  matcherName: 'equals' | 'contains' | 'matches',
  expected: string,
  actual: string,
): boolean | string {
  const compiled = compileValueCheck({ matcherName, matchingValue: expected })
  if ('error' in compiled) return `the target ${compiled.error}`
  return compiled.check(actual) !== compiled.negated
}

interface ComparisonOutcome {
  pass: boolean
  /** Why it could not be evaluated (not why it failed): a target that is not a number... */
  error: string | null
}

/**
 * Evaluates one comparison. `equal`, `contains` and `matches` run the mock DSL's `equals`,
 * `contains` and `matches` predicates on the actual value's text; the numeric comparisons parse
 * both sides as numbers; `has_key`/`has_value` look into an object (or array); `contains` on an
 * array holds when an element's text equals the target.
 */
export function compare(comparison: Comparison, actual: Actual, target: string): ComparisonOutcome {
  const ok = (pass: boolean): ComparisonOutcome => ({ pass, error: null })
  const fromDsl = (r: boolean | string): ComparisonOutcome =>
    typeof r === 'string' ? { pass: false, error: r } : ok(r)
  switch (comparison) {
    case 'equal':
      return fromDsl(dslCheck('equals', target, textOf(actual)))
    case 'not_equal': {
      const r = dslCheck('equals', target, textOf(actual))
      return typeof r === 'string' ? fromDsl(r) : ok(!r)
    }
    case 'empty':
      return ok(isEmpty(actual))
    case 'not_empty':
      return ok(!isEmpty(actual))
    case 'contains':
    case 'does_not_contain': {
      const found = Array.isArray(actual)
        ? actual.some((item) => textOf(item) === target)
        : dslCheck('contains', target, textOf(actual))
      if (typeof found === 'string') return fromDsl(found)
      return ok(comparison === 'contains' ? found : !found)
    }
    case 'matches':
    case 'does_not_match': {
      const r = dslCheck('matches', target, textOf(actual))
      return typeof r === 'string' ? fromDsl(r) : ok(comparison === 'matches' ? r : !r)
    }
    case 'is_a_number':
      return ok(numberOf(actual) !== null)
    case 'is_null':
      return ok(actual === null || (typeof actual === 'string' && actual === 'null'))
    case 'equal_number':
    case 'is_less_than':
    case 'is_less_than_or_equal':
    case 'is_greater_than':
    case 'is_greater_than_or_equal': {
      const a = numberOf(actual)
      const t = numberOf(target)
      if (t === null) return { pass: false, error: `the target "${target}" is not a number` }
      if (a === null) return ok(false)
      if (comparison === 'equal_number') return ok(a === t)
      if (comparison === 'is_less_than') return ok(a < t)
      if (comparison === 'is_less_than_or_equal') return ok(a <= t)
      if (comparison === 'is_greater_than') return ok(a > t)
      return ok(a >= t)
    }
    case 'has_key':
      return ok(
        actual !== null &&
          typeof actual === 'object' &&
          !Array.isArray(actual) &&
          Object.hasOwn(actual, target),
      )
    case 'has_value': {
      if (actual === null || typeof actual !== 'object') return ok(false)
      const values = Array.isArray(actual) ? actual : Object.values(actual)
      return ok(values.some((v) => textOf(v) === target))
    }
  }
}
