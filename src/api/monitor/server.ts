import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  createError,
  monitoringEnvelope,
  toEnvelopeError,
  type UnderstudyError,
} from '../../errors/index.js'
import * as kit from '../../httpkit/index.js'
import { readBodyWithin } from '../../net/index.js'
import { peerAddress } from '../access/throttle.js'
import { MonitorAuthenticator } from './bearer.js'
import { authorizeMonitoring } from './authorize.js'
import type {
  MonitorContext,
  MonitorDeps,
  MonitorPrincipal,
  MonitorResult,
  MonitorRoute,
} from './types.js'

/** First path segments the monitoring API owns (those of the product's public API). */
const OWNED = new Set([
  'account',
  'buckets',
  'collections',
  'radar',
  'signin',
  'teams',
  'regions',
  'apps',
  'tokens',
])

/** `//v1//buckets/x` -> `/buckets/x`: doubled slashes collapsed, the `/v1` alias dropped. */
function monitoringPath(rawPath: string): string {
  let path = rawPath.replace(/\/{2,}/g, '/')
  if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/'
  return path
}

/** The monitoring API's request listener and the test of which requests are its own. */
export interface MonitoringApi {
  /**
   * Whether a request belongs to the monitoring API. `/` is the root resource for API clients (a
   * Bearer token, or not asking for HTML), so that a browser at `/` can be served something else.
   */
  handles: (req: IncomingMessage) => boolean
  handle: (req: IncomingMessage, res: ServerResponse) => void
}

/**
 * The monitoring API (docs/monitor-api.md): its own router, Bearer authentication with scopes, and the
 * `{data, meta, error}` envelope for answers and errors alike.
 *
 * @example
 * const monitoring = createMonitoringApi(deps, monitoringRoutes)
 * server.on('request', (req, res) => monitoring.handles(req) ? monitoring.handle(req, res) : api(req, res))
 */
export function createMonitoringApi(
  deps: MonitorDeps,
  routes: readonly MonitorRoute[],
): MonitoringApi {
  const router = kit.createRouter(routes.map((route) => [route.method, route.path, route] as const))
  const auth = new MonitorAuthenticator(deps.store, deps.authenticator)

  function split(req: IncomingMessage): { path: string; query: URLSearchParams } {
    const { path, query } = kit.splitUrl(req.url)
    return { path: monitoringPath(path), query }
  }

  return {
    handles(req) {
      const { path } = split(req)
      if (path === '/') {
        return (
          auth.isBearer(req.headers.authorization) ||
          !(req.headers.accept ?? '').includes('text/html')
        )
      }
      return OWNED.has(path.split('/')[1] ?? '')
    },
    handle(req, res) {
      const { path, query } = split(req)
      kit.dispatch<MonitorRoute>(router, req, res, path, {
        run: async (route, params) => await run(route, req, res, params, query),
        unrouted: async () => await notFound(req, path),
        writeError: (err) => writeError(res, err),
        logInternal: (err) =>
          deps.log.error({ err, method: req.method, path }, 'monitoring request failed'),
      })
    },
  }

  async function notFound(req: IncomingMessage, path: string): Promise<UnderstudyError> {
    if (!path.startsWith('/radar/') && !path.startsWith('/signin/')) {
      await auth.bearer(req.headers.authorization)
    }
    return kit.unrouted(router, req.method ?? 'GET', path, `Resource ${path}`)
  }

  async function authenticate(
    route: MonitorRoute,
    req: IncomingMessage,
  ): Promise<MonitorPrincipal | null> {
    const mode = route.auth ?? 'bearer'
    if (mode === 'none') return null
    const header = req.headers.authorization
    // Only creating an application takes the platform API key (HTTP Basic): that is how a CI job
    // gets its first token. Everywhere else a key would bypass the token's scopes, so it is refused
    // like a missing token (the product: every request needs an OAuth 2.0 access token).
    const principal =
      mode === 'basic' ? await auth.basic(header, peerAddress(req)) : await auth.bearer(header)
    const wanted =
      route.scope === undefined ? [] : typeof route.scope === 'string' ? [route.scope] : route.scope
    if (wanted.length > 0 && !wanted.some((s) => principal.scopes.has(s))) {
      throw createError('ERR_API_FORBIDDEN', [`this token lacks the ${wanted.join(' or ')} scope`])
    }
    return principal
  }

  async function run(
    route: MonitorRoute,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string | undefined>,
    query: URLSearchParams,
  ): Promise<void> {
    const principal = await authenticate(route, req)
    // The body is read once: the access check may need it (POST /buckets names its team there).
    let json: Promise<unknown> | undefined
    let form: Promise<URLSearchParams> | undefined
    const ctx: MonitorContext = {
      req,
      res,
      params,
      query,
      deps,
      principal: principal as MonitorPrincipal,
      json: async () => await (json ??= kit.readJson(req, deps.options.jsonLimit).then(checkDepth)),
      form: async () => await (form ??= readForm(req, deps.options.jsonLimit)),
    }
    if (principal !== null) await authorizeMonitoring(ctx, route)
    const outcome = await route.handler(ctx)
    if (!req.readableEnded) req.resume()
    writeResult(res, outcome)
  }
}

/** Deepest nesting a monitoring body may have (a condition step nests 10 levels; bodies are stored as JSON). */
const MAX_DEPTH = 64

/**
 * Refuses absurdly nested JSON with a 400 before anything serializes it again (JSON.stringify of
 * a document nested a hundred thousand levels deep would overflow the stack: a 500). Iterative.
 */
function checkDepth(value: unknown): unknown {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth >= MAX_DEPTH) {
      throw createError('ERR_API_VALIDATION', [`the body nests deeper than ${MAX_DEPTH} levels`], {
        details: [{ path: '', message: `nests deeper than ${MAX_DEPTH} levels` }],
      })
    }
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return value
}

async function readForm(req: IncomingMessage, limit: number): Promise<URLSearchParams> {
  const type = kit.mediaTypeOf(req)
  const text = (await readBodyWithin(req, limit)).toString('utf8')
  if (type === 'application/json') {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw createError('ERR_API_BAD_REQUEST', ['The request body is not valid JSON'])
    }
    const out = new URLSearchParams()
    if (parsed !== null && typeof parsed === 'object') {
      for (const [k, v] of Object.entries(parsed)) {
        if (typeof v === 'string' || typeof v === 'number') out.set(k, String(v))
      }
    }
    return out
  }
  if (type !== '' && type !== 'application/x-www-form-urlencoded') {
    throw createError('ERR_API_UNSUPPORTED_MEDIA_TYPE', [type, 'application/x-www-form-urlencoded'])
  }
  return new URLSearchParams(text)
}

function writeResult(res: ServerResponse, outcome: MonitorResult): void {
  if ('raw' in outcome) {
    kit.writeRaw(res, outcome.status, outcome.raw, outcome.headers)
    return
  }
  kit.writeJson(res, outcome.status ?? 200, {
    ...outcome.top,
    ...monitoringEnvelope(null, outcome.data, { status: 'success', ...outcome.meta }),
  })
}

/** `{data: {}, meta: {status: "error"}, error: {status, message, code}}`, as the product answers. */
function writeError(res: ServerResponse, err: UnderstudyError): void {
  const error = toEnvelopeError(err, true)
  const headers = kit.errorHeaders(err)
  if (err.code === 'ERR_API_UNAUTHORIZED') headers['www-authenticate'] = 'Bearer realm="understudy"'
  kit.writeJson(res, err.statusCode, monitoringEnvelope(error, {}, { status: 'error' }), headers)
}
