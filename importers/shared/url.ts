import type { MatcherInput } from '../../src/dsl/index.js'

/**
 * Escapes text for use inside a regular expression.
 *
 * @example
 * escapeRegex('/a.b') // '/a\\.b' (a slash needs no escape in RegExp())
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The url matcher for a literal path. `equals_url` reads `{name}` as a one-segment placeholder, so
 * a path that really contains braces is matched with an escaped regex instead.
 *
 * @example
 * literalPathMatcher('/pets') // { key: 'url', matcherName: 'equals_url', matchingValue: '/pets' }
 */
export function literalPathMatcher(path: string): MatcherInput {
  const value = path === '' ? '/' : path
  if (/[{}]/.test(value)) {
    return { key: 'url', matcherName: 'matches', matchingValue: escapeRegex(value) }
  }
  return { key: 'url', matcherName: 'equals_url', matchingValue: value }
}

/**
 * `equals` matchers for each parameter of a query string (`+` read as a space, as forms send it).
 *
 * @example
 * queryMatchers('a=1&b=x%20y') // [{ key: 'a', matcherName: 'equals', matchingValue: '1' }, { key: 'b', ... 'x y' }]
 */
export function queryMatchers(query: string): MatcherInput[] {
  const out: MatcherInput[] = []
  for (const [key, value] of new URLSearchParams(query)) {
    if (key !== '') out.push({ key, matcherName: 'equals', matchingValue: value })
  }
  return out
}
