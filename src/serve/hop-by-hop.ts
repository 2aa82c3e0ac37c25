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

/** Connection header values that list no header beyond the hop-by-hop ones. */
const commonConnection = new Set(['keep-alive', 'close', 'upgrade', 'te'])

/** Names listed in a Connection header are hop-by-hop too. */
function connectionTokens(connection: string | string[] | undefined): Set<string> | null {
  if (connection === undefined) return null
  // What nearly every peer sends names only headers dropped anyway: no set to build per message.
  if (typeof connection === 'string' && commonConnection.has(connection.toLowerCase())) return null
  const text = Array.isArray(connection) ? connection.join(',') : connection
  const tokens = text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '')
  return tokens.length === 0 ? null : new Set(tokens)
}

/**
 * The end-to-end headers of a header object, as a flat `[name, value, ...]` list with lowercase
 * names; HTTP/2 pseudo-headers (`:path`...) and `skip` names are dropped too.
 *
 * @example
 * endToEndHeaders({ connection: 'x-a', 'x-a': '1', accept: '*\/*' }) // ['accept', '*\/*']
 */
export function endToEndHeaders(
  headers: Record<string, string | string[] | undefined>,
  skip?: ReadonlySet<string>,
): string[] {
  const extra = connectionTokens(headers['connection'])
  const out: string[] = []
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase()
    if (
      lower.startsWith(':') ||
      hopByHop.has(lower) ||
      extra?.has(lower) === true ||
      skip?.has(lower) === true
    ) {
      continue
    }
    const value = headers[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) out.push(lower, v)
    else out.push(lower, value)
  }
  return out
}

/**
 * endToEndHeaders of undici's raw `[name, value, ...]` buffers (an upstream's answer), decoded as
 * latin1 like Node's own parser, without building the header object first.
 *
 * @example
 * endToEndRawHeaders([Buffer.from('Keep-Alive'), Buffer.from('5'), Buffer.from('ETag'), Buffer.from('"1"')]) // ['etag', '"1"']
 */
export function endToEndRawHeaders(raw: Buffer[]): string[] {
  const names: string[] = []
  let connection: string | string[] | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString('latin1').toLowerCase()
    names.push(name)
    if (name === 'connection') {
      const value = (raw[i + 1] as Buffer).toString('latin1')
      connection =
        connection === undefined
          ? value
          : [...(typeof connection === 'string' ? [connection] : connection), value]
    }
  }
  const extra = connectionTokens(connection)
  const out: string[] = []
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    if (name.startsWith(':') || hopByHop.has(name) || extra?.has(name) === true) continue
    out.push(name, (raw[2 * i + 1] as Buffer).toString('latin1'))
  }
  return out
}
