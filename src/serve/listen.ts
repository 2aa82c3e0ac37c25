import http from 'node:http'
import http2 from 'node:http2'
import type { Socket } from 'node:net'
import { listenOn } from '../net/index.js'
import type { TlsMaterial } from './tls.js'

/** Any of the runtime's servers. */
export type RuntimeServer = http.Server | http2.Http2SecureServer | http2.Http2Server

/** The request listener shape all three servers accept. */
export type Listener = (req: never, res: never) => void

/** A server listening, with what is needed to drain it. */
export interface OpenListener {
  readonly kind: 'http' | 'https' | 'h2c'
  readonly server: RuntimeServer
  readonly url: string
  /** Sockets and HTTP/2 sessions, for draining servers that have no closeIdleConnections. */
  readonly sockets: Set<Socket>
  readonly sessions: Set<http2.Http2Session>
}

/**
 * Creates and starts one listener: HTTP/1.1 (`node:http`), HTTPS speaking h2 and http/1.1 by ALPN
 * (`node:http2` with `allowHTTP1`), or cleartext HTTP/2 (h2c, prior knowledge). Rejects with
 * ERR_SERVE_LISTEN naming the address, for instance when the port is in use.
 */
export async function openListener(
  kind: 'http' | 'https' | 'h2c',
  host: string,
  port: number,
  listener: Listener,
  tls: TlsMaterial | null,
  maxHeaderSize = 64 * 1024,
): Promise<OpenListener> {
  const h2 = { settings: { maxHeaderListSize: maxHeaderSize } }
  const server: RuntimeServer =
    kind === 'http'
      ? http.createServer({ maxHeaderSize }, listener as http.RequestListener)
      : kind === 'https'
        ? http2.createSecureServer(
            {
              ...h2,
              cert: tls?.cert,
              key: tls?.key,
              allowHTTP1: true,
              maxHeaderSize,
            } as http2.SecureServerOptions,
            listener as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
          )
        : http2.createServer(
            h2,
            listener as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
          )
  const sockets = new Set<Socket>()
  const sessions = new Set<http2.Http2Session>()
  if (kind !== 'http') {
    const h2server = server as http2.Http2SecureServer
    h2server.on(kind === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
    h2server.on('session', (session: http2.Http2Session) => {
      sessions.add(session)
      session.once('close', () => sessions.delete(session))
      // A misbehaving client must not take the process down.
      session.on('error', () => {})
    })
  }
  await listenOn(server, host, port)
  const address = server.address()
  const actualPort = typeof address === 'object' && address !== null ? address.port : port
  const shownHost = host.includes(':') ? `[${host}]` : host
  const scheme = kind === 'https' ? 'https' : 'http'
  return { kind, server, url: `${scheme}://${shownHost}:${actualPort}`, sockets, sessions }
}

/** Stops accepting connections and asks idle ones to close (HTTP/2 sessions get GOAWAY). */
export function stopAccepting(open: OpenListener): Promise<void> {
  const closed = new Promise<void>((resolve) => open.server.close(() => resolve()))
  if (open.server instanceof http.Server) open.server.closeIdleConnections()
  for (const session of open.sessions) session.close()
  return closed
}

/** Closes connections that became idle while draining. */
export function closeIdle(open: OpenListener): void {
  if (open.server instanceof http.Server) open.server.closeIdleConnections()
}

/** Ends every connection at once: the end of a drain that ran out of time. */
export function closeAll(open: OpenListener): void {
  if (open.server instanceof http.Server) open.server.closeAllConnections()
  for (const session of open.sessions) session.destroy()
  for (const socket of open.sockets) socket.destroy()
}
