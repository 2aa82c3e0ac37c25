import { Exchange, type AnyRequest, type AnyResponse } from './exchange.js'
import type { RuntimeState } from './runtime-state.js'

/**
 * The request listener of every runtime listener (HTTP/1.1, HTTPS with h2, h2c): one Exchange per
 * request, guarded so that an unexpected throw answers 500 instead of escaping.
 *
 * @example
 * http.createServer(createRequestHandler(state))
 */
export function createRequestHandler(
  state: RuntimeState,
): (req: AnyRequest, res: AnyResponse) => void {
  // HOT PATH: runs for every request.
  return function handleRequest(req, res) {
    // One null test when the mock port carries no admin API; otherwise a character test first,
    // so that ordinary paths never reach the prefix comparison.
    const portAdmin = state.portAdmin
    if (portAdmin !== null && isAdminPath(req.url)) {
      portAdmin(req, res)
      return
    }
    const exchange = new Exchange(
      state,
      state.mock,
      req,
      res,
      Date.now(),
      req.httpVersionMajor === 2,
    )
    try {
      exchange.start()
    } catch (err) {
      exchange.fail(err)
    }
  }
}

/** True for `/__admin`, `/__admin/...` and `/__admin?...`. */
function isAdminPath(url: string | undefined): boolean {
  if (url === undefined || url.charCodeAt(1) !== 95 /* _ */ || !url.startsWith('/__admin')) {
    return false
  }
  const next = url.charCodeAt(8)
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */
}
