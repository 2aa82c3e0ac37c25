import type { Matcher, MockServiceDocument, Transaction } from '../dsl/index.js'

/**
 * Host matching (`serve --match-host`): each transaction whose `requestDsl.host` is set also
 * requires the request's `Host` header to name that host (case-insensitive, any port), so that
 * several APIs can share one port. Done once, at load, by adding a header matcher; transactions
 * without a host match any Host. Off by default: `host` records where a transaction came from.
 *
 * @example
 * withHostMatching(doc).transactions[0].dsl.requestDsl.headers // [..., { key: 'Host', matcherName: 'matches', matchingValue: '[aA][pP][iI]\\.test(?::[0-9]+)?' }]
 */
export function withHostMatching(doc: MockServiceDocument): MockServiceDocument {
  if (!doc.transactions.some((t) => hostNameOf(t.dsl.requestDsl.host) !== null)) return doc
  return { ...doc, transactions: doc.transactions.map(withHostMatcher) }
}

function withHostMatcher(txn: Transaction): Transaction {
  const host = hostNameOf(txn.dsl.requestDsl.host)
  if (host === null) return txn
  const matcher: Matcher = {
    key: 'Host',
    matcherName: 'matches',
    matchingValue: `${caseless(host)}(?::[0-9]+)?`,
  }
  const headers = [...(txn.dsl.requestDsl.headers ?? []), matcher]
  return { ...txn, dsl: { ...txn.dsl, requestDsl: { ...txn.dsl.requestDsl, headers } } }
}

/** `https://API.test:443/x` -> `api.test`; null when empty. */
function hostNameOf(host: string | undefined): string | null {
  if (host === undefined) return null
  const bare =
    host
      .trim()
      .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
      .split('/')[0] ?? ''
  const name = bare.startsWith('[')
    ? bare.slice(0, bare.indexOf(']') + 1)
    : (bare.split(':')[0] ?? '')
  return name === '' ? null : name.toLowerCase()
}

/** A regex source matching `text` whatever the case of its letters (no inline flags in JS). */
function caseless(text: string): string {
  let out = ''
  for (const c of text) {
    const lower = c.toLowerCase()
    const upper = c.toUpperCase()
    out += lower !== upper ? `[${lower}${upper}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  }
  return out
}
