import { Agent, request, type Dispatcher } from 'undici'
import { ResponseData } from './response.js'

/** Bodies are read up to this size for assertions; the rest is counted, not kept. */
const MAX_READ_BYTES = 10 * 1024 * 1024

let verifying: Agent | null = null
let lenient: Agent | null = null

/**
 * Shared connection pools (keep-alive), one verifying TLS certificates and one not, for
 * environments with `verify_ssl: false`. Shared across runs so that a schedule reuses connections.
 */
function dispatcher (verifySsl: boolean): Dispatcher {
  if (verifySsl) return (verifying ??= new Agent({ keepAliveTimeout: 10_000 }))
  return (lenient ??= new Agent({ keepAliveTimeout: 10_000, connect: { rejectUnauthorized: false } }))
}

export interface OutgoingRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  body: string | null
}

export interface SendOptions {
  verifySsl: boolean
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
    dispatcher: dispatcher(options.verifySsl),
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
