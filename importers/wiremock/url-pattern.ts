import type { MatcherInput } from '../../src/dsl/index.js'

/**
 * WireMock's `urlPattern` is one regex over path and query (`/search\?q=.*`); the runtime's url
 * matchers see only the path, and query parameters one by one. The pattern is split at its first
 * escaped `\?` outside any group or character class: the left side becomes a `matches` on the path,
 * the right side, when it reads `name=regex&name=regex`, one `matches` per query parameter.
 */

/** Index of the first top-level escaped `\?`, or -1. */
function queryStart(pattern: string): number {
  let depth = 0
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      if (!inClass && depth === 0 && pattern[i + 1] === '?') return i
      i++
    } else if (inClass) {
      if (c === ']') inClass = false
    } else if (c === '[') {
      inClass = true
    } else if (c === '(') {
      depth++
    } else if (c === ')') {
      depth--
    }
  }
  return -1
}

/** Splits at top-level, unescaped `&`. */
function splitParams(query: string): string[] {
  const parts: string[] = []
  let depth = 0
  let inClass = false
  let from = 0
  for (let i = 0; i < query.length; i++) {
    const c = query[i]
    if (c === '\\') i++
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '&' && depth === 0) {
      parts.push(query.slice(from, i))
      from = i + 1
    }
  }
  parts.push(query.slice(from))
  return parts
}

/** What a `urlPattern` becomes, and the part of it that could not be mapped. */
interface SplitPattern {
  url: MatcherInput
  queryParams: MatcherInput[]
  unmapped?: string
}

/**
 * Maps a WireMock `urlPattern` to a path regex and query parameter regexes.
 *
 * @example
 * splitUrlPattern('/search\\?q=[a-z]+')
 * // { url: { key: 'url', matcherName: 'matches', matchingValue: '/search' },
 * //   queryParams: [{ key: 'q', matcherName: 'matches', matchingValue: '[a-z]+' }] }
 */
export function splitUrlPattern(pattern: string): SplitPattern {
  const at = queryStart(pattern)
  if (at === -1) {
    return { url: { key: 'url', matcherName: 'matches', matchingValue: pattern }, queryParams: [] }
  }
  const path = pattern.slice(0, at)
  const query = pattern.slice(at + 2)
  const out: SplitPattern = {
    url: { key: 'url', matcherName: 'matches', matchingValue: path },
    queryParams: [],
  }
  // `.*` or nothing after `\?` constrains nothing
  if (query === '' || query === '.*' || query === '.+') return out
  for (const piece of splitParams(query)) {
    const m = /^((?:[A-Za-z0-9_~%-]|\\[.\-_~[\]])+)=([\s\S]*)$/.exec(piece)
    if (m === null || m[1] === undefined) return { ...out, queryParams: [], unmapped: query }
    const key = m[1].replace(/\\(.)/g, '$1')
    out.queryParams.push({ key, matcherName: 'matches', matchingValue: m[2] ?? '' })
  }
  return out
}
