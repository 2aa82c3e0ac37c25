import type { HandlerResult } from '../http/types.js'

/**
 * The body the mock services specification shows for deletes and bulk operations, `{body,
 * statusCode, statusCodeValue}` (a serialized server-side response entity), written as is rather
 * than inside the envelope so that clients reading `statusCodeValue` keep working. Errors of the
 * same endpoints stay envelopes.
 *
 * @example
 * return okBody(null)      // {"body":null,"statusCode":"OK","statusCodeValue":200}
 * return okBody([4, 5, 6]) // a bulk operation: the ids it affected
 */
export function okBody(body: unknown): HandlerResult {
  return {
    status: 200,
    raw: JSON.stringify({ body, statusCode: 'OK', statusCodeValue: 200 }),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  }
}
