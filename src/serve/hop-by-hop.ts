/**
 * Headers that describe one connection, not the message (RFC 9110 section 7.6.1), plus those
 * HTTP/2 forbids: never forwarded by a proxy.
 */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
])

/** Names listed in a Connection header are hop-by-hop too. */
function connectionTokens (connection: string | string[] | undefined): Set<string> | null {
  if (connection === undefined) return null
  const text = Array.isArray(connection) ? connection.join(',') : connection
  const tokens = text.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '')
  return tokens.length === 0 ? null : new Set(tokens)
}

/**
 * The end-to-end headers of a header object, as a flat `[name, value, ...]` list with lowercase
 * names; HTTP/2 pseudo-headers (`:path`...) and `skip` names are dropped too.
 *
 * @example
 * endToEndHeaders({ connection: 'x-a', 'x-a': '1', accept: '*\/*' }) // ['accept', '*\/*']
 */
export function endToEndHeaders (headers: Record<string, string | string[] | undefined>, skip?: ReadonlySet<string>): string[] {
  const extra = connectionTokens(headers['connection'])
  const out: string[] = []
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase()
    if (lower.startsWith(':') || hopByHop.has(lower) || extra?.has(lower) === true || skip?.has(lower) === true) continue
    const value = headers[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) out.push(lower, v)
    else out.push(lower, value)
  }
  return out
}
