import type { MatcherInput } from '../../src/dsl/index.js'
import { isObject, str } from '../shared/structured.js'
import { escapeRegex } from '../shared/url.js'

/** An IPv6 literal in brackets, or a name without a colon: the host part of a Host header. */
const HOST_NAME = '(?:\\[[^\\]]*\\]|[^:]*)'

/**
 * WireMock's `host` and `port` request matchers as matchers on the `Host` header, which is where
 * a mock port learns them: `host` with `equalTo` (any case, as host names are), `contains` or
 * `matches` applies to the name without the port; `port` (a number) is the header's port, or for
 * 80 and 443 a header without one (the listener's default port). Anything else is reported
 * through `note` and not matched.
 *
 * @example
 * hostAndPortMatchers({ host: { equalTo: 'api.test' }, port: 8080 }, note)
 * // [{ key: 'Host', matcherName: 'matches', matchingValue: '[aA][pP][iI]\\.[tT][eE][sS][tT](?::[0-9]+)?' }, { key: 'Host', ..., '...:8080' }]
 */
export function hostAndPortMatchers(
  req: Record<string, unknown>,
  note: (message: string) => void,
): MatcherInput[] {
  const out: MatcherInput[] = []
  const host = req['host']
  if (host !== undefined) {
    const name = hostPattern(host)
    if (name === null) {
      note(
        'request host: only {"equalTo"}, {"contains"} or {"matches"} (or a plain string) can be matched; not matched',
      )
    } else {
      out.push({ key: 'Host', matcherName: 'matches', matchingValue: `${name}(?::[0-9]+)?` })
    }
  }
  const port = req['port']
  if (port !== undefined) {
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      note('request port must be an integer from 1 to 65535; not matched')
    } else {
      const bare = port === 80 || port === 443 ? '?' : ''
      out.push({
        key: 'Host',
        matcherName: 'matches',
        matchingValue: `${HOST_NAME}(?::${port})${bare}`,
      })
    }
  }
  return out
}

/** The regex source of the host name a `host` pattern accepts; null when it cannot be mapped. */
function hostPattern(pattern: unknown): string | null {
  if (typeof pattern === 'string') return caseless(pattern)
  if (!isObject(pattern)) return null
  const keys = Object.keys(pattern).filter((k) => k !== 'caseInsensitive')
  if (keys.length !== 1) return null
  const equal = str(pattern['equalTo'])
  if (equal !== undefined) return caseless(equal)
  const contains = str(pattern['contains'])
  if (contains !== undefined) return `[^:]*${caseless(contains)}[^:]*`
  const matches = str(pattern['matches'])
  if (matches !== undefined) return `(?:${matches})`
  return null
}

/** A regex source matching `text` whatever the case of its letters. */
function caseless(text: string): string {
  let out = ''
  for (const c of text) {
    const lower = c.toLowerCase()
    const upper = c.toUpperCase()
    out += lower !== upper ? `[${lower}${upper}]` : escapeRegex(c)
  }
  return out
}
