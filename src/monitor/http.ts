import { Agent, buildConnector, request, type Dispatcher } from 'undici'
import { ResponseData } from './response.js'

/** Bodies are read up to this size for assertions; the rest is counted, not kept. */
const MAX_READ_BYTES = 10 * 1024 * 1024

/** Pools by TLS settings: at most a few (verify or not, each client certificate in use). */
const agents = new Map<string, Agent>()
const MAX_AGENTS = 32

/**
 * Shared connection pools (keep-alive): one per combination of `verify_ssl`, HTTP version and
 * client certificate, shared across runs so that a schedule reuses its connections. A client
 * certificate is a PEM text holding the certificate and its private key. `http2` lets an https
 * server choose HTTP/2 (ALPN); `h2c` speaks HTTP/2 with prior knowledge on plain http:// (undici's
 * `useH2c`), which an HTTP/1.1-only server cannot answer.
 */
function dispatcher (verifySsl: boolean, clientCertificate: string | null, http2: boolean, h2c: boolean): Dispatcher {
  const key = `${verifySsl ? 1 : 0}:${http2 ? 1 : 0}:${h2c ? 1 : 0}:${clientCertificate ?? ''}`
  let agent = agents.get(key)
  if (agent === undefined) {
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, Agent]
      agents.delete(oldestKey)
      oldest.close().catch(() => {})
    }
    const cert = clientCertificate !== null && clientCertificate.trim() !== '' ? { cert: clientCertificate, key: clientCertificate } : {}
    const tls = { rejectUnauthorized: verifySsl, ...cert }
    // undici's pools drop `useH2c` from connect options: h2c needs a connector built with it
    // (the option exists in undici 7 but not in its BuildOptions type).
    const connect = h2c ? buildConnector({ ...tls, allowH2: true, useH2c: true } as unknown as buildConnector.BuildOptions) : tls
    agent = new Agent({ keepAliveTimeout: 10_000, allowH2: http2 || h2c, connect })
    agents.set(key, agent)
  }
  return agent
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
}

/** Sends a request and reads the whole response; throws on a network error or timeout (the step fails). */
export async function send (out: OutgoingRequest, options: SendOptions): Promise<ResponseData> {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of out.headers) {
    const existing = headers[name]
    if (existing === undefined) headers[name] = value
    else headers[name] = Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  const signals = [AbortSignal.timeout(options.timeoutMs)]
  if (options.signal !== undefined) signals.push(options.signal)
  const started = performance.now()
  const res = await request(out.url, {
    method: out.method as Dispatcher.HttpMethod,
    headers,
    body: out.body,
    dispatcher: dispatcher(options.verifySsl, options.clientCertificate, options.http2 === true, options.h2c === true),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    signal: AbortSignal.any(signals),
  })
  const chunks: Buffer[] = []
  let size = 0
  let kept = 0
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (kept < MAX_READ_BYTES) {
      const part = kept + chunk.length > MAX_READ_BYTES ? chunk.subarray(0, MAX_READ_BYTES - kept) : chunk
      chunks.push(part)
      kept += part.length
    }
  }
  const timeMs = Math.round(performance.now() - started)
  const responseHeaders: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue
    responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value : [value]
  }
  const body = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')
  return new ResponseData(res.statusCode, res.statusText ?? '', responseHeaders, body, size, timeMs)
}
