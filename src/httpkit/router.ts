import { format } from 'node:util'
import FindMyWay from 'find-my-way'
import { codes, createError, UnderstudyError } from '../errors/index.js'

/** A find-my-way router of the product's servers. */
export type Router = FindMyWay.Instance<FindMyWay.HTTPVersion.V1>

/**
 * A router as every server of the product reads paths: doubled and trailing slashes tolerated
 * (clients build URLs by joining strings), case-sensitive segments, parameters up to 500
 * characters (ids of imported objects can be long). Each route carries its `store`; the handler
 * slot of find-my-way is unused, since each server dispatches on the store itself.
 *
 * @example
 * const router = createRouter([['GET', '/health', health]])
 * router.find('GET', '/health//')?.store // health
 */
export function createRouter<S>(
  routes: Iterable<readonly [method: string, path: string, store: S]>,
): Router {
  const router = FindMyWay<FindMyWay.HTTPVersion.V1>({
    ignoreDuplicateSlashes: true,
    ignoreTrailingSlash: true,
    caseSensitive: true,
    maxParamLength: 500,
  })
  for (const [method, path, store] of routes) {
    router.on(method as FindMyWay.HTTPMethod, path, noop, store as Record<string, unknown>)
  }
  return router
}

/** `/a/b?x=1` -> the path and the query (everything after the first `?`). */
export function splitUrl(url: string | undefined): { path: string; query: URLSearchParams } {
  const raw = url ?? '/'
  const q = raw.indexOf('?')
  return {
    path: q === -1 ? raw : raw.slice(0, q),
    query: new URLSearchParams(q === -1 ? '' : raw.slice(q + 1)),
  }
}

/** 405 with the methods the path does accept, for the `Allow` header (RFC 9110 section 15.5.6). */
class MethodNotAllowedError extends UnderstudyError {
  constructor(
    method: string,
    path: string,
    readonly allow: readonly string[],
  ) {
    super(
      'ERR_API_METHOD_NOT_ALLOWED',
      format(codes.ERR_API_METHOD_NOT_ALLOWED.message, method, path),
    )
  }
}

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The 405 of a path the router knows for other methods than `method`, or null when it knows the
 * path for none (a 404).
 *
 * @example
 * methodNotAllowed(router, 'DELETE', '/api/v1/trackings/1')?.allow // ['GET']
 */
function methodNotAllowed(
  router: Router,
  method: string,
  path: string,
): MethodNotAllowedError | null {
  const allow = methods.filter((m) => m !== method && router.find(m, path) !== null)
  return allow.length === 0 ? null : new MethodNotAllowedError(method, path, allow)
}

/** What an unrouted request gets: 405 naming the methods the path takes, else 404 naming `what`. */
export function unrouted(
  router: Router,
  method: string,
  path: string,
  what: string,
): UnderstudyError {
  return methodNotAllowed(router, method, path) ?? createError('ERR_API_NOT_FOUND', [what])
}

/** The headers an error answer carries whatever the API: `Allow` of a 405, `Retry-After` of a throttled caller. */
export function errorHeaders(err: UnderstudyError): Record<string, string> {
  const headers: Record<string, string> = {}
  if (err instanceof MethodNotAllowedError) headers['allow'] = err.allow.join(', ')
  const retryAfter = (err as { retryAfter?: unknown }).retryAfter
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter)
  return headers
}

function noop(): void {}
