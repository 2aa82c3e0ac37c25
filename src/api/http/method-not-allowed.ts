import type FindMyWay from 'find-my-way'
import { codes, UnderstudyError } from '../../errors/index.js'
import { format } from 'node:util'

/** 405 with the methods the path does accept, for the `Allow` header (RFC 9110 section 15.5.6). */
export class MethodNotAllowedError extends UnderstudyError {
  constructor (method: string, path: string, readonly allow: readonly string[]) {
    super('ERR_API_METHOD_NOT_ALLOWED', format(codes.ERR_API_METHOD_NOT_ALLOWED.message, method, path))
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
export function methodNotAllowed (router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>, method: string, path: string): MethodNotAllowedError | null {
  const allow = methods.filter((m) => m !== method && router.find(m, path) !== null)
  return allow.length === 0 ? null : new MethodNotAllowedError(method, path, allow)
}

/** The headers a 405 answer carries. */
export function allowHeaders (err: UnderstudyError): Record<string, string> {
  return err instanceof MethodNotAllowedError ? { allow: err.allow.join(', ') } : {}
}
