import type { MockServiceDocument } from '../dsl/index.js'
import { createError, fromWireError } from '../errors/index.js'

/**
 * The runtime admin API as the deployer calls it (docs/runtime.md "Admin API"): global fetch
 * (undici) on loopback, every call bounded by a timeout.
 */

/** What the deployer reads of `GET /health`; a cluster primary adds `replicas` and `workers`. */
export interface RuntimeHealthView {
  status: string
  transactions: number
  inFlight: number
  pid?: number
  replicas?: number
  workers?: Array<{ pid: number | null; status: string }>
}

interface Envelope {
  error: unknown
  result: unknown
}

async function call (url: string, init: RequestInit, timeoutMs: number): Promise<unknown> {
  let res: Response
  let body: Envelope
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    body = await res.json() as Envelope
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message
    throw createError('ERR_DEPLOY_FAILED', [`the runtime admin API at ${url} did not answer: ${reason}`])
  }
  if (!res.ok || (body.error !== null && body.error !== undefined)) {
    // The runtime's own code (ERR_DSL_INVALID with its details...) when it is one of ours;
    // ERR_DEPLOY_FAILED for anything else, through the one decoder of remote errors.
    throw fromWireError(body.error ?? { message: `HTTP ${res.status} from ${url}` }, 'ERR_DEPLOY_FAILED')
  }
  return body.result
}

/**
 * `GET /health`.
 *
 * @example
 * (await fetchHealth('http://127.0.0.1:9090', 2000)).status // 'UP'
 */
export async function fetchHealth (adminUrl: string, timeoutMs: number): Promise<RuntimeHealthView> {
  return await call(`${adminUrl}/health`, { method: 'GET' }, timeoutMs) as RuntimeHealthView
}

/**
 * `PUT /config`: the runtime compiles the document and swaps it in atomically (every replica, in
 * a cluster, before it answers). Throws an UnderstudyError with the runtime's code (ERR_DSL_INVALID...)
 * when it refuses, in which case the old configuration keeps serving.
 */
export async function putConfig (adminUrl: string, document: MockServiceDocument, timeoutMs: number): Promise<{ transactions: number }> {
  return await call(`${adminUrl}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(document),
  }, timeoutMs) as { transactions: number }
}
