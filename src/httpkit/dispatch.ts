import type { IncomingMessage, ServerResponse } from 'node:http'
import type FindMyWay from 'find-my-way'
import { toUnderstudyError, type UnderstudyError } from '../errors/index.js'
import type { Router } from './router.js'

/** What a server supplies to `dispatch`: its routes' runner and its error answers. */
interface Dispatch<R> {
  /** Runs the route's handler and writes its answer. */
  run: (route: R, params: Record<string, string | undefined>) => Promise<void>
  /** The error of a request no route takes (a server may authenticate the caller first). */
  unrouted: () => Promise<UnderstudyError>
  /** Writes an error in the server's envelope; `route` is null when no route took the request. */
  writeError: (err: UnderstudyError, route: R | null) => void
  /** Logs a throw that is not an UnderstudyError (answered 500 ERR_INTERNAL with a generic message). */
  logInternal: (thrown: unknown) => void
}

/**
 * Hands one request to the route the router finds for it (`path` as the server reads it), or
 * answers the server's unrouted error. Whatever a handler throws is answered in the server's
 * envelope, never as a stack trace; an answer already started is cut off instead. The body of a
 * refused request is drained, so that the connection stays usable.
 *
 * @example
 * dispatch<Route>(router, req, res, path, { run, unrouted: async () => unrouted(router, req.method ?? 'GET', path, path), writeError, logInternal })
 */
export function dispatch<R>(
  router: Router,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  server: Dispatch<R>,
): void {
  const found = router.find((req.method ?? 'GET') as FindMyWay.HTTPMethod, path)
  const route = found === null ? null : (found.store as R)
  const fail = (thrown: unknown): void => {
    const err = toUnderstudyError(thrown)
    if (err.code === 'ERR_INTERNAL') server.logInternal(thrown)
    if (!res.headersSent) server.writeError(err, route)
    else res.destroy()
    if (!req.readableEnded) req.resume()
  }
  if (found === null || route === null) {
    req.resume()
    server.unrouted().then((err) => server.writeError(err, null), fail)
    return
  }
  server.run(route, found.params).catch(fail)
}
