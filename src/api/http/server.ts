import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  toEnvelopeError,
  v1Envelope,
  v4Envelope,
  type UnderstudyError,
} from '../../errors/index.js'
import {
  createRouter,
  dispatch,
  errorHeaders,
  mediaTypeOf,
  pathInt,
  readJson,
  splitUrl,
  unrouted,
  writeJson,
  writeRaw,
  JSON_TYPE,
} from '../../httpkit/index.js'
import { Authenticator } from '../auth.js'
import { authorize, visibleWorkspace, type Access } from '../access/authorize.js'
import { peerAddress } from '../access/throttle.js'
import { bodyStream, writeJsonBody } from './compression.js'
import { readMultipart } from './multipart.js'
import type { ApiContext, ApiDeps, ApiFamily, HandlerResult, Principal, Route } from './types.js'

/** The family of a path, for errors raised before a route is known. */
function familyOfPath(path: string): ApiFamily {
  if (path.startsWith('/api/v4')) return 'v4'
  if (path.startsWith('/reports/')) return 'reports'
  return 'v1'
}

/**
 * The control plane's request listener: the HTTP kit's routing (duplicate and trailing slashes
 * tolerated), HTTP Basic auth, the envelope of each API family for successes and
 * errors, and never a stack trace or a 500 for bad input: an unknown throw is logged and answered
 * 500 ERR_INTERNAL with a generic message.
 *
 * @example
 * http.createServer(createApiHandler(deps, [...servicesRoutes, ...tagRoutes]))
 */
export function createApiHandler(
  deps: ApiDeps,
  routes: readonly Route[],
): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createRouter(routes.map((route) => [route.method, route.path, route] as const))
  const authenticator = deps.authenticator ?? new Authenticator(deps.store)

  return function handleApiRequest(req, res) {
    const requestId = randomUUID()
    const { path, query } = splitUrl(req.url)
    dispatch<Route>(router, req, res, path, {
      run: async (route, params) => await run(route, req, res, params, path, query, requestId),
      unrouted: async () => await notFound(req, path),
      writeError: (err, route) =>
        writeError(res, route?.family ?? familyOfPath(path), requestId, err),
      logInternal: (err) =>
        deps.log.error({ err, method: req.method, path, requestId }, 'api request failed'),
    })
  }

  /**
   * What an unrouted request gets: 401 first for the API paths (an unauthenticated caller learns
   * nothing about which endpoints exist), then 405 when the path exists for another method, else
   * 404.
   */
  async function notFound(req: IncomingMessage, path: string): Promise<UnderstudyError> {
    if (path.startsWith('/api/') || path.startsWith('/reports/')) {
      await authenticator.authenticate(req.headers.authorization, peerAddress(req))
    }
    return unrouted(router, req.method ?? 'GET', path, `Resource ${path}`)
  }

  async function run(
    route: Route,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string | undefined>,
    path: string,
    query: URLSearchParams,
    requestId: string,
  ): Promise<void> {
    const principal =
      route.auth === 'none'
        ? null
        : await authenticator.authenticate(req.headers.authorization, peerAddress(req))
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
      intParam: (name) => pathInt(params, name),
      workspace: async (name = 'workspaceId') =>
        name === 'workspaceId' && access.workspace !== undefined
          ? access.workspace
          : (await visibleWorkspace(ctx, pathInt(params, name))).workspace,
    }
    // Roles and visibility on every route (src/api/access/policy.ts): 404 for what the caller cannot see.
    if (principal !== null) access = await authorize(ctx, route)
    const outcome = await route.handler(ctx)
    if (!req.readableEnded) req.resume()
    await writeResult(req, res, route.family, requestId, outcome)
  }
}

async function writeResult(
  req: IncomingMessage,
  res: ServerResponse,
  family: ApiFamily,
  requestId: string,
  outcome: HandlerResult,
): Promise<void> {
  if ('raw' in outcome) {
    writeRaw(res, outcome.status, outcome.raw, outcome.headers)
    return
  }
  if ('resultJson' in outcome) {
    await writeEnvelopeAround(req, res, family, requestId, outcome)
    return
  }
  const envelope = envelopeOf(family, null, outcome.result, requestId)
  if (outcome.paging !== undefined) Object.assign(envelope, outcome.paging)
  if (outcome.extra !== undefined) Object.assign(envelope, outcome.extra)
  await writeJsonBody(req, res, outcome.status ?? 200, Buffer.from(JSON.stringify(envelope)), {
    'content-type': JSON_TYPE,
  })
}

/** Stands for the result in an envelope whose result is written as given. */
const RESULT_MARK = '\u0000result\u0000'

/** The envelope with the pieces of `resultJson` as its result, written without joining them. */
async function writeEnvelopeAround(
  req: IncomingMessage,
  res: ServerResponse,
  family: ApiFamily,
  requestId: string,
  outcome: { status?: number; resultJson: readonly Buffer[]; extra?: Record<string, unknown> },
): Promise<void> {
  const envelope = envelopeOf(family, null, RESULT_MARK, requestId)
  if (outcome.extra !== undefined) Object.assign(envelope, outcome.extra)
  const text = JSON.stringify(envelope)
  const at = text.indexOf(JSON.stringify(RESULT_MARK))
  const pieces = [
    Buffer.from(text.slice(0, at)),
    ...outcome.resultJson,
    Buffer.from(text.slice(at + JSON.stringify(RESULT_MARK).length)),
  ]
  let length = 0
  for (const piece of pieces) length += piece.length
  const out = bodyStream(req, res, outcome.status ?? 200, length, { 'content-type': JSON_TYPE })
  // An answer of tens of MiB (an import's transactions) is handed to the socket as it drains, not
  // queued whole in one turn of the event loop, which then spent hundreds of ms in writev.
  for (const piece of pieces) {
    if (!out.write(piece)) await drained(out)
    if (res.destroyed) return
  }
  out.end()
}

/** Resolves when the response can take more, or is closed (a client that went away). */
async function drained(res: NodeJS.WritableStream): Promise<void> {
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

function writeError(
  res: ServerResponse,
  family: ApiFamily,
  requestId: string,
  err: UnderstudyError,
): void {
  const error = toEnvelopeError(err, family === 'v4')
  const headers = errorHeaders(err)
  if (err.code === 'ERR_API_UNAUTHORIZED') headers['www-authenticate'] = 'Basic realm="understudy"'
  writeJson(res, err.statusCode, envelopeOf(family, error, null, requestId), headers)
}

function envelopeOf(
  family: ApiFamily,
  error: ReturnType<typeof toEnvelopeError> | null,
  result: unknown,
  requestId: string,
): Record<string, unknown> {
  return family === 'v4'
    ? v4Envelope(error, result, requestId)
    : v1Envelope(error, result, requestId)
}
