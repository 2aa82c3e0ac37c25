import type { MockServiceDocument } from '../dsl/index.js'

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

/** An admin call that failed: the runtime's error code, or ERR_DEPLOY_FAILED when it did not answer. */
export class AdminCallError extends Error {
  readonly code: string

  constructor (code: string, message: string) {
    super(message)
    this.name = 'AdminCallError'
    this.code = code
  }
}

interface Envelope {
  error: { code?: unknown; message?: unknown } | null
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
    throw new AdminCallError('ERR_DEPLOY_FAILED', `Deployment failed: the runtime admin API at ${url} did not answer: ${reason}`)
  }
  if (!res.ok || body.error !== null) {
    const code = typeof body.error?.code === 'string' ? body.error.code : 'ERR_DEPLOY_FAILED'
    const message = typeof body.error?.message === 'string' ? body.error.message : `HTTP ${res.status} from ${url}`
    throw new AdminCallError(code, message)
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
 * a cluster, before it answers). Throws AdminCallError with the runtime's code (ERR_DSL_INVALID...)
 * when it refuses, in which case the old configuration keeps serving.
 */
export async function putConfig (adminUrl: string, document: MockServiceDocument, timeoutMs: number): Promise<{ transactions: number }> {
  return await call(`${adminUrl}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(document),
  }, timeoutMs) as { transactions: number }
}
