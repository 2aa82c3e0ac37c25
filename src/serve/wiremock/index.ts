import type http from 'node:http'
import type FindMyWay from 'find-my-way'
import { isUnderstudyError } from '../../errors/index.js'
import { createRouter, splitUrl } from '../../httpkit/index.js'
import type { Logger } from '../../log/index.js'
import { readBodyWithin } from '../../net/index.js'
import { adminGuard, isLoopbackAddress } from '../admin-guard.js'
import type { AnyRequest, AnyResponse } from '../exchange.js'
import type { Runtime } from '../runtime.js'
import type { PortAdmin } from '../runtime-state.js'
import type { WireMockContext } from './context.js'
import type { LoadWireMockConverter, WireMockConverter } from './convert.js'
import { malformed, WireMockError } from './errors.js'
import { globalRoutes } from './global-routes.js'
import { Journal } from './journal.js'
import { mappingRoutes } from './mapping-routes.js'
import { Recorder } from './recordings.js'
import { requestRoutes } from './request-routes.js'
import type { Reply, RouteHandler } from './route.js'
import { StubLayer } from './stubs.js'

export type { WireMockConverter } from './convert.js'

/** Largest admin request body (a `/mappings/import` of many stubs): 64 MiB, as `PUT /config`. */
const BODY_LIMIT = 64 * 1024 * 1024

interface WireMockAdminParams {
  runtime: Runtime
  loadConverter: LoadWireMockConverter
  log: Logger
  /** Ends the process gracefully on `POST /__admin/shutdown`; null refuses the call (403). */
  shutdown: (() => void) | null
  /** The mock port's interface and the admin token: who may call `/__admin` on the mock port. */
  host: string
  token: string | null
}

/** WireMock's admin API over one runtime. */
interface WireMockAdmin {
  /** For the mock port: guarded like the admin API when the port is reachable from outside. */
  readonly onMockPort: PortAdmin
  /** For the admin listener, whose own guard already ran. */
  readonly onAdminPort: (req: http.IncomingMessage, res: http.ServerResponse) => void
}

/**
 * WireMock's admin API (`/__admin/...`) over a runtime, so that suites written for WireMock (its
 * Java client, wiremock-captain, wiremock-rest-client, Testcontainers) drive Understudy unchanged:
 * stubs are converted by the WireMock importer and layered over the runtime's document, the
 * journal is the inspection ring, near misses are the matcher's diagnosis. docs/wiremock.md.
 *
 * @example
 * const wiremock = createWireMockAdmin({ runtime, loadConverter, log, shutdown: null, host: '127.0.0.1', token: null })
 * runtime.setPortAdmin(wiremock.onMockPort)
 */
export function createWireMockAdmin(params: WireMockAdminParams): WireMockAdmin {
  const { runtime, log } = params
  const layer = new StubLayer(runtime)
  const journal = new Journal(runtime, layer)
  let converter: Promise<WireMockConverter> | null = null
  const ctx: WireMockContext = {
    runtime,
    layer,
    journal,
    recorder: new Recorder(journal, layer),
    converter: async () => {
      converter ??= params.loadConverter()
      return await converter
    },
    resetMappings: () => layer.reset(),
    shutdown: params.shutdown,
    started: Date.now(),
  }
  const router = createRouter([...mappingRoutes(ctx), ...requestRoutes(ctx), ...globalRoutes(ctx)])

  const serve = (req: AnyRequest, res: AnyResponse): void => {
    const { path, query } = splitUrl(req.url)
    const found = router.find(req.method as FindMyWay.HTTPMethod, path)
    if (found === null) {
      req.resume()
      write(
        res,
        new WireMockError(404, [
          {
            code: 30,
            title: `No WireMock admin route ${req.method ?? ''} ${path} in Understudy (docs/wiremock.md lists them)`,
          },
        ]),
      )
      return
    }
    const handler = found.store as RouteHandler
    readBodyWithin(req as unknown as http.IncomingMessage, BODY_LIMIT)
      .then(async (bytes) => handler({ body: parseBody(bytes), params: found.params, query }))
      .then(
        (reply) => write(res, reply),
        (err: unknown) => {
          if (err instanceof WireMockError) {
            write(res, err)
          } else if (isUnderstudyError(err) && err.statusCode < 500) {
            write(res, new WireMockError(err.statusCode, [{ code: 10, title: err.message }]))
          } else {
            log.error({ err }, 'wiremock admin request failed')
            write(res, new WireMockError(500, [{ code: 10, title: 'Internal error' }]))
          }
        },
      )
  }
  const refuse = mockPortGuard(params.host, params.token)
  return {
    onMockPort(req, res) {
      const refused = refuse(req)
      if (refused !== null) {
        req.resume()
        write(res, refused)
        return
      }
      serve(req, res)
    },
    onAdminPort: serve as unknown as WireMockAdmin['onAdminPort'],
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

/**
 * The mock port of a replica of `--replicas N > 1`: each replica has its own journal and matcher,
 * so stubs added or requests read through one would be one replica's; refused (501) instead of
 * answering for a part of the traffic.
 */
export function refuseReplicatedWireMock(req: AnyRequest, res: AnyResponse): void {
  req.resume()
  write(
    res,
    new WireMockError(501, [
      {
        code: 10,
        title:
          'the WireMock admin API is not available on a runtime with --replicas > 1 (each replica has its own stubs and journal): run one replica to use it',
      },
    ]),
  )
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
function write(res: AnyResponse, reply: Reply | WireMockError): void {
  const bytes = reply.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(reply.body))
  res.writeHead(reply.status, [
    'content-type',
    'application/json',
    'content-length',
    String(bytes.length),
  ])
  res.end(bytes)
}
