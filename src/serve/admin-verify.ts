import type http from 'node:http'
import { createError, v1Envelope } from '../errors/index.js'
import { filterFromQuery, filterParams, readVerification, type InspectionSearch } from '../inspect/index.js'

type Reply = { status: number; body: unknown }
/** An admin route: method, path, and a handler given the query and the request body. */
export type VerifyRoute = [string, string, (req: http.IncomingMessage, params: Record<string, string | undefined>, query: URLSearchParams, body: Buffer) => Reply | Promise<Reply>]

/** True when a query asks for a filtered inspection list. */
export function hasFilter (query: URLSearchParams): boolean {
  return filterParams.some((name) => query.has(name))
}

/**
 * The verification routes of the admin API (docs/runtime.md, "Verification"): `DELETE
 * /inspection` (reset), `GET /inspection/count`, `GET /inspection/unmatched` and `POST
 * /inspection/verify`. The filtered `GET /inspection` is in admin.ts, next to the plain list.
 * A target without search (a cluster primary) answers 503 naming why.
 */
export function verificationRoutes (search: InspectionSearch | undefined): VerifyRoute[] {
  const need = (): InspectionSearch => {
    if (search === undefined) throw createError('ERR_API_UNAVAILABLE', ['inspection queries and verification are not available with --replicas above 1'])
    return search
  }
  return [
    ['DELETE', '/inspection', () => ok({ deleted: need().clear() })],
    ['GET', '/inspection/count', (_req, _params, query) => ok({ count: need().count(filterFromQuery(query)) })],
    ['GET', '/inspection/unmatched', (_req, _params, query) => {
      const limit = Math.min(Math.max(Number(query.get('limit') ?? 50) || 50, 1), 1000)
      const page = need().unmatched(filterFromQuery(query), limit)
      return { status: 200, body: { ...v1Envelope(null, page.entries, null), total: page.total } }
    }],
    ['POST', '/inspection/verify', (_req, _params, _query, body) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(body.toString('utf8'))
      } catch {
        throw createError('ERR_API_VALIDATION', ['the body must be JSON {request, count | atLeast | atMost}'])
      }
      return ok(need().verify(readVerification(parsed)))
    }],
  ]
}

function ok (result: unknown): Reply {
  return { status: 200, body: v1Envelope(null, result, null) }
}
