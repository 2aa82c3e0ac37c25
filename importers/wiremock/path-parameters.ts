import type { MatcherInput } from '../../src/dsl/index.js'
import { isObject, str } from '../shared/structured.js'
import { escapeRegex } from '../shared/url.js'

/**
 * A regex that cannot match a `/`: none of `.`, `/`, a negated class, `\S`, `\W`, `\D` or a
 * character escape by code. Such a pattern can be applied to one path segment inside a path regex.
 */
const CROSSES_SEGMENTS = /[./]|\[\^|\\[SWDxuUcpPk0-9]/

/**
 * `urlPathTemplate` with WireMock's `pathParameters`: the template as a path regex in which each
 * constrained parameter's segment must satisfy its pattern (`equalTo`, `contains`, or `matches`
 * with a regex that cannot match a `/`) and every other parameter is one segment of anything.
 * Null, with a note naming the parameter, when a pattern cannot be expressed so.
 *
 * @example
 * pathParameterMatcher('/contacts/{id}', { id: { equalTo: '12' } }, note)
 * // { key: 'url', matcherName: 'matches', matchingValue: '/contacts/12' }
 */
export function pathParameterMatcher(
  template: string,
  parameters: unknown,
  note: (message: string) => void,
): MatcherInput | null {
  if (!isObject(parameters)) {
    note('request pathParameters must be an object of parameter name to pattern; not matched')
    return null
  }
  const names = new Set<string>()
  let source = ''
  let last = 0
  for (const m of template.matchAll(/\{([^}]+)\}/g)) {
    const name = m[1] ?? ''
    names.add(name)
    source += escapeRegex(template.slice(last, m.index))
    const pattern = parameters[name]
    const segment = pattern === undefined ? '[^/]+' : segmentPattern(pattern)
    if (segment === null) {
      note(
        `request pathParameters ${JSON.stringify(name)}: only equalTo, contains, or matches with a regex that cannot match "/" (no ".", negated class, \\S, \\W, \\D) can be matched; not matched`,
      )
      return null
    }
    source += segment
    last = m.index + m[0].length
  }
  source += escapeRegex(template.slice(last))
  const unknown = Object.keys(parameters).filter((k) => !names.has(k))
  if (unknown.length > 0) {
    note(
      `request pathParameters ${unknown.map((k) => JSON.stringify(k)).join(', ')}: not a parameter of urlPathTemplate; not matched`,
    )
    return null
  }
  return { key: 'url', matcherName: 'matches', matchingValue: source }
}

/** The regex of one segment a parameter pattern accepts; null when it cannot be expressed. */
function segmentPattern(pattern: unknown): string | null {
  if (!isObject(pattern) || Object.keys(pattern).length !== 1) return null
  const equal = str(pattern['equalTo'])
  if (equal !== undefined) return equal === '' || equal.includes('/') ? null : escapeRegex(equal)
  const contains = str(pattern['contains'])
  if (contains !== undefined) {
    return contains.includes('/') ? null : `[^/]*${escapeRegex(contains)}[^/]*`
  }
  const matches = str(pattern['matches'])
  if (matches !== undefined) {
    // WireMock matches the whole value: anchors at its ends are redundant here, elsewhere refused.
    const bare = matches.replace(/^\^/, '').replace(/(?<!\\)\$$/, '')
    if (bare === '' || CROSSES_SEGMENTS.test(bare) || /[\^$]/.test(bare) || rangeSpansSlash(bare)) {
      return null
    }
    return `(?:${bare})`
  }
  return null
}

/** Whether a character class of the regex has a range that includes `/` (`[!-0]`). */
function rangeSpansSlash(regex: string): boolean {
  for (const m of regex.matchAll(/(?<!\\)\[((?:\\.|[^\]\\])*)\]/g)) {
    for (const r of (m[1] ?? '').matchAll(/(?<!\\)(.)-(.)/g)) {
      if ((r[1] ?? '') <= '/' && (r[2] ?? '') >= '/') return true
    }
  }
  return false
}
