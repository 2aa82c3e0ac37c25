import { Exchange, type AnyRequest, type AnyResponse } from './exchange.js'
import type { RuntimeState } from './runtime-state.js'

/**
 * The request listener of every runtime listener (HTTP/1.1, HTTPS with h2, h2c): one Exchange per
 * request, guarded so that an unexpected throw answers 500 instead of escaping.
 *
 * @example
 * http.createServer(createRequestHandler(state))
 */
export function createRequestHandler (state: RuntimeState): (req: AnyRequest, res: AnyResponse) => void {
  // HOT PATH: runs for every request.
  return function handleRequest (req, res) {
    const exchange = new Exchange(state, state.mock, req, res, Date.now(), req.httpVersionMajor === 2)
    try {
      exchange.start()
    } catch (err) {
      exchange.fail(err)
    }
  }
}
