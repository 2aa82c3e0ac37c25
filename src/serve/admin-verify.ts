import type http from 'node:http'
import { createError, v1Envelope } from '../errors/index.js'
import { filterFromQuery, filterParams, readVerification } from '../inspect/index.js'
import type { AdminSearch } from './admin-target.js'

type Reply = { status: number; body: unknown }
/** An admin route: method, path, and a handler given the query and the request body. */
type VerifyRoute = [
  string,
  string,
  (
    req: http.IncomingMessage,
    params: Record<string, string | undefined>,
    query: URLSearchParams,
    body: Buffer,
  ) => Reply | Promise<Reply>,
]

/** True when a query asks for a filtered inspection list. */
export function hasFilter(query: URLSearchParams): boolean {
  return filterParams.some((name) => query.has(name))
}

/**
 * The verification routes of the admin API (docs/runtime.md, "Verification"): `DELETE
 * /inspection` (reset), `GET /inspection/count`, `GET /inspection/unmatched` and `POST
 * /inspection/verify`. The filtered `GET /inspection` is in admin.ts, next to the plain list.
 * On a cluster primary each query is answered from every replica's journal (cluster-admin.ts).
 */
export function verificationRoutes(search: AdminSearch): VerifyRoute[] {
  return [
    ['DELETE', '/inspection', async () => ok({ deleted: await search.clear() })],
    [
      'GET',
      '/inspection/count',
      async (_req, _params, query) => ok({ count: await search.count(filterFromQuery(query)) }),
    ],
    [
      'GET',
      '/inspection/unmatched',
      async (_req, _params, query) => {
        const limit = Math.min(Math.max(Number(query.get('limit') ?? 50) || 50, 1), 1000)
        const page = await search.unmatched(filterFromQuery(query), limit)
        return { status: 200, body: { ...v1Envelope(null, page.entries, null), total: page.total } }
      },
    ],
    [
      'POST',
      '/inspection/verify',
      async (_req, _params, _query, body) => {
        let parsed: unknown
        try {
          parsed = JSON.parse(body.toString('utf8'))
        } catch {
          throw createError('ERR_API_VALIDATION', [
            'the body must be JSON {request, count | atLeast | atMost}',
          ])
        }
        return ok(await search.verify(readVerification(parsed)))
      },
    ],
  ]
}

function ok(result: unknown): Reply {
  return { status: 200, body: v1Envelope(null, result, null) }
}
