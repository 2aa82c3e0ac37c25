import type { MockServiceDocument } from '../dsl/index.js'
import { createError, fromWireError } from '../errors/index.js'

/**
 * The runtime admin API as the deployer calls it (docs/runtime.md "Admin API"): global fetch
 * (undici) on loopback, every call bounded by a timeout and carrying the runtime's admin token.
 */

/**
 * Where a runtime's admin API answers and the token it requires (docs/security.md "Runtime admin
 * tokens"): the deployer makes a new one for every process it starts; null for a runtime started
 * without one (a user's `understudy run` on loopback).
 */
export interface RuntimeAdmin {
  readonly url: string
  readonly token: string | null
}

/**
 * The headers of an admin call: `Authorization: Bearer <token>` when the runtime has a token.
 *
 * @example
 * await fetch(admin.url + '/inspection', { headers: adminHeaders(admin) })
 */
export function adminHeaders (admin: RuntimeAdmin, extra: Record<string, string> = {}): Record<string, string> {
  return admin.token === null ? extra : { ...extra, authorization: `Bearer ${admin.token}` }
}

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

async function call (admin: RuntimeAdmin, path: string, init: RequestInit & { headers?: Record<string, string> }, timeoutMs: number): Promise<unknown> {
  const url = admin.url + path
  let res: Response
  let body: Envelope
  try {
    res = await fetch(url, { ...init, headers: adminHeaders(admin, init.headers), signal: AbortSignal.timeout(timeoutMs) })
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
 * (await fetchHealth({ url: 'http://127.0.0.1:9090', token }, 2000)).status // 'UP'
 */
export async function fetchHealth (admin: RuntimeAdmin, timeoutMs: number): Promise<RuntimeHealthView> {
  return await call(admin, '/health', { method: 'GET' }, timeoutMs) as RuntimeHealthView
}

/**
 * `PUT /config`: the runtime compiles the document and swaps it in atomically (every replica, in
 * a cluster, before it answers). Throws an UnderstudyError with the runtime's code (ERR_DSL_INVALID...)
 * when it refuses, in which case the old configuration keeps serving.
 */
export async function putConfig (admin: RuntimeAdmin, document: MockServiceDocument, timeoutMs: number): Promise<{ transactions: number }> {
  return await call(admin, '/config', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(document),
  }, timeoutMs) as { transactions: number }
}
