import { STATUS_CODES } from 'node:http'
import { createError } from '../../errors/index.js'
import {
  readDefinition,
  type MockServiceDocument,
  type ResponseDsl,
  type Transaction,
} from '../../dsl/index.js'
import {
  compileBodyPredicate,
  compileMatcher,
  failureInWords,
  isPrepared,
  MatchRequest,
  prepareMultipart,
  preparePredicates,
} from '../../match/index.js'
import type { StoredTransaction, Workspace } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { invalidField, validatorOf } from '../validation.js'

/*
 * The sandbox: test a request against a transaction, or every transaction of a service,
 * without deploying. Matching is the runtime's own compiled matcher (src/match), and the words of
 * `matchingLog` are the runtime's near-miss diagnosis, formatted (failureInWords): one code path.
 *
 * The product's clients (the sv-mcp tools) open a sandbox first, `GET .../sandbox?transactionId=`,
 * then send `POST .../sandbox/test-request {httpRequest}` naming no transaction: the request is
 * tested against the sandbox the caller opened last in that workspace (kept in the store).
 */

interface NameValue {
  name: string
  value: string
}
interface SandboxRequest {
  transactionId?: number
  serviceId?: number
  /** `body` (base64) is what the product's clients send; `content` the older name. */
  httpRequest: {
    method?: string
    path?: string
    queryParameters?: NameValue[]
    headers?: NameValue[]
    body?: string | null
    content?: string | null
  }
}

const nameValues = {
  type: ['array', 'null'],
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', maxLength: 1000 },
      value: { type: ['string', 'null'], maxLength: 100_000 },
    },
  },
}

const base64 = { type: ['string', 'null'], pattern: '^[A-Za-z0-9+/\\s]*={0,2}\\s*$' }

const readSandboxRequest = validatorOf<SandboxRequest>({
  type: 'object',
  required: ['httpRequest'],
  properties: {
    transactionId: { type: 'integer', minimum: 1 },
    serviceId: { type: 'integer', minimum: 1 },
    httpRequest: {
      type: 'object',
      properties: {
        method: { type: 'string', pattern: '^[A-Za-z]{1,20}$' },
        path: { type: 'string', maxLength: 8000 },
        queryParameters: nameValues,
        headers: nameValues,
        body: base64,
        content: base64,
      },
    },
  },
})

/** `?name=` as a positive integer, or undefined (400 naming it when malformed). */
function intQuery(ctx: ApiContext, name: string): number | undefined {
  const raw = ctx.query.get(name)
  if (raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw invalidField(`/${name}`, 'must be an integer')
  return Number(raw)
}

/**
 * The transactions the sandbox tests against: one (by id), every one of a service, or, when the
 * request names neither, the transaction of the sandbox the caller opened in this workspace.
 */
async function transactionsFor(
  ctx: ApiContext,
  workspace: Workspace,
  transactionId: number | undefined,
  serviceId: number | undefined,
  useOpened = false,
): Promise<StoredTransaction[]> {
  const store = ctx.deps.store
  if (transactionId === undefined && serviceId === undefined && useOpened) {
    const opened = await store.sandboxes.get(workspace.id, ctx.principal.user.id)
    if (opened === undefined) {
      throw invalidField(
        '/transactionId',
        `is required: name one (or serviceId), or open a sandbox first with GET /api/v1/workspaces/${workspace.id}/sandbox?transactionId=<id>`,
      )
    }
    transactionId = opened.transactionId
  }
  if (transactionId !== undefined) {
    const txn = await store.transactions.get(workspace.id, transactionId)
    if (txn === undefined) throw createError('ERR_API_NOT_FOUND', [`Transaction ${transactionId}`])
    return [txn]
  }
  if (serviceId !== undefined) {
    if ((await store.services.get(workspace.id, serviceId)) === undefined) {
      throw createError('ERR_API_NOT_FOUND', [`Service ${serviceId}`])
    }
    return (
      await store.transactions.list(
        workspace.id,
        { serviceId },
        { limit: Number.MAX_SAFE_INTEGER, skip: 0 },
      )
    ).items
  }
  throw invalidField('/transactionId', 'is required (or serviceId), in the query or the body')
}

function documentOf(transactions: StoredTransaction[]): MockServiceDocument {
  try {
    return readDefinition({
      transactions: transactions.map((t) => ({ id: t.id, name: t.name, dsl: t.dsl })),
    })
  } catch (err) {
    throw createError(
      'ERR_API_UNPROCESSABLE',
      [`the transactions cannot be served: ${(err as Error).message}`],
      { cause: err },
    )
  }
}

const mimeByShorthand: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  text: 'text/plain',
  html: 'text/html',
}

/** The reason phrase of a status: the standard one when the transaction sets none ('' for an unknown code). */
function reasonOf(status: number, given: string | undefined): string {
  return given ?? STATUS_CODES[status] ?? ''
}

/** The answer a mock service would give with this response: status, reason, headers, base64 body. */
async function answerOf(dsl: ResponseDsl, req: MatchRequest, conditionsOf: Transaction) {
  let status = dsl.status
  let statusMessage = reasonOf(status, dsl.statusMessage)
  const own = dsl.statusCodeConditions ?? []
  const conditions = own.length > 0 ? own : (conditionsOf.dsl.statusCodeConditions ?? [])
  for (const condition of conditions) {
    const predicate = compileBodyPredicate(condition.matcher, '')
    if ('error' in predicate) continue
    // A schema matcher validates asynchronously first, as in the runtime.
    if (isPrepared(predicate)) await preparePredicates(req, [predicate])
    if (predicate.test(req)) {
      status = condition.status
      statusMessage = reasonOf(status, condition.statusMessage)
      break
    }
  }
  const headers: NameValue[] = (dsl.headers ?? []).map((h) => ({ name: h.name, value: h.value }))
  if (
    dsl.contentType !== undefined &&
    !headers.some((h) => h.name.toLowerCase() === 'content-type')
  ) {
    const mime = mimeByShorthand[dsl.contentType.toLowerCase()] ?? dsl.contentType
    headers.push({
      name: 'Content-Type',
      value:
        dsl.charset === undefined || dsl.binary === true ? mime : `${mime}; charset=${dsl.charset}`,
    })
  }
  return { status, statusMessage, headers, body: dsl.content ?? '', proxyUrl: dsl.proxyUrl ?? null }
}

async function testRequest(ctx: ApiContext) {
  const workspace = await ctx.workspace()
  const input = readSandboxRequest(await ctx.json())
  const transactions = await transactionsFor(
    ctx,
    workspace,
    input.transactionId ?? intQuery(ctx, 'transactionId'),
    input.serviceId ?? intQuery(ctx, 'serviceId'),
    true,
  )
  const matcher = compileMatcher(documentOf(transactions), (txn) => txn)
  const http = input.httpRequest
  const query = (http.queryParameters ?? [])
    .map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(q.value ?? '')}`)
    .join('&')
  const path =
    http.path === undefined || http.path === ''
      ? '/'
      : http.path.startsWith('/')
        ? http.path
        : `/${http.path}`
  const headers: Record<string, string | string[]> = {}
  for (const h of http.headers ?? []) {
    const name = h.name.toLowerCase()
    const existing = headers[name]
    headers[name] =
      existing === undefined
        ? (h.value ?? '')
        : [...(Array.isArray(existing) ? existing : [existing]), h.value ?? '']
  }
  const content = http.body ?? http.content
  const body =
    content === undefined || content === null || content === ''
      ? null
      : Buffer.from(content, 'base64')
  const req = new MatchRequest(
    (http.method ?? 'GET').toUpperCase(),
    query === '' ? path : `${path}?${query}`,
    headers,
    body,
  )
  if (matcher.needsForm && body !== null) await prepareMultipart(req)
  if (matcher.prepared !== null) await preparePredicates(req, matcher.prepared)
  const hit = matcher.match(req)
  const now = Date.now()
  if (hit !== null) {
    return {
      result: {
        matched: true,
        transactionId: hit.id,
        transactionName: hit.name,
        ...(await answerOf(hit.payload.dsl.responseDsl, req, hit.payload)),
        matchingLog: [],
      },
    }
  }
  const closest = matcher.diagnose(req, 1)[0]
  const matchingLog = (closest?.failed ?? []).map((f) => ({ t: now, m: failureInWords(f) }))
  // Clients read an empty log as a match: a miss always says why, even without a near miss.
  if (matchingLog.length === 0) {
    matchingLog.push({ t: now, m: 'Request did not match any transaction' })
  }
  const notFound = Buffer.from(
    JSON.stringify({ error: 'No transaction matched the request', closest: closest?.name ?? null }),
  ).toString('base64')
  return {
    result: {
      matched: false,
      transactionId: closest?.transactionId ?? null,
      transactionName: closest?.name ?? null,
      status: 404,
      statusMessage: 'Not Found',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      body: notFound,
      proxyUrl: null,
      matchingLog,
    },
  }
}

/** A request that the transaction matches, as far as its DSL says: the sandbox's starting point. */
function sampleRequestOf(t: StoredTransaction) {
  const r = t.dsl.requestDsl
  const equalsOf = (list: typeof r.headers) =>
    (list ?? [])
      .filter((m) => m.matcherName === 'equals' && (m.key ?? '') !== '')
      .map((m) => ({ name: m.key as string, value: m.matchingValue ?? '' }))
  const path = r.url?.matcherName === 'equals_url' ? (r.url.matchingValue ?? '/') : (r.path ?? '/')
  const sample = r.sampleBody ?? t.dsl.sampleBody
  const wholeBody = (r.body ?? []).find(
    (m) => m.key === undefined && m.matcherName === 'equals',
  )?.matchingValue
  return {
    method: r.method ?? 'GET',
    path,
    queryParameters: equalsOf(r.queryParams),
    headers: equalsOf(r.headers),
    content:
      wholeBody !== undefined
        ? Buffer.from(wholeBody).toString('base64')
        : sample === undefined
          ? ''
          : /^[A-Za-z0-9+/]*={0,2}$/.test(sample)
            ? sample
            : Buffer.from(sample).toString('base64'),
  }
}

const base = '/api/v1/workspaces/:workspaceId/sandbox'

/** The sandbox endpoints: open one for a transaction, and test requests against it. */
export const sandboxRoutes: Route[] = [
  {
    method: 'GET',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = intQuery(ctx, 'transactionId')
      if (id === undefined) throw invalidField('/transactionId', 'is required')
      const [txn] = await transactionsFor(ctx, workspace, id, undefined)
      const stored = txn as StoredTransaction
      const userId = ctx.principal.user.id
      // Opens the sandbox: a following test-request naming no transaction tests against this one.
      await ctx.deps.store.write(async (tx) =>
        tx.sandboxes.open({ workspaceId: workspace.id, userId, transactionId: stored.id }),
      )
      return {
        result: {
          workspaceId: workspace.id,
          userId,
          transactionId: stored.id,
          serviceId: stored.serviceId,
          name: stored.name,
          httpRequest: sampleRequestOf(stored),
        },
      }
    },
  },
  { method: 'POST', path: `${base}/test-request`, family: 'v1', handler: testRequest },
]
