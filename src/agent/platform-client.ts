import type { AdminAnswer, RelayedCall } from '../deploy/index.js'
import { createError, type UnderstudyError } from '../errors/index.js'
import type { MockServiceStatus } from '../store/index.js'
import type { WorkState } from './work.js'

interface HeartbeatBody {
  memoryUsage: number
  msRunningCount: number
  transactionsCount: number
  version: string
  advertiseHost: string | null
  regions?: string[]
  running: Array<{
    mockServiceId: number
    documentHash: string | null
    port: number | null
    status: string
  }>
}

export interface ReportBody {
  mockServiceId: number
  status: MockServiceStatus
  endpoints: { http: string | null; https: string | null }
  trackings?: Array<{
    trackingId: string
    status: 'FINISHED' | 'FAILED'
    errors: Array<{ code: string; message: string }>
    warnings: Array<{ code: string; message: string }>
  }>
  logs?: string[]
  error?: { code: string; message: string } | null
}

/** The platform answered, but refused (4xx/5xx): `status` says how. */
export class PlatformRefusal extends Error {
  override readonly name = 'PlatformRefusal'
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The agent's side of the agent routes: every call is one the agent opens (outbound HTTP(S)),
 * with the ship's token as a bearer token. A platform that does not answer throws
 * ERR_API_UNAVAILABLE (try again later); one that refuses throws PlatformRefusal.
 *
 * @example
 * const client = new PlatformClient({ platform: 'http://127.0.0.1:8080', harborId, shipId, token })
 * const state = await client.work(3, 25)
 */
export class PlatformClient {
  readonly #base: string
  readonly #token: string
  /** Ends the calls under way (a long poll) when the agent stops. */
  readonly #closed = new AbortController()

  constructor(options: { platform: string; harborId: string; shipId: string; token: string }) {
    const root = options.platform.replace(/\/+$/, '')
    this.#base = `${root}/api/v4/private-locations/${encodeURIComponent(options.harborId)}/servers/${encodeURIComponent(options.shipId)}`
    this.#token = options.token
  }

  async heartbeat(
    body: HeartbeatBody,
  ): Promise<{ state: string; lastHeartBeat: string; desiredVersion: number }> {
    return (await this.#call('POST', '/heartbeat', body, 10_000)) as {
      state: string
      lastHeartBeat: string
      desiredVersion: number
    }
  }

  /** The desired state; with `version`, waits up to `waitS` seconds for a different one. */
  async work(version: number | null, waitS: number): Promise<WorkState> {
    const query = version === null ? '' : `?version=${version}&wait=${waitS}`
    return (await this.#call('GET', `/work${query}`, undefined, (waitS + 15) * 1000)) as WorkState
  }

  async report(body: ReportBody): Promise<void> {
    await this.#call('POST', '/reports', body, 10_000)
  }

  /** Admin calls the platform relays to this agent: up to `max`, waiting up to `waitS` seconds for one. */
  async adminCalls(max: number, waitS: number): Promise<RelayedCall[]> {
    return (await this.#call(
      'GET',
      `/admin-calls?max=${max}&wait=${waitS}`,
      undefined,
      (waitS + 15) * 1000,
    )) as RelayedCall[]
  }

  /** The runtime's answer to a relayed call. */
  async answerAdminCall(callId: string, answer: AdminAnswer): Promise<void> {
    await this.#call('POST', `/admin-calls/${encodeURIComponent(callId)}`, answer, 30_000)
  }

  /** Aborts every call under way; later calls fail at once. */
  close(): void {
    this.#closed.abort()
  }

  async #call(method: string, path: string, body: unknown, timeoutMs: number): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closed.signal]),
      })
    } catch (err) {
      throw unavailable(err)
    }
    const text = await res.text().catch(() => '')
    let parsed: { result?: unknown; error?: { message?: string } } = {}
    try {
      parsed = JSON.parse(text) as typeof parsed
    } catch {
      // not JSON: the status alone tells
    }
    if (!res.ok) {
      throw new PlatformRefusal(
        res.status,
        parsed.error?.message ?? `the platform answered ${res.status} to ${method} ${path}`,
      )
    }
    return parsed.result
  }
}

function unavailable(err: unknown): UnderstudyError {
  const cause = (err as { cause?: { code?: string } }).cause?.code
  return createError(
    'ERR_API_UNAVAILABLE',
    [`the platform does not answer (${cause ?? (err as Error).message})`],
    { cause: err },
  )
}
