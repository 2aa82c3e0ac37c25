import { Agent, errors, type Dispatcher } from 'undici'
import {
  defaultEgressPolicy,
  egressConnector,
  type ConnectorOptions,
  type EgressPolicy,
} from '../net/index.js'
import { ResponseData } from './response.js'

/** Bodies are read up to this size for assertions; the rest is counted, not kept. */
const MAX_READ_BYTES = 10 * 1024 * 1024

/** Pools by egress policy, then TLS settings: at most a few (verify or not, each client certificate in use). */
const agentsByPolicy = new WeakMap<EgressPolicy, Map<string, Agent>>()
const MAX_AGENTS = 32

let fallbackPolicy: EgressPolicy | null = null

/**
 * The policy of runs given none (a runner used as a library): the default one, nothing protected.
 *
 * @example
 * await send(out, { ...options, egress: runnerEgress(options.egress) })
 */
export function runnerEgress(given: EgressPolicy | undefined): EgressPolicy {
  if (given !== undefined) return given
  fallbackPolicy ??= defaultEgressPolicy()
  return fallbackPolicy
}

/**
 * Shared connection pools (keep-alive): one per combination of `verify_ssl`, HTTP version and
 * client certificate, shared across runs so that a schedule reuses its connections. A client
 * certificate is a PEM text holding the certificate and its private key. `http2` lets an https
 * server choose HTTP/2 (ALPN); `h2c` speaks HTTP/2 with prior knowledge on plain http:// (undici's
 * `useH2c`), which an HTTP/1.1-only server cannot answer. Every connection goes through the
 * egress policy (docs/security.md "Egress"): the address it connects to is the one checked.
 */
function dispatcher(
  egress: EgressPolicy,
  verifySsl: boolean,
  clientCertificate: string | null,
  http2: boolean,
  h2c: boolean,
): Dispatcher {
  let agents = agentsByPolicy.get(egress)
  if (agents === undefined) {
    agents = new Map()
    agentsByPolicy.set(egress, agents)
  }
  const key = `${verifySsl ? 1 : 0}:${http2 ? 1 : 0}:${h2c ? 1 : 0}:${clientCertificate ?? ''}`
  let agent = agents.get(key)
  if (agent === undefined) {
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, Agent]
      agents.delete(oldestKey)
      oldest.close().catch(() => {})
    }
    const cert =
      clientCertificate !== null && clientCertificate.trim() !== ''
        ? { cert: clientCertificate, key: clientCertificate }
        : {}
    const tls = { rejectUnauthorized: verifySsl, ...cert }
    // undici's pools drop `useH2c` from connect options: h2c needs a connector built with it
    // (the option exists in undici 7 but not in its BuildOptions type).
    const connect = egressConnector(
      egress,
      (h2c ? { ...tls, allowH2: true, useH2c: true } : tls) as ConnectorOptions,
    )
    agent = new Agent({ keepAliveTimeout: 10_000, allowH2: http2 || h2c, connect })
    agents.set(key, agent)
  }
  return agent
}

/** A response whose body was still arriving when the step's time limit passed. */
class StepTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`)
    this.name = 'TimeoutError'
  }
}

/**
 * Reads a response body up to MAX_READ_BYTES (the rest is counted, not kept), failing once the
 * step's deadline has passed. Plain 'data' events: an async iterator per step costs more.
 */
async function readBody(
  body: Dispatcher.ResponseData['body'],
  deadline: number,
  timeoutMs: number,
): Promise<{ chunks: Buffer[]; size: number }> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let kept = 0
    body.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (kept < MAX_READ_BYTES) {
        const part =
          kept + chunk.length > MAX_READ_BYTES ? chunk.subarray(0, MAX_READ_BYTES - kept) : chunk
        chunks.push(part)
        kept += part.length
      }
      if (performance.now() > deadline) body.destroy(new StepTimeoutError(timeoutMs))
    })
    body.once('end', () => resolve({ chunks, size }))
    body.once('error', (err) => reject(timedOut(err, timeoutMs)))
  })
}

/** undici's headers and body timers name themselves; a step says what its limit was. */
function timedOut(err: unknown, timeoutMs: number): unknown {
  return err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError
    ? new StepTimeoutError(timeoutMs)
    : err
}

export interface OutgoingRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  body: string | null
}

export interface SendOptions {
  verifySsl: boolean
  /** PEM text with the client certificate and its key (environment `client_certificate`), or null. */
  clientCertificate: string | null
  /** HTTP/2 where an https server offers it (environment `http_version_support: h2`). */
  http2?: boolean
  /** HTTP/2 with prior knowledge on plain http:// (environment `force_h2c`). */
  h2c?: boolean
  timeoutMs: number
  signal?: AbortSignal | undefined
  /** Where the request may go; default runnerEgress's. */
  egress?: EgressPolicy | undefined
}

/**
 * Sends a request and reads the whole response; throws on a network error, a timeout or a
 * destination the egress policy refuses (ERR_NET_EGRESS_REFUSED): the step fails with that message.
 */
export async function send(
  out: OutgoingRequest,
  options: SendOptions,
  parsed: URL = new URL(out.url),
): Promise<ResponseData> {
  // A flat [name, value, ...] list: repeated names go as separate lines, as the step wrote them.
  const headers: string[] = []
  for (const [name, value] of out.headers) headers.push(name, value)
  // The step's time limit is undici's own timers (headers, then each body chunk) plus a deadline
  // checked as the body arrives: no AbortSignal.timeout/any per step (about 6 us and two timers
  // each). The run's cancel signal, when there is one, is passed as it is. The URL the runner
  // already parsed goes to the pool as origin and path (undici's `request(url)` parses it again).
  const started = performance.now()
  const pool = dispatcher(
    runnerEgress(options.egress),
    options.verifySsl,
    options.clientCertificate,
    options.http2 === true,
    options.h2c === true,
  )
  const res = await pool
    .request({
      origin: parsed.origin,
      path: parsed.pathname + parsed.search,
      method: out.method as Dispatcher.HttpMethod,
      headers,
      body: out.body,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    .catch((err: unknown) => {
      throw timedOut(err, options.timeoutMs)
    })
  const { chunks, size } = await readBody(res.body, started + options.timeoutMs, options.timeoutMs)
  const timeMs = Math.round(performance.now() - started)
  const responseHeaders: Record<string, string[]> = {}
  // for...in over undici's own plain object: no [name, value] array per header.
  const received = res.headers
  for (const name in received) {
    const value = received[name]
    if (value === undefined) continue
    responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value : [value]
  }
  const body =
    chunks.length === 1
      ? (chunks[0] as Buffer).toString('utf8')
      : Buffer.concat(chunks).toString('utf8')
  return new ResponseData(res.statusCode, res.statusText ?? '', responseHeaders, body, size, timeMs)
}

/**
 * A `fetch` for oauth4webapi's token requests that goes through the same pools, hence the same
 * egress check, as the steps (the token endpoint is a URL the tenant wrote).
 *
 * @example
 * const options = { [oauth.customFetch]: egressFetch(policy) }
 */
export function egressFetch(
  egress: EgressPolicy,
): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const { fetch } = await import('undici')
    return (await fetch(url, {
      ...(init as Record<string, unknown>),
      dispatcher: dispatcher(egress, true, null, false, false),
    })) as unknown as Response
  }
}
