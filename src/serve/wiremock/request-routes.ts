import type { InspectionRecord } from '../../inspect/index.js'
import type { MatchRequest, NearMiss } from '../../match/index.js'
import type { WireMockContext } from './context.js'
import { malformed, notFound } from './errors.js'
import { loggedRequest, matchRequestOf, requestOfLogged } from './journal.js'
import { compileMetadataPattern, compileRequestPattern } from './patterns.js'
import type { Route } from './route.js'

/** How many near misses WireMock reports for one request or pattern. */
const NEAR_MISSES = 3

/**
 * `/__admin/requests...` (the journal: list, read, count, find, remove, reset, unmatched) and
 * the near-miss queries, answered from the inspection ring and the matcher's own diagnosis.
 */
export function requestRoutes(ctx: WireMockContext): Route[] {
  const { journal } = ctx
  const disabled = (): boolean => !journal.enabled
  const matching = async (pattern: unknown): Promise<InspectionRecord[]> => {
    const matcher = compileRequestPattern(pattern, await ctx.converter())
    return (await journal.records()).filter((r) => matcher.match(matchRequestOf(r)) !== null)
  }
  const forRequest = (request: MatchRequest, logged: Record<string, unknown>): unknown[] => {
    return ctx.host
      .served()
      .matcher.diagnose(request, NEAR_MISSES)
      .map((miss) => ({
        request: logged,
        stubMapping: ctx.layer.byTransaction(miss.transactionId, miss.name)?.json ?? {
          name: miss.name,
        },
        matchResult: { distance: distanceOf(miss) },
      }))
  }
  const unmatched = async (): Promise<InspectionRecord[]> =>
    (await journal.records()).filter((r) => !r.matched)
  const clear = async (): Promise<Reply> => {
    await journal.clear()
    return { status: 200, body: {} }
  }
  return [
    [
      'GET',
      '/__admin/requests',
      async ({ query }) => {
        const since = query.get('since')
        const sinceMs = since === null ? null : Date.parse(since)
        if (sinceMs !== null && Number.isNaN(sinceMs)) {
          throw malformed(`since ${JSON.stringify(since)} is not an ISO 8601 date-time`)
        }
        let records = await journal.records()
        if (sinceMs !== null) records = records.filter((r) => r.timestamp > sinceMs)
        if (query.get('unmatched') === 'true') records = records.filter((r) => !r.matched)
        const total = records.length
        const limit = query.get('limit')
        if (limit !== null && /^\d+$/.test(limit)) records = records.slice(0, Number(limit))
        return {
          status: 200,
          body: {
            requests: records.map((r) => journal.serveEvent(r)),
            meta: { total },
            requestJournalDisabled: disabled(),
          },
        }
      },
    ],
    ['DELETE', '/__admin/requests', clear],
    ['POST', '/__admin/requests/reset', clear],
    [
      'POST',
      '/__admin/requests/count',
      async ({ body }) => ({
        status: 200,
        body: { count: (await matching(body)).length, requestJournalDisabled: disabled() },
      }),
    ],
    [
      'POST',
      '/__admin/requests/find',
      async ({ body }) => ({
        status: 200,
        body: {
          requests: (await matching(body)).map(loggedRequest),
          requestJournalDisabled: disabled(),
        },
      }),
    ],
    [
      'POST',
      '/__admin/requests/remove',
      async ({ body }) => {
        const removed = await matching(body)
        const events = removed.map((r) => journal.serveEvent(r))
        journal.remove(removed)
        return { status: 200, body: { serveEvents: events, requestJournalDisabled: disabled() } }
      },
    ],
    [
      'POST',
      '/__admin/requests/remove-by-metadata',
      async ({ body }) => {
        const test = compileMetadataPattern(body, await ctx.converter())
        const removed = (await journal.records()).filter((r) =>
          test(ctx.layer.byTransaction(r.transactionId, r.respondingTxn)?.json['metadata']),
        )
        const events = removed.map((r) => journal.serveEvent(r))
        journal.remove(removed)
        return { status: 200, body: { serveEvents: events, requestJournalDisabled: disabled() } }
      },
    ],
    [
      'GET',
      '/__admin/requests/unmatched',
      async () => ({
        status: 200,
        body: {
          requests: (await unmatched()).map(loggedRequest),
          requestJournalDisabled: disabled(),
        },
      }),
    ],
    [
      'GET',
      '/__admin/requests/unmatched/near-misses',
      async () => ({
        status: 200,
        body: {
          nearMisses: (await unmatched()).flatMap((r) =>
            forRequest(matchRequestOf(r), loggedRequest(r)),
          ),
        },
      }),
    ],
    [
      'GET',
      '/__admin/requests/:id',
      async ({ params }) => {
        const record = await journal.get(params['id'] ?? '')
        if (record === undefined) throw notFound(`Request ${params['id'] ?? ''} not found`)
        return { status: 200, body: journal.serveEvent(record) }
      },
    ],
    [
      'DELETE',
      '/__admin/requests/:id',
      async ({ params }) => {
        const record = await journal.get(params['id'] ?? '')
        if (record !== undefined) journal.remove([record])
        return { status: 200, body: {} }
      },
    ],
    ...nearMissRoutes('/__admin/near-misses', ctx, forRequest),
    // wiremock-rest-client resolves these under `requests/`.
    ...nearMissRoutes('/__admin/requests/near-misses', ctx, forRequest),
  ]
}

type Reply = { status: number; body?: unknown }

function nearMissRoutes(
  prefix: string,
  ctx: WireMockContext,
  forRequest: (req: MatchRequest, logged: Record<string, unknown>) => unknown[],
): Route[] {
  return [
    [
      'POST',
      `${prefix}/request`,
      ({ body }) => {
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw malformed('the body must be a logged request {url, method, headers, body}')
        }
        const request = requestOfLogged(body as Record<string, unknown>)
        const logged = {
          ...(body as Record<string, unknown>),
          url: request.url,
          method: request.method,
        }
        return { status: 200, body: { nearMisses: forRequest(matchRequestOf(request), logged) } }
      },
    ],
    [
      'POST',
      `${prefix}/request-pattern`,
      async ({ body }) => {
        const matcher = compileRequestPattern(body, await ctx.converter())
        const scored = (await ctx.journal.records()).flatMap((r) => {
          const miss = matcher.diagnose(matchRequestOf(r), 1)[0]
          return miss === undefined ? [] : [{ record: r, distance: distanceOf(miss) }]
        })
        scored.sort((a, b) => a.distance - b.distance)
        return {
          status: 200,
          body: {
            nearMisses: scored.slice(0, NEAR_MISSES).map((s) => ({
              request: loggedRequest(s.record),
              requestPattern: body,
              matchResult: { distance: s.distance },
            })),
          },
        }
      },
    ],
  ]
}

/** WireMock's distance, 0 (identical) to 1: the share of conditions that failed. */
function distanceOf(miss: NearMiss): number {
  return miss.total === 0 ? 1 : Math.round(((miss.total - miss.matched) / miss.total) * 1000) / 1000
}
