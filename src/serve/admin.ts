import type http from 'node:http'
import { createError, toEnvelopeError, v1Envelope, type UnderstudyError } from '../errors/index.js'
import {
  createRouter,
  dispatch,
  errorHeaders,
  queryInt,
  splitUrl,
  unrouted,
  writeJson,
} from '../httpkit/index.js'
import { parseJsonSliced, parseText, readDefinitionSliced, recordSourceText } from '../dsl/index.js'
import { readBodyWithin, timeSlicer } from '../net/index.js'
import type { Logger, LogRing } from '../log/index.js'
import { localAdminTarget, type AdminTarget } from './admin-target.js'
import { adminGuard, isLoopbackAddress } from './admin-guard.js'
import { hasFilter, verificationRoutes } from './admin-verify.js'
import { filterFromQuery } from '../inspect/index.js'
import { AdminUi } from './admin-ui.js'
import { openListener, stopAccepting, closeAll } from './listen.js'
import type { Runtime } from './runtime.js'

/** Largest configuration document `PUT /config` accepts: 64 MiB. */
const CONFIG_LIMIT = 64 * 1024 * 1024
/** Page size of `GET /inspection` when `limit` is absent, and its maximum. */
const DEFAULT_PAGE = 50
const MAX_PAGE = 1000

interface AdminListenerParams {
  host: string
  port: number
  log: Logger
  /**
   * Bearer token every route but `GET /health` then requires (any Host accepted). Without one,
   * the listener must be on loopback and answers loopback Host names only (DNS rebinding).
   */
  token?: string | null
  /** Answers `/__admin/...` (WireMock's admin API, src/serve/wiremock) after this listener's guard; absent: none. */
  wiremock?: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null
  /** Called after a successful `PUT /config`, for logging. */
  onReload?: (transactions: number) => void
}

/**
 * Where the admin routes act: a runtime of this process (with the log ring whose lines `GET /log`
 * hands out), or any AdminTarget, such as a cluster primary's view of its replicas.
 */
type AdminParams = AdminListenerParams &
  ({ runtime: Runtime; logRing: LogRing | null } | { target: AdminTarget })

/** A started admin listener. */
export interface AdminServer {
  readonly url: string
  close: () => Promise<void>
}

type Reply = { status: number; body: unknown }
type Handler = (
  req: http.IncomingMessage,
  params: Record<string, string | undefined>,
  query: URLSearchParams,
  body: Buffer,
) => Reply | Promise<Reply>

/**
 * The runtime's admin listener (loopback by default), which the platform drives and which works
 * the same for a runtime in a container: `GET /health`, `GET|PUT /config`,
 * `GET /inspection?skip=&limit=`, `GET /inspection/{id}`, `GET /log?limit=`. Bodies use the
 * envelope of /api/v1 (`{apiVersion, error, result, requestId}`, docs/api.md).
 *
 * @example
 * const admin = await startAdmin({ runtime, host: '127.0.0.1', port: 0, log, logRing: null })
 * await fetch(admin.url + '/health')
 */
export async function startAdmin(params: AdminParams): Promise<AdminServer> {
  const { log } = params
  const token = params.token ?? null
  if ((token === null || token === '') && !isLoopbackAddress(params.host)) {
    throw createError('ERR_CONFIG_INVALID', [
      `the admin API on ${params.host} would be reachable from other machines without a token: give --admin-token (or UNDERSTUDY_ADMIN_TOKEN), or keep --admin-host on loopback`,
    ])
  }
  const refuse = adminGuard({ token })
  const wiremock = params.wiremock ?? null
  const target =
    'target' in params ? params.target : localAdminTarget(params.runtime, params.logRing)
  const routes: Array<[string, string, Handler]> = [
    ['GET', '/health', async () => ok(await target.health())],
    ['GET', '/config', async () => ok(await target.config())],
    [
      'PUT',
      '/config',
      async (req, _params, _query, body) => {
        const document = await readConfig(req, body)
        const result = await target.reconfigure(document)
        params.onReload?.(result.transactions)
        log.info({ transactions: result.transactions }, 'configuration swapped')
        return ok(result)
      },
    ],
    [
      'GET',
      '/inspection',
      async (_req, _params, query) => {
        const skip = queryInt(query, 'skip', 0, 0, Number.MAX_SAFE_INTEGER)
        const limit = queryInt(query, 'limit', DEFAULT_PAGE, 0, MAX_PAGE)
        const page = hasFilter(query)
          ? await target.search.list(filterFromQuery(query), skip, limit)
          : await target.inspection(skip, limit)
        return {
          status: 200,
          body: { ...v1Envelope(null, page.entries, null), skip, limit, total: page.total },
        }
      },
    ],
    [
      'GET',
      '/inspection/:id',
      async (_req, routeParams) => {
        const id = Number(routeParams['id'])
        const detail = Number.isInteger(id) ? await target.inspectionDetail(id) : undefined
        if (detail === undefined) throw createError('ERR_INSPECT_NOT_FOUND', [routeParams['id']])
        return ok(detail)
      },
    ],
    [
      'GET',
      '/log',
      async (_req, _params, query) => {
        const limit = queryInt(query, 'limit', 1000, 1, 100_000)
        const lines = await target.log(limit)
        return ok({
          log: lines.join('\n'),
          lines: lines.length,
          serviceMockId: target.serviceMockId(),
        })
      },
    ],
    ...verificationRoutes(target.search),
    ...scenarioRoutes(target),
    ...recordingRoutes(target),
  ]
  const router = createRouter(routes)

  const ui = new AdminUi(target)
  let requestCounter = 0
  const server = await openListener(
    'http',
    params.host,
    params.port,
    ((req: http.IncomingMessage, res: http.ServerResponse) => {
      const requestId = `admin-${++requestCounter}`
      const refused = refuse(req)
      if (refused !== null) {
        req.resume()
        send(res, requestId, refused)
        return
      }
      const { path, query } = splitUrl(req.url)
      if (wiremock !== null && (path === '/__admin' || path.startsWith('/__admin/'))) {
        wiremock(req, res)
        return
      }
      if (ui.handle(req, res, path)) return
      dispatch<Handler>(router, req, res, path, {
        run: async (handler, routeParams) => {
          const body = await readBodyWithin(req, CONFIG_LIMIT)
          sendReply(res, requestId, await handler(req, routeParams, query, body))
        },
        unrouted: async () => unrouted(router, req.method ?? 'GET', path, `Admin resource ${path}`),
        writeError: (err) => send(res, requestId, err),
        logInternal: (err) => log.error({ err }, 'admin request failed'),
      })
    }) as never,
    null,
  )
  log.info({ url: server.url }, 'admin listening')
  return {
    url: server.url,
    close: async () => {
      ui.close()
      closeAll(server)
      await stopAccepting(server)
    },
  }
}

/**
 * `GET /scenarios` (states and webhook counters), `PUT /scenarios/{name}` `{state,
 * instance?}`, `DELETE /scenarios` (all back to `Started`), `DELETE /scenarios/{name}?instance=`.
 */
function scenarioRoutes(target: AdminTarget): Array<[string, string, Handler]> {
  const admin = (): NonNullable<AdminTarget['scenarios']> => {
    if (target.scenarios === undefined) {
      throw createError('ERR_API_UNPROCESSABLE', ['scenarios are not reachable on this runtime'])
    }
    return target.scenarios
  }
  return [
    [
      'GET',
      '/scenarios',
      async () => ok({ scenarios: await admin().list(), postServe: await admin().postServe() }),
    ],
    [
      'PUT',
      '/scenarios/:name',
      async (_req, routeParams, _query, body) => {
        const name = routeParams['name'] ?? ''
        let input: unknown
        try {
          input = JSON.parse(body.toString('utf8'))
        } catch {
          throw createError('ERR_API_VALIDATION', ['the body must be JSON {state, instance?}'], {
            details: [{ path: '/state', message: 'required' }],
          })
        }
        const { state, instance } = (input ?? {}) as { state?: unknown; instance?: unknown }
        if (typeof state !== 'string' || state === '') {
          throw createError('ERR_API_VALIDATION', ['state must be a non-empty string'], {
            details: [{ path: '/state', message: 'must be a non-empty string' }],
          })
        }
        if (instance !== undefined && instance !== null && typeof instance !== 'string') {
          throw createError('ERR_API_VALIDATION', ['instance must be a string'], {
            details: [{ path: '/instance', message: 'must be a string' }],
          })
        }
        await admin().set(name, instance ?? null, state)
        return ok({ name, instance: instance ?? null, state })
      },
    ],
    ['DELETE', '/scenarios', async () => ok({ reset: await admin().reset() })],
    [
      'DELETE',
      '/scenarios/:name',
      async (_req, routeParams, query) => {
        const instance = query.get('instance')
        return ok({ reset: await admin().reset(routeParams['name'] ?? '', instance ?? undefined) })
      },
    ],
  ]
}

/**
 * `GET /recordings[?keepLatency=true]` (what `noMatchingRequestPreference: record`
 * captured, as transactions of the DSL) and `DELETE /recordings`.
 */
function recordingRoutes(target: AdminTarget): Array<[string, string, Handler]> {
  const admin = (): NonNullable<AdminTarget['recordings']> => {
    if (target.recordings === undefined) {
      throw createError('ERR_API_UNPROCESSABLE', [
        'recordings are not reachable on this runtime (started without the HAR importer that converts them)',
      ])
    }
    return target.recordings
  }
  return [
    [
      'GET',
      '/recordings',
      async (_req, _params, query) => {
        const raw = query.get('keepLatency')
        if (raw !== null && raw !== 'true' && raw !== 'false') {
          throw createError('ERR_API_VALIDATION', ['keepLatency must be true or false'], {
            details: [{ path: '/keepLatency', message: 'must be true or false' }],
          })
        }
        return ok(await admin().list(raw === 'true'))
      },
    ],
    ['DELETE', '/recordings', async () => ok({ cleared: await admin().clear() })],
  ]
}

/** The admin API's content type has no charset parameter: clients of runtimes already deployed compare it exactly. */
const ADMIN_TYPE = { 'content-type': 'application/json' }

function ok(result: unknown): Reply {
  return { status: 200, body: v1Envelope(null, result, null) }
}

function sendReply(res: http.ServerResponse, requestId: string, reply: Reply): void {
  const body = reply.body as Record<string, unknown>
  if ('requestId' in body) body['requestId'] = requestId
  writeJson(res, reply.status, body, ADMIN_TYPE)
}

function send(res: http.ServerResponse, requestId: string, err: UnderstudyError): void {
  writeJson(res, err.statusCode, v1Envelope(toEnvelopeError(err), null, requestId), {
    ...errorHeaders(err),
    ...ADMIN_TYPE,
  })
}

/**
 * `PUT /config`: a mock-service document (or any DSL shape) as JSON, or YAML by content type,
 * parsed (JSON a transaction at a time) and validated in time slices while the runtime keeps
 * serving.
 */
async function readConfig(req: http.IncomingMessage, body: Buffer) {
  const type =
    (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? ''
  const yaml = type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml'
  if (!yaml && type !== 'application/json' && !type.endsWith('+json')) {
    throw createError('ERR_API_UNSUPPORTED_MEDIA_TYPE', [
      type,
      'application/json or application/yaml',
    ])
  }
  if (body.length === 0) {
    throw createError('ERR_API_VALIDATION', ['the body must be a mock-service document'])
  }
  const slice = timeSlicer()
  const fileName = yaml ? 'config.yaml' : 'config.json'
  const parsed = yaml
    ? parseText(body.toString('utf8'), fileName)
    : await parseJsonSliced(body, fileName, slice)
  const document = await readDefinitionSliced(parsed.value, { locate: parsed.locate }, slice)
  // The runtime keeps the body instead of the document, and reads it again when asked.
  recordSourceText(document, { bytes: body, fileName })
  return document
}
