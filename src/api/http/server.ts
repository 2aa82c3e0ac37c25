import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import FindMyWay from 'find-my-way'
import {
  createError,
  toEnvelopeError,
  toUnderstudyError,
  v1Envelope,
  v4Envelope,
  type UnderstudyError,
} from '../../errors/index.js'
import { Authenticator } from '../auth.js'
import { authorize, visibleWorkspace, type Access } from '../access/authorize.js'
import { peerAddress, ThrottledError } from '../access/throttle.js'
import { mediaTypeOf, readJson, readMultipart } from './body.js'
import { allowHeaders, methodNotAllowed } from './method-not-allowed.js'
import type { ApiContext, ApiDeps, ApiFamily, HandlerResult, Principal, Route } from './types.js'

/** The family of a path, for errors raised before a route is known. */
function familyOfPath (path: string): ApiFamily {
  if (path.startsWith('/api/v4')) return 'v4'
  if (path.startsWith('/reports/')) return 'reports'
  return 'v1'
}

/**
 * The control plane's request listener: find-my-way routing (duplicate and trailing slashes
 * tolerated, DESIGN.md 5b), HTTP Basic auth, the envelope of each API family for successes and
 * errors, and never a stack trace or a 500 for bad input: an unknown throw is logged and answered
 * 500 ERR_INTERNAL with a generic message.
 *
 * @example
 * http.createServer(createApiHandler(deps, [...servicesRoutes, ...tagRoutes]))
 */
export function createApiHandler (deps: ApiDeps, routes: readonly Route[]): (req: IncomingMessage, res: ServerResponse) => void {
  const router = FindMyWay<FindMyWay.HTTPVersion.V1>({ ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 500 })
  const paths = new Set<string>()
  for (const route of routes) {
    router.on(route.method, route.path, noop, route)
    paths.add(route.path)
  }
  const authenticator = deps.authenticator ?? new Authenticator(deps.store)

  return function handleApiRequest (req, res) {
    const requestId = randomUUID()
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q === -1 ? url : url.slice(0, q)
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
    const found = router.find((req.method ?? 'GET') as FindMyWay.HTTPMethod, path)
    if (found === null) {
      req.resume()
      notFound(req, path).then(
        (err) => writeError(res, familyOfPath(path), requestId, err),
        (err: unknown) => writeError(res, familyOfPath(path), requestId, toUnderstudyError(err)),
      )
      return
    }
    const route = found.store as Route
    run(route, req, res, found.params, path, query, requestId).catch((thrown: unknown) => {
      const err = toUnderstudyError(thrown)
      if (err.code === 'ERR_INTERNAL') deps.log.error({ err: thrown, method: req.method, path, requestId }, 'api request failed')
      if (!res.headersSent) writeError(res, route.family, requestId, err)
      else res.destroy()
      if (!req.readableEnded) req.resume()
    })
  }

  /**
   * What an unrouted request gets: 401 first for the API paths (an unauthenticated caller learns
   * nothing about which endpoints exist), then 405 when the path exists for another method, else
   * 404.
   */
  async function notFound (req: IncomingMessage, path: string): Promise<UnderstudyError> {
    if (path.startsWith('/api/') || path.startsWith('/reports/')) await authenticator.authenticate(req.headers.authorization, peerAddress(req))
    return methodNotAllowed(router, req.method ?? 'GET', path) ?? createError('ERR_API_NOT_FOUND', [`Resource ${path}`])
  }

  async function run (
    route: Route,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string | undefined>,
    path: string,
    query: URLSearchParams,
    requestId: string,
  ): Promise<void> {
    const principal = route.auth === 'none' ? null : await authenticator.authenticate(req.headers.authorization, peerAddress(req))
    // Filled by authorize() below, before the handler runs: the route's workspace, read once.
    let access: Access = {}
    const ctx: ApiContext = {
      req,
      res,
      family: route.family,
      method: route.method,
      path,
      params,
      query,
      requestId,
      deps,
      principal: principal as Principal,
      json: async () => readJson(req, deps.options.jsonLimit),
      multipart: async () => readMultipart(req, deps.options.uploadLimit),
      isMultipart: () => mediaTypeOf(req) === 'multipart/form-data',
      intParam: (name) => intParam(params, name),
      workspace: async (name = 'workspaceId') => name === 'workspaceId' && access.workspace !== undefined
        ? access.workspace
        : (await visibleWorkspace(ctx, intParam(params, name))).workspace,
    }
    // Roles and visibility on every route (src/api/access/policy.ts): 404 for what the caller cannot see.
    if (principal !== null) access = await authorize(ctx, route)
    const outcome = await route.handler(ctx)
    if (!req.readableEnded) req.resume()
    await writeResult(res, route.family, requestId, outcome)
  }
}

function intParam (params: Record<string, string | undefined>, name: string): number {
  const raw = params[name] ?? ''
  if (!/^\d{1,15}$/.test(raw)) {
    throw createError('ERR_API_VALIDATION', [`${name} must be a positive integer, not "${raw}"`], { details: [{ path: `/${name}`, message: 'must be a positive integer' }] })
  }
  return Number(raw)
}

async function writeResult (res: ServerResponse, family: ApiFamily, requestId: string, outcome: HandlerResult): Promise<void> {
  if ('raw' in outcome) {
    const body = outcome.raw === null ? null : Buffer.isBuffer(outcome.raw) ? outcome.raw : Buffer.from(outcome.raw)
    const headers: Record<string, string | number> = { ...outcome.headers }
    if (body !== null) headers['content-length'] = body.length
    res.writeHead(outcome.status, headers)
    res.end(body ?? undefined)
    return
  }
  if ('resultJson' in outcome) {
    await writeEnvelopeAround(res, family, requestId, outcome)
    return
  }
  const envelope = envelopeOf(family, null, outcome.result, requestId)
  if (outcome.paging !== undefined) Object.assign(envelope, outcome.paging)
  if (outcome.extra !== undefined) Object.assign(envelope, outcome.extra)
  writeJson(res, outcome.status ?? 200, envelope)
}

/** Stands for the result in an envelope whose result is written as given. */
const RESULT_MARK = '\u0000result\u0000'

/** The envelope with the pieces of `resultJson` as its result, written without joining them. */
async function writeEnvelopeAround (res: ServerResponse, family: ApiFamily, requestId: string, outcome: { status?: number; resultJson: readonly Buffer[]; extra?: Record<string, unknown> }): Promise<void> {
  const envelope = envelopeOf(family, null, RESULT_MARK, requestId)
  if (outcome.extra !== undefined) Object.assign(envelope, outcome.extra)
  const text = JSON.stringify(envelope)
  const at = text.indexOf(JSON.stringify(RESULT_MARK))
  const pieces = [Buffer.from(text.slice(0, at)), ...outcome.resultJson, Buffer.from(text.slice(at + JSON.stringify(RESULT_MARK).length))]
  let length = 0
  for (const piece of pieces) length += piece.length
  res.writeHead(outcome.status ?? 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length })
  // An answer of tens of MiB (an import's transactions) is handed to the socket as it drains, not
  // queued whole in one turn of the event loop, which then spent hundreds of ms in writev (issue 8).
  for (const piece of pieces) {
    if (!res.write(piece)) await drained(res)
    if (res.destroyed) return
  }
  res.end()
}

/** Resolves when the response can take more, or is closed (a client that went away). */
async function drained (res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

function writeError (res: ServerResponse, family: ApiFamily, requestId: string, err: UnderstudyError): void {
  const error = toEnvelopeError(err, family === 'v4')
  const headers = allowHeaders(err)
  if (err.code === 'ERR_API_UNAUTHORIZED') headers['www-authenticate'] = 'Basic realm="understudy"'
  if (err instanceof ThrottledError) headers['retry-after'] = String(err.retryAfter)
  writeJson(res, err.statusCode, envelopeOf(family, error, null, requestId), headers)
}

function envelopeOf (family: ApiFamily, error: ReturnType<typeof toEnvelopeError> | null, result: unknown, requestId: string): Record<string, unknown> {
  return family === 'v4' ? v4Envelope(error, result, requestId) : v1Envelope(error, result, requestId)
}

function writeJson (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = Buffer.from(JSON.stringify(body))
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': text.length })
  res.end(text)
}

function noop (): void {}

