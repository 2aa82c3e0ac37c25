import { createHash, timingSafeEqual } from 'node:crypto'
import type http from 'node:http'
import { createError, type UnderstudyError } from '../errors/index.js'

/**
 * Who may use an admin listener. Without a token, only requests whose `Host` is a loopback name
 * or address: a web page cannot reach the listener by DNS rebinding (its Host would be the
 * attacker's name), and the listener must be bound to loopback (checked at start). With a token,
 * every route but `GET /health` needs `Authorization: Bearer <token>`, whatever the Host.
 *
 * @example
 * const refuse = adminGuard({ token: process.env.UNDERSTUDY_ADMIN_TOKEN ?? null })
 * const error = refuse(req) // null when allowed
 */
export function adminGuard(params: {
  token: string | null
}): (req: http.IncomingMessage) => UnderstudyError | null {
  const token = params.token
  if (token === null || token === '') {
    return (req) =>
      isLoopbackHost(req.headers.host)
        ? null
        : createError('ERR_API_FORBIDDEN', [
            `the admin API answers only loopback Host names (got "${req.headers.host ?? ''}"); configure --admin-token to reach it by another name`,
          ])
  }
  const expected = digest(token)
  return (req) => {
    if (req.method === 'GET' && (req.url === '/health' || req.url === '/health/')) return null
    const header = req.headers.authorization ?? ''
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]
    // Digests have one length: the comparison takes the same time whatever the token given.
    if (given !== undefined && timingSafeEqual(digest(given.trim()), expected)) return null
    return createError('ERR_API_UNAUTHORIZED')
  }
}

/**
 * True for `localhost` (and `*.localhost`), 127.0.0.0/8 and `[::1]`, with or without a port. A
 * missing Host (HTTP/1.0 tools) is allowed: browsers always send one.
 *
 * @example
 * isLoopbackHost('127.0.0.1:9090') // true
 * isLoopbackHost('attacker.example:9090') // false
 */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined || host === '') return true
  const name = hostName(host).toLowerCase()
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  )
}

/** True when a listener address accepts connections from loopback only. */
export function isLoopbackAddress(address: string): boolean {
  return isLoopbackHost(
    address.includes(':') && !address.startsWith('[') ? `[${address}]` : address,
  )
}

function hostName(host: string): string {
  if (host.startsWith('[')) {
    return host.slice(1, host.indexOf(']') === -1 ? undefined : host.indexOf(']'))
  }
  const colon = host.lastIndexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
