import type { MatcherInput, RequestDslInput } from '../../src/dsl/index.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { escapeRegex, paramPath, type RoutePath } from './path.js'

/*
 * Mockoon response rules as DSL matchers. A rule reads one part of the request (`target`: body,
 * query, header, cookie, params, method, request_number) at `modifier` (a path or a name) and
 * compares it with `value` by `operator` (`equals`, `regex`, `regex_i`, `null`, `empty_array`),
 * possibly inverted. Mockoon's regex finds the pattern anywhere in the value; the DSL's `matches`
 * holds only for the whole value, so the pattern is wrapped in `.*(?:...).*`.
 */

/** Requests of a route are counted (a scenario state each) up to this number. */
const MAX_REQUEST_NUMBER = 100

/** What a rule adds to a transaction: matchers, a method, or a request number. */
export type RuleEffect =
  | { part: 'headers' | 'queryParams' | 'cookies' | 'body'; matcher: MatcherInput }
  | { part: 'url'; matcher: MatcherInput }
  | { part: 'method'; method: string }
  | { part: 'requestNumber'; n: number }

/** A rule read: its effects (one per alternative form), or why it cannot be honoured. */
type RuleOutcome = { effects: RuleEffect[] } | { unsupported: string }

/**
 * The effect of one rule. A body rule has two alternative forms: the value at the path, and (for
 * `equals` and `regex`) one element of an array at the path, as Mockoon also matches an array
 * that includes the value; `alternatives` says how many effects are alternatives.
 *
 * @example
 * ruleOf({ target: 'query', modifier: 'q', value: 'a', operator: 'equals' }, path)
 * // { effects: [{ part: 'queryParams', matcher: { key: 'q', matcherName: 'equals', matchingValue: 'a' } }] }
 */
export function ruleOf(rule: Loose, path: RoutePath): RuleOutcome {
  const target = str(rule['target']) ?? ''
  const modifier = str(rule['modifier']) ?? ''
  const value = rule['value'] === undefined || rule['value'] === null ? '' : String(rule['value'])
  const invert = rule['invert'] === true
  // releases before 1.x wrote `isRegex` instead of an operator
  const operator = str(rule['operator']) ?? (rule['isRegex'] === true ? 'regex' : 'equals')
  if (target === 'request_number') {
    if (
      operator !== 'equals' ||
      invert ||
      !/^\d+$/.test(value.trim()) ||
      Number(value) < 1 ||
      Number(value) > MAX_REQUEST_NUMBER
    ) {
      return {
        unsupported: `a request_number rule is honoured only as "equals" a number from 1 to ${MAX_REQUEST_NUMBER} (got ${operator} ${JSON.stringify(value)})`,
      }
    }
    return { effects: [{ part: 'requestNumber', n: Number(value) }] }
  }
  if (target === 'method') {
    if (operator !== 'equals' || invert) {
      return { unsupported: 'a method rule is honoured only as "equals"' }
    }
    return { effects: [{ part: 'method', method: value.toUpperCase() }] }
  }
  const compare = comparisonOf(operator, value, invert)
  if ('unsupported' in compare) return compare
  switch (target) {
    case 'query':
      return {
        effects: [
          { part: 'queryParams', matcher: { key: queryKey(modifier), ...compare.matcher } },
        ],
      }
    case 'header':
      return { effects: [{ part: 'headers', matcher: { key: modifier, ...compare.matcher } }] }
    case 'cookie':
      return { effects: [{ part: 'cookies', matcher: { key: modifier, ...compare.matcher } }] }
    case 'params': {
      if (compare.segment === undefined) {
        return {
          unsupported: `a params rule is honoured only with equals or regex (got ${operator}${invert ? ', inverted' : ''})`,
        }
      }
      const url = paramPath(path, modifier, compare.segment)
      if (url === undefined) return { unsupported: `the route has no parameter "${modifier}"` }
      return { effects: [{ part: 'url', matcher: url }] }
    }
    case 'body': {
      if (modifier === '') return { effects: [{ part: 'body', matcher: { ...compare.matcher } }] }
      const jsonPath = jsonPathOf(modifier)
      const effects: RuleEffect[] = [
        { part: 'body', matcher: { key: jsonPath, ...compare.matcher } },
      ]
      if (compare.segment !== undefined && !invert) {
        effects.push({ part: 'body', matcher: { key: `${jsonPath}[*]`, ...compare.matcher } })
      }
      return { effects }
    }
    default:
      return {
        unsupported: `rules on ${target === '' ? 'an unnamed target' : `"${target}"`} have no equivalent`,
      }
  }
}

/** The matcher part of a comparison, and the regex of a matching path segment where there is one. */
function comparisonOf(
  operator: string,
  value: string,
  invert: boolean,
): { matcher: Omit<MatcherInput, 'key'>; segment?: string } | { unsupported: string } {
  switch (operator) {
    case 'equals':
      return invert
        ? { matcher: { matcherName: 'not_matches', matchingValue: escapeRegex(value) } }
        : { matcher: { matcherName: 'equals', matchingValue: value }, segment: escapeRegex(value) }
    case 'regex':
    case 'regex_i': {
      const flags = operator === 'regex_i' ? '(?i)' : '(?s)'
      const whole = `${flags}.*(?:${value}).*`
      return invert
        ? { matcher: { matcherName: 'not_matches', matchingValue: whole } }
        : { matcher: { matcherName: 'matches', matchingValue: whole }, segment: `.*(?:${value}).*` }
    }
    case 'null':
      return invert
        ? { matcher: { matcherName: 'matches', matchingValue: '(?s).*' } }
        : { matcher: { matcherName: 'absent', matchingValue: '' } }
    case 'empty_array':
      return invert
        ? { unsupported: 'an inverted empty_array rule has no equivalent' }
        : { matcher: { matcherName: 'equals', matchingValue: '[]' } }
    default:
      return { unsupported: `the ${JSON.stringify(operator)} operator has no equivalent` }
  }
}

/**
 * A Mockoon object path (`user.0.name`, dots escaped as `\.`) as a JSONPath; a `$` path is kept.
 *
 * @example
 * jsonPathOf('user.0.name') // "$['user'][0]['name']"
 */
function jsonPathOf(modifier: string): string {
  if (modifier.startsWith('$')) return modifier
  const segments: string[] = []
  let current = ''
  for (let i = 0; i < modifier.length; i++) {
    const c = modifier[i]
    if (c === '\\' && modifier[i + 1] === '.') {
      current += '.'
      i++
    } else if (c === '.') {
      segments.push(current)
      current = ''
    } else {
      current += c
    }
  }
  segments.push(current)
  return (
    '$' +
    segments
      .map((s) =>
        /^\d+$/.test(s) ? `[${s}]` : `['${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`,
      )
      .join('')
  )
}

/** A dotted query path (`obj.prop`) as the parameter name a query string carries (`obj[prop]`). */
function queryKey(modifier: string): string {
  const [first, ...rest] = modifier.split('.')
  return (first ?? '') + rest.map((r) => `[${r}]`).join('')
}

/**
 * Adds a rule effect to a request: matchers are appended, a url or method replaces the route's.
 *
 * @example
 * applyEffect(requestDsl, { part: 'headers', matcher })
 */
export function applyEffect(request: RequestDslInput, effect: RuleEffect): void {
  switch (effect.part) {
    case 'url':
      request.url = effect.matcher
      break
    case 'method':
      request.method = effect.method
      break
    case 'requestNumber':
      break
    case 'headers':
    case 'queryParams':
    case 'cookies':
    case 'body':
      request[effect.part] = [...(request[effect.part] ?? []), effect.matcher]
  }
}

/** The rules of a response, skipping entries that are not objects. */
export function rulesOf(response: Loose): Loose[] {
  return Array.isArray(response['rules']) ? response['rules'].filter(isObject) : []
}
