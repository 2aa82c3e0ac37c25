import type { MockServiceDocument } from '../dsl/index.js'
import { codes, createError, fromWireError, type ErrorCode } from '../errors/index.js'

/**
 * The one client of the runtime admin API (docs/runtime.md "Admin API"), for the deployer and the
 * control plane alike: global fetch (undici) on loopback, every call bounded by a timeout and
 * carrying the runtime's admin token, every error decoded the same way (docs/architecture.md
 * "Runtime admin client").
 */

/**
 * Where a runtime's admin API answers and the token it requires (docs/security.md "Runtime admin
 * tokens"): the deployer makes a new one for every process it starts; null for a runtime started
 * without one (a user's `understudy run` on loopback).
 */
export interface RuntimeAdmin {
  readonly url: string
  readonly token: string | null
  /**
   * How the calls travel when not by HTTP to `url`: a runtime on an agent's ship, which the
   * platform never calls itself (the agent takes each call and answers it, admin-relay.ts).
   */
  readonly transport?: AdminTransport
}

/** One admin call as it travels, and its answer: the runtime's HTTP status and JSON body. */
export interface AdminExchange {
  method: string
  /** The admin API path with its query, such as `/inspection?skip=0&limit=50`. */
  path: string
  json?: unknown
  timeoutMs: number
}
export interface AdminAnswer {
  status: number
  body: unknown
}

/**
 * Carries an admin call to a runtime and brings back its answer; rejects (with the reason in
 * its message) when the call could not be carried, which the caller reports as `unavailable`.
 */
export type AdminTransport = (exchange: AdminExchange) => Promise<AdminAnswer>

/**
 * The headers of an admin call: `Authorization: Bearer <token>` when the runtime has a token.
 *
 * @example
 * await fetch(admin.url + '/inspection', { headers: adminHeaders(admin) })
 */
export function adminHeaders(
  admin: RuntimeAdmin,
  extra: Record<string, string> = {},
): Record<string, string> {
  return admin.token === null ? extra : { ...extra, authorization: `Bearer ${admin.token}` }
}

/** What the deployer reads of `GET /health`; a cluster primary adds `replicas` and `workers`. */
interface RuntimeHealthView {
  status: string
  transactions: number
  inFlight: number
  pid?: number
  replicas?: number
  workers?: Array<{ pid: number | null; status: string }>
}

/** The envelope every admin answer has: `result`, or `error` (plus members of its own, such as `total`). */
type AdminEnvelope = Record<string, unknown> & { result?: unknown; error?: unknown }

/** What an admin call sends, how long it waits, and the code of a failure that is not the runtime's own. */
interface AdminRequest {
  method: string
  /** Sent as the JSON body. */
  json?: unknown
  timeoutMs: number
  /**
   * The code of a runtime that does not answer, or that fails on its side (a 5xx): the deployer's
   * ERR_DEPLOY_FAILED, the control plane's 503 ERR_API_UNAVAILABLE.
   */
  unavailable: ErrorCode
}

/**
 * Any call on a runtime's admin API, returning the whole envelope. A refusal of the request (a
 * 4xx: ERR_DSL_INVALID, ERR_API_VALIDATION, ERR_INSPECT_NOT_FOUND...) keeps the runtime's own
 * code, message and details, decoded by the one decoder of remote errors (errors/remote.ts), so
 * that the same refusal has the same code whoever relays it; a runtime that does not answer in
 * time, fails on its side or answers with no code of ours is `unavailable`.
 *
 * @example
 * const { result } = await adminRequest(admin, '/inspection/verify', { method: 'POST', json: verification, timeoutMs: 5000, unavailable: 'ERR_API_UNAVAILABLE' })
 */
export async function adminRequest(
  admin: RuntimeAdmin,
  path: string,
  request: AdminRequest,
): Promise<AdminEnvelope> {
  const { method, json, timeoutMs, unavailable } = request
  let answer: AdminAnswer
  try {
    answer =
      admin.transport === undefined
        ? await httpExchange(admin, { method, path, json, timeoutMs })
        : await admin.transport({ method, path, json, timeoutMs })
  } catch (err) {
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : (err as Error).message
    // the admin URL stays out of the message: a tenant reads it, and the runtime's admin port is not theirs to know
    throw createError(unavailable, [`the runtime's admin API did not answer: ${reason}`], {
      cause: err,
    })
  }
  const { status } = answer
  const body = (
    answer.body !== null && typeof answer.body === 'object' ? answer.body : {}
  ) as AdminEnvelope
  const error = body.error ?? null
  if (status >= 200 && status < 300 && error === null) return body
  const refused = fromWireError(error, unavailable)
  if (status < 500 && refused.code !== unavailable && codes[refused.code].status < 500) {
    throw refused
  }
  const message =
    typeof (error as { message?: unknown } | null)?.message === 'string'
      ? (error as { message: string }).message
      : 'no reason given'
  throw createError(unavailable, [`the runtime's admin API answered ${status}: ${message}`])
}

/**
 * One call on a runtime's admin API over HTTP, answered as it came: its status and its JSON
 * body. Rejects when the runtime does not answer within the time, or answers no JSON. The agent
 * makes the calls the platform relays to it with this, so that the platform decodes the very
 * answer the runtime gave.
 *
 * @example
 * const { status, body } = await httpExchange(admin, { method: 'GET', path: '/inspection', timeoutMs: 5000 })
 */
export async function httpExchange(
  admin: RuntimeAdmin,
  exchange: AdminExchange,
): Promise<AdminAnswer> {
  const { method, path, json, timeoutMs } = exchange
  const headers = adminHeaders(
    admin,
    json === undefined ? {} : { 'content-type': 'application/json' },
  )
  const init: RequestInit = { method, headers, signal: AbortSignal.timeout(timeoutMs) }
  if (json !== undefined) init.body = JSON.stringify(json)
  const res = await fetch(admin.url + path, init)
  return { status: res.status, body: (await res.json()) as unknown }
}

/**
 * `GET /health`.
 *
 * @example
 * (await fetchHealth({ url: 'http://127.0.0.1:9090', token }, 2000)).status // 'UP'
 */
export async function fetchHealth(
  admin: RuntimeAdmin,
  timeoutMs: number,
): Promise<RuntimeHealthView> {
  return (
    await adminRequest(admin, '/health', {
      method: 'GET',
      timeoutMs,
      unavailable: 'ERR_DEPLOY_FAILED',
    })
  ).result as RuntimeHealthView
}

/**
 * `PUT /config`: the runtime compiles the document and swaps it in atomically (every replica, in
 * a cluster, before it answers). Throws an UnderstudyError with the runtime's code (ERR_DSL_INVALID...)
 * when it refuses, in which case the old configuration keeps serving.
 */
export async function putConfig(
  admin: RuntimeAdmin,
  document: MockServiceDocument,
  timeoutMs: number,
): Promise<{ transactions: number }> {
  const answer = await adminRequest(admin, '/config', {
    method: 'PUT',
    json: document,
    timeoutMs,
    unavailable: 'ERR_DEPLOY_FAILED',
  })
  return answer.result as { transactions: number }
}
