import type http from 'node:http'
import type FindMyWay from 'find-my-way'
import { isUnderstudyError } from '../../errors/index.js'
import { createRouter, splitUrl } from '../../httpkit/index.js'
import type { Logger } from '../../log/index.js'
import { readBodyWithin } from '../../net/index.js'
import { adminGuard, isLoopbackAddress } from '../admin-guard.js'
import type { AnyRequest, AnyResponse } from '../exchange.js'
import type { PortAdmin } from '../runtime-state.js'
import type { WireMockContext } from './context.js'
import type { LoadWireMockConverter, WireMockConverter } from './convert.js'
import { malformed, WireMockError } from './errors.js'
import { globalRoutes } from './global-routes.js'
import type { WireMockHost } from './host.js'
import { Journal } from './journal.js'
import { mappingRoutes } from './mapping-routes.js'
import { Recorder } from './recordings.js'
import { requestRoutes } from './request-routes.js'
import type { Reply, RouteHandler } from './route.js'
import { StubLayer } from './stubs.js'

export type { WireMockConverter } from './convert.js'
export {
  runtimeHost,
  UnconfirmedChangeError,
  journalUnavailable,
  type WireMockHost,
} from './host.js'

/** Largest admin request body (a `/mappings/import` of many stubs): 64 MiB, as `PUT /config`. */
const BODY_LIMIT = 64 * 1024 * 1024

interface WireMockAdminParams {
  /** What the API works on: one runtime (`runtimeHost`), or a cluster primary over its replicas. */
  host: WireMockHost
  loadConverter: LoadWireMockConverter
  log: Logger
  /** Ends the process gracefully on `POST /__admin/shutdown`; null refuses the call (403). */
  shutdown: (() => void) | null
  /** The mock port's interface and the admin token: who may call `/__admin` on the mock port. */
  listen: string
  token: string | null
}

/** WireMock's admin API over one runtime. */
export interface WireMockAdmin {
  /** For the mock port: guarded like the admin API when the port is reachable from outside. */
  readonly onMockPort: PortAdmin
  /** For the admin listener, whose own guard already ran. */
  readonly onAdminPort: (req: http.IncomingMessage, res: http.ServerResponse) => void
  /** One call already read (a cluster replica forwards the calls it receives to its primary). */
  readonly answer: (call: WireMockCall) => Promise<WireMockAnswer>
}

/** A WireMock admin call as a replica forwards it: method, path with query, raw body. */
export interface WireMockCall {
  method: string
  url: string
  /** The body, base64 (IPC carries JSON). */
  body: string
}

/** What a call answers: status and JSON body (undefined: none). */
export interface WireMockAnswer {
  status: number
  body?: unknown
}

/**
 * WireMock's admin API (`/__admin/...`) over a runtime, so that suites written for WireMock (its
 * Java client, wiremock-captain, wiremock-rest-client, Testcontainers) drive Understudy unchanged:
 * stubs are converted by the WireMock importer and layered over the runtime's document, the
 * journal is the inspection ring, near misses are the matcher's diagnosis. docs/wiremock.md.
 *
 * @example
 * const wiremock = createWireMockAdmin({ host: runtimeHost(runtime), loadConverter, log, shutdown: null, listen: '127.0.0.1', token: null })
 * runtime.setPortAdmin(wiremock.onMockPort)
 */
export function createWireMockAdmin(params: WireMockAdminParams): WireMockAdmin {
  const { host, log } = params
  const layer = new StubLayer(host)
  const journal = new Journal(host, layer)
  let converter: Promise<WireMockConverter> | null = null
  const ctx: WireMockContext = {
    host,
    layer,
    journal,
    recorder: new Recorder(journal, layer),
    converter: async () => {
      converter ??= params.loadConverter()
      return await converter
    },
    resetMappings: async () => await layer.reset(),
    shutdown: params.shutdown,
    started: Date.now(),
  }
  const router = createRouter([...mappingRoutes(ctx), ...requestRoutes(ctx), ...globalRoutes(ctx)])

  // Calls that change something run one at a time: each reads the stubs, then swaps a new set
  // in (which, over replicas, waits for their confirmation), and must not lose another's change.
  let changes: Promise<unknown> = Promise.resolve()
  const answer = async (method: string, url: string, bytes: Buffer): Promise<WireMockAnswer> => {
    const { path, query } = splitUrl(url)
    const found = router.find(method as FindMyWay.HTTPMethod, path)
    if (found === null) {
      return new WireMockError(404, [
        {
          code: 30,
          title: `No WireMock admin route ${method} ${path} in Understudy (docs/wiremock.md lists them)`,
        },
      ])
    }
    const handler = found.store as RouteHandler
    const run = async (): Promise<Reply> =>
      await handler({ body: parseBody(bytes), params: found.params, query })
    try {
      if (method === 'GET') return await run()
      const done = changes.then(run)
      changes = done.catch(() => undefined)
      return await done
    } catch (err) {
      if (err instanceof WireMockError) return err
      if (isUnderstudyError(err) && err.statusCode < 500) {
        return new WireMockError(err.statusCode, [{ code: 10, title: err.message }])
      }
      log.error({ err }, 'wiremock admin request failed')
      return new WireMockError(500, [{ code: 10, title: 'Internal error' }])
    }
  }
  const serve = (req: AnyRequest, res: AnyResponse): void => {
    readBodyWithin(req as unknown as http.IncomingMessage, BODY_LIMIT)
      .then(async (bytes) => await answer(req.method ?? 'GET', req.url ?? '/', bytes))
      .then(
        (reply) => write(res, reply),
        (err: unknown) =>
          write(
            res,
            isUnderstudyError(err) && err.statusCode < 500
              ? new WireMockError(err.statusCode, [{ code: 10, title: err.message }])
              : new WireMockError(500, [{ code: 10, title: 'Internal error' }]),
          ),
      )
  }
  return {
    onMockPort: guardedMockPort(params.listen, params.token, serve),
    onAdminPort: serve as unknown as WireMockAdmin['onAdminPort'],
    answer: async (call) => {
      const reply = await answer(call.method, call.url, Buffer.from(call.body, 'base64'))
      // A plain object: it crosses an IPC channel as JSON (an error's body is a getter).
      return reply.body === undefined
        ? { status: reply.status }
        : { status: reply.status, body: reply.body }
    },
  }
}

/**
 * The mock port of a cluster replica: guarded as a single runtime's, then every call goes to
 * the primary, which owns the stubs and gathers the journals, so that whichever replica receives
 * a call the answer is the same.
 *
 * @example
 * runtime.setPortAdmin(forwardingWireMock({ listen: '127.0.0.1', token: null, forward: toPrimary }))
 */
export function forwardingWireMock(params: {
  listen: string
  token: string | null
  forward: (call: WireMockCall) => Promise<WireMockAnswer>
}): PortAdmin {
  return guardedMockPort(params.listen, params.token, (req, res) => {
    readBodyWithin(req as unknown as http.IncomingMessage, BODY_LIMIT)
      .then(
        async (bytes) =>
          await params.forward({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            body: bytes.toString('base64'),
          }),
      )
      .then(
        (reply) => write(res, reply),
        (err: unknown) =>
          write(
            res,
            new WireMockError(
              isUnderstudyError(err) && err.statusCode < 500 ? err.statusCode : 503,
              [{ code: 10, title: err instanceof Error ? err.message : String(err) }],
            ),
          ),
      )
  })
}

function guardedMockPort(
  listen: string,
  token: string | null,
  serve: (req: AnyRequest, res: AnyResponse) => void,
): PortAdmin {
  const refuse = mockPortGuard(listen, token)
  return (req, res) => {
    const refused = refuse(req)
    if (refused !== null) {
      req.resume()
      write(res, refused)
      return
    }
    serve(req, res)
  }
}

/**
 * The mock port answers `/__admin` like the admin API would: on a loopback interface, to loopback
 * Host names only (a web page cannot reach it by DNS rebinding); on any other interface only with
 * `Authorization: Bearer <admin token>`, and not at all without a token.
 */
function mockPortGuard(
  host: string,
  token: string | null,
): (req: AnyRequest) => WireMockError | null {
  if (isLoopbackAddress(host)) {
    const loopbackOnly = adminGuard({ token: null })
    return (req) => asWireMock(loopbackOnly(req as http.IncomingMessage))
  }
  if (token === null || token === '') {
    const refusal = new WireMockError(403, [
      {
        code: 10,
        title: `the WireMock admin API is off on a mock port reachable from other machines (${host}) without an admin token: give --admin-token (or UNDERSTUDY_ADMIN_TOKEN) and send it as "Authorization: Bearer <token>", or use --no-wiremock-admin`,
      },
    ])
    return () => refusal
  }
  const withToken = adminGuard({ token })
  return (req) => asWireMock(withToken(req as http.IncomingMessage))
}

function asWireMock(error: { statusCode: number; message: string } | null): WireMockError | null {
  return error === null
    ? null
    : new WireMockError(error.statusCode, [{ code: 10, title: error.message }])
}

function parseBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined
  const text = bytes.toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw malformed('the body is not valid JSON')
  }
}

/** WireMock's own content type (no charset), written as the runtime's responses are (flat header lists, HTTP/1.1 or 2). */
function write(res: AnyResponse, reply: WireMockAnswer): void {
  const bytes = reply.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(reply.body))
  res.writeHead(reply.status, [
    'content-type',
    'application/json',
    'content-length',
    String(bytes.length),
  ])
  res.end(bytes)
}
