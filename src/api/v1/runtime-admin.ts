import { adminRequest, type RuntimeAdmin } from '../../deploy/index.js'

/** How long the API waits for a runtime's admin listener. */
const TIMEOUT_MS = 5000

/**
 * A call on a running mock service's admin API (docs/runtime.md) as the control plane makes it:
 * with the runtime's token, waiting at most TIMEOUT_MS, returning the whole envelope. The
 * runtime's refusals keep their code, message and details (a bad filter is the caller's 400
 * ERR_API_VALIDATION, an evicted record 404 ERR_INSPECT_NOT_FOUND); a runtime that does not answer
 * or fails on its side is 503 ERR_API_UNAVAILABLE.
 *
 * @example
 * const { result } = await adminCall(admin, 'POST', '/inspection/verify', { request: { method: 'GET' }, count: 1 })
 */
export async function adminCall<T = unknown>(
  admin: RuntimeAdmin,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ result: T; body: Record<string, unknown> }> {
  const body = await adminRequest(admin, path, {
    method,
    json,
    timeoutMs: TIMEOUT_MS,
    unavailable: 'ERR_API_UNAVAILABLE',
  })
  return { result: body.result as T, body }
}
