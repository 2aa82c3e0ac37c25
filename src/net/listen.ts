import type { Server } from 'node:net'
import { createError, type UnderstudyError } from '../errors/index.js'

/**
 * The one mapping of a listen failure to ERR_SERVE_LISTEN naming the address, with the reasons a
 * user can act on in words (port in use, permission denied).
 *
 * @example
 * describeListenError(Object.assign(new Error('x'), { code: 'EADDRINUSE' }), '127.0.0.1', 8080).message
 * // 'Cannot listen on 127.0.0.1:8080: the port is in use'
 */
function describeListenError(
  err: NodeJS.ErrnoException,
  host: string,
  port: number,
): UnderstudyError {
  const reason =
    err.code === 'EADDRINUSE'
      ? 'the port is in use'
      : err.code === 'EACCES'
        ? 'permission denied'
        : err.message
  return createError('ERR_SERVE_LISTEN', [`${host}:${port}`, reason], { cause: err })
}

/**
 * Connections the kernel may hold for the server before it accepts them. Node's default, 511,
 * overflows when a load test opens more connections at once than that: a burst of 3,000
 * connects to a bare server counted about 6,400 listen overflows and 870 SYN cookies (a client
 * whose handshake was answered by a cookie may then see its connection reset), and none with
 * this. The kernel caps it at `net.core.somaxconn` (4,096 by default since Linux 5.4).
 */
export const LISTEN_BACKLOG = 65_535

/**
 * Starts `server` listening, with a backlog for bursts of connections (LISTEN_BACKLOG); rejects
 * with ERR_SERVE_LISTEN (see describeListenError). The error listener is removed once
 * listening, so that later errors go to the server's own handlers.
 *
 * @example
 * await listenOn(http.createServer(handler), '127.0.0.1', 0)
 */
export async function listenOn(server: Server, host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void =>
      reject(describeListenError(err, host, port))
    server.once('error', onError)
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.removeListener('error', onError)
      resolve()
    })
  })
}
