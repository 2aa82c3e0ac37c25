import { createRequire } from 'node:module'
import type * as UndiciModule from 'undici'
import type { Dispatcher } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'
import type { OutboundProxy } from '../dsl/index.js'
import { createError, isUnderstudyError, type UnderstudyError } from '../errors/index.js'
import { defaultEgressPolicy, egressConnector, type EgressPolicy } from '../net/index.js'
import { endToEndHeaders, endToEndRawHeaders } from './hop-by-hop.js'

type Undici = typeof UndiciModule
let undiciModule: Undici | null = null

/**
 * undici, loaded on first use (it is CommonJS, so synchronously): a runtime that never forwards
 * does not pay for it (about 20 MiB of a process that otherwise needs 60).
 */
function undici(): Undici {
  undiciModule ??= createRequire(import.meta.url)('undici') as Undici
  return undiciModule
}

/**
 * The upstream pools of one runtime, by origin, with the egress policy every connection they open
 * goes through (docs/security.md "Egress"). A plain Map gets the default policy.
 *
 * @example
 * const pools = new UpstreamPools(policy)
 * compileProxyTarget('http://127.0.0.1:9000', 30_000, pools)
 */
export class UpstreamPools extends Map<string, Dispatcher> {
  constructor(readonly egress: EgressPolicy) {
    super()
  }
}

let fallbackPolicy: EgressPolicy | null = null

function policyOf(pools: Map<string, Dispatcher>): EgressPolicy {
  if (pools instanceof UpstreamPools) return pools.egress
  fallbackPolicy ??= defaultEgressPolicy()
  return fallbackPolicy
}

/** Where `proxyUrl` or `bypasslive` forwards to, with a connection pool made at compile time. */
export interface ProxyTarget {
  /** `http://host:port` */
  readonly origin: string
  /** Path prefix from the proxy URL ('' for none); the request's path and query are appended. */
  readonly basePath: string
  readonly host: string
  readonly timeout: number
  /** A pool of that origin, or an agent through the mock service's outbound proxy. */
  readonly pool: Dispatcher
}

/**
 * A mock service's outbound proxy, compiled once at load: whether a host bypasses it
 * (`nonProxyHosts`, `|`-separated, `*` a wildcard, case-insensitive, as the JVM's
 * `http.nonProxyHosts` the product follows) and the `Proxy-Authorization` it sends.
 */
export interface CompiledOutbound {
  readonly proxyUrl: string
  readonly token: string | null
  readonly bypasses: (hostname: string) => boolean
}

/**
 * Compiles the outbound proxy of a mock-service document, or null without one.
 *
 * @example
 * compileOutbound({ proxyUrl: 'http://proxy:3128', nonProxyHosts: 'localhost|*.internal' })?.bypasses('db.internal') // true
 */
export function compileOutbound(proxy: OutboundProxy | undefined): CompiledOutbound | null {
  if (proxy === undefined) return null
  const patterns = (proxy.nonProxyHosts ?? '')
    .split(/[|,]/)
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '')
  const regexes = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .split('*')
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ),
  )
  const token =
    proxy.username === undefined
      ? null
      : `Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}`
  return {
    proxyUrl: proxy.proxyUrl,
    token,
    bypasses: (hostname) => {
      const host = hostname.toLowerCase().replace(/^\[|\]$/g, '')
      return regexes.some((re) => re.test(host))
    },
  }
}

/**
 * A target for an absolute http(s) URL. The pool connects lazily, on the first request. Upstream
 * certificates are not verified: the runtime stands in for services in test environments, where
 * self-signed certificates are the rule (documented in docs/runtime.md).
 *
 * @example
 * compileProxyTarget('http://127.0.0.1:9000/base', 30_000, new Map()).basePath // '/base'
 */
export function compileProxyTarget(
  url: string,
  timeout: number,
  pools: Map<string, Dispatcher>,
  outbound: CompiledOutbound | null = null,
): ProxyTarget {
  const parsed = new URL(url)
  const basePath = parsed.pathname === '/' ? '' : parsed.pathname.replace(/\/$/, '')
  const via = outbound === null || outbound.bypasses(parsed.hostname) ? null : outbound
  // One pool per origin (and proxy) for the whole runtime, however many transactions use it; a
  // reload with other proxy settings gets its own.
  const key =
    via === null ? parsed.origin : `${parsed.origin} via ${via.proxyUrl} as ${via.token ?? ''}`
  let pool = pools.get(key)
  if (pool === undefined) {
    // Every connection, to the upstream or to the outbound proxy, resolves and checks the address
    // it connects to (connectTimeout is the connector's own `timeout` once `connect` is a function).
    const connect = egressConnector(policyOf(pools), {
      rejectUnauthorized: false,
      timeout: Math.min(timeout, 10_000),
    })
    const options = {
      headersTimeout: timeout,
      bodyTimeout: timeout,
    }
    const { Pool, ProxyAgent } = undici()
    if (via === null) {
      pool = new Pool(parsed.origin, { ...options, connect })
    } else {
      const proxyOrigin = new URL(via.proxyUrl).origin
      pool = new ProxyAgent({
        ...options,
        uri: via.proxyUrl,
        ...(via.token === null ? {} : { token: via.token }),
        // http targets go as absolute-form requests (what HTTP clients send a proxy); https ones
        // through a CONNECT tunnel.
        proxyTunnel: parsed.protocol === 'https:',
        requestTls: { rejectUnauthorized: false },
        proxyTls: { rejectUnauthorized: false },
        // The runtime connects to the proxy only (the proxy connects to the target): that
        // connection is checked, the tunnels through it keep undici's own connect.
        clientFactory: (origin, clientOptions) => new Pool(origin, { ...clientOptions, connect }),
        factory: (origin, agentOptions) =>
          new Pool(
            origin,
            new URL(String(origin)).origin === proxyOrigin
              ? { ...agentOptions, connect }
              : agentOptions,
          ),
      })
    }
    pools.set(key, pool)
  }
  return { origin: parsed.origin, basePath, host: parsed.host, timeout, pool }
}

/** Request headers the proxy sets itself. */
const requestSkip = new Set(['host', 'content-length', 'expect'])

/** What came back from the upstream, for the response and the inspection record. */
export interface ProxyOutcome {
  statusCode: number
  headers: string[]
  /** The first `captureBytes` of the upstream body. */
  captured: Buffer | null
  truncated: boolean
  error: UnderstudyError | null
}

/** The minimal view of a response the proxy writes to (HTTP/1.1 or HTTP/2 compat). */
export interface ProxyResponse {
  headersSent: boolean
  writableEnded: boolean
  destroyed: boolean
  writeHead: (status: number, headers: string[]) => unknown
  write: (chunk: Buffer) => boolean
  end: () => unknown
  destroy: (error?: Error) => unknown
  once: (event: 'drain' | 'close', listener: () => void) => unknown
  removeListener: (event: 'drain' | 'close', listener: () => void) => unknown
}

/**
 * Forwards one request (its body was already read) and streams the answer back, dropping
 * hop-by-hop headers both ways. Never rejects: failures come back as `outcome.error` (502) for the
 * caller to answer, unless the response had started, in which case it is destroyed.
 */
export async function forward(
  target: ProxyTarget,
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  body: Buffer | null,
  res: ProxyResponse,
  captureBytes: number,
): Promise<ProxyOutcome> {
  const upstreamHeaders = endToEndHeaders(headers, requestSkip)
  upstreamHeaders.push('host', target.host)
  return await new Promise<ProxyOutcome>((resolve) => {
    const forwarding = new Forwarding(target, res, captureBytes, resolve)
    target.pool.dispatch(
      {
        origin: target.origin,
        method: method as Dispatcher.HttpMethod,
        path: target.basePath + (url.startsWith('/') ? url : `/${url}`),
        headers: upstreamHeaders,
        body: body === null || body.length === 0 ? null : body,
      },
      forwarding,
    )
  })
}

/**
 * One forwarded exchange, as an undici dispatch handler: the upstream's answer is written to the
 * client as it comes, with no promise, stream or iterator per request and no AbortController
 * (undici hands the handler its abort function). A client that leaves aborts the upstream request;
 * a client that stops reading pauses the upstream (undici's `resume` on the client's 'drain').
 */
class Forwarding implements Dispatcher.DispatchHandler {
  private abortUpstream: ((reason?: Error) => void) | null = null
  private clientGone = false
  private resume: (() => void) | null = null
  private statusCode = 502
  private headers: string[] = []
  private chunks: Buffer[] | null = null
  private kept = 0
  private truncated = false
  private settled = false

  constructor(
    private readonly target: ProxyTarget,
    private readonly res: ProxyResponse,
    private readonly captureBytes: number,
    private readonly done: (outcome: ProxyOutcome) => void,
  ) {
    res.once('close', this.onClientClose)
  }

  private readonly onClientClose = (): void => {
    if (this.res.writableEnded || this.settled) return
    this.clientGone = true
    this.abortUpstream?.(new Error('the client left'))
    // A paused upstream body must flow again for the abort to end it.
    this.resumeUpstream()
  }

  private readonly onDrain = (): void => {
    this.resumeUpstream()
  }

  private resumeUpstream(): void {
    this.resume?.()
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortUpstream = abort
    if (this.clientGone) abort(new Error('the client left'))
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    this.statusCode = statusCode
    this.headers = endToEndRawHeaders(rawHeaders)
    this.resume = resume
    if (this.res.destroyed) {
      // Nobody to answer: the exchange is recorded with the upstream's status, the rest dropped.
      this.settle(null)
      this.abortUpstream?.(new Error('the client left'))
      return false
    }
    this.res.writeHead(statusCode, this.headers)
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true
    const room = this.captureBytes - this.kept
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
      // A copy: the inspection ring keeps it, and must not keep the socket's whole read buffer.
      ;(this.chunks ??= []).push(Buffer.from(part))
      this.kept += part.length
      if (part.length < chunk.length) this.truncated = true
    } else if (chunk.length > 0) {
      this.truncated = true
    }
    if (this.res.write(chunk) || this.res.destroyed) return true
    this.res.once('drain', this.onDrain)
    return false
  }

  onComplete(): void {
    if (this.settled) return
    this.res.removeListener('drain', this.onDrain)
    this.res.end()
    const captured =
      this.chunks === null
        ? Buffer.alloc(0)
        : this.chunks.length === 1
          ? (this.chunks[0] as Buffer)
          : Buffer.concat(this.chunks)
    this.settle(captured)
  }

  onError(err: Error): void {
    this.res.removeListener('drain', this.onDrain)
    if (this.settled) return
    this.settled = true
    if (this.res.headersSent) this.res.destroy()
    this.done({
      statusCode: 502,
      headers: [],
      captured: null,
      truncated: false,
      error: upstreamError(this.target, err),
    })
  }

  private settle(captured: Buffer | null): void {
    this.settled = true
    this.done({
      statusCode: this.statusCode,
      headers: this.headers,
      captured,
      truncated: captured === null ? false : this.truncated,
      error: null,
    })
  }
}

function upstreamError(target: ProxyTarget, err: unknown): UnderstudyError {
  // 502 naming the policy: the destination was refused before any byte was sent.
  if (isUnderstudyError(err, 'ERR_NET_EGRESS_REFUSED')) return err
  const errors = undici().errors
  if (
    err instanceof errors.HeadersTimeoutError ||
    err instanceof errors.BodyTimeoutError ||
    err instanceof errors.ConnectTimeoutError
  ) {
    return createError('ERR_SERVE_UPSTREAM_TIMEOUT', [target.origin, target.timeout], {
      cause: err,
    })
  }
  const code = (err as { code?: unknown }).code
  const reason =
    typeof code === 'string' ? code : err instanceof Error ? err.message : 'unknown error'
  return createError('ERR_SERVE_UPSTREAM_UNAVAILABLE', [target.origin, reason], { cause: err })
}

/** Closes pools once their requests are done. */
export async function closePools(pools: Iterable<Dispatcher>): Promise<void> {
  await Promise.allSettled([...pools].map(async (p) => p.close()))
}
