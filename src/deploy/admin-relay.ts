import { randomUUID } from 'node:crypto'
import type { AdminCallRepository, StoredAdminCall, Wakeups } from '../store/index.js'
import type { AdminAnswer, AdminExchange, RuntimeAdmin } from './admin-client.js'

/**
 * The admin calls of mock services that run on agents' ships (docs/deploy.md#agents-and-locations).
 * The platform never connects to an agent (it may sit behind NAT or a firewall, and an address an
 * agent reports is not one the platform may call): a call is queued for the ship, the agent takes
 * it with a long poll it opens (`GET .../servers/{shipId}/admin-calls`), makes it on its own
 * runtime and posts the runtime's answer back (`POST .../admin-calls/{callId}`). Fails closed: a
 * call no agent takes in time, or takes and never answers, rejects with the ship named, and the
 * caller answers 503.
 *
 * Calls are rows of the store (`adminCalls`), so that with several platform instances on one
 * database the agent's poll and its answer may reach any of them: the instance that queued a
 * call waits for its answer in the store. Wake-ups (`Wakeups`: in process, or PostgreSQL's
 * LISTEN/NOTIFY between instances) tell the instance holding the agent's poll that a call is
 * queued, and the caller's instance that it is answered, so neither waits for a poll.
 */

/** A call as the agent receives it. */
export interface RelayedCall {
  callId: string
  mockServiceId: number
  method: string
  path: string
  /** The JSON body, when the call has one. */
  json?: unknown
  /** How long the agent gives its runtime to answer. */
  timeoutMs: number
}

/** Where a relayed mock service runs. */
export interface ShipRef {
  harborId: string
  shipId: string
}

/** Largest answer an agent may post for one call (a recording of many transactions, say). */
export const RELAY_ANSWER_LIMIT = 16 * 1024 * 1024

/** Longest call time an agent is asked to give its runtime. */
const MAX_CALL_MS = 60_000

/**
 * The admin API paths a call may take through the relay, by method: what the platform reads and
 * drives of a running mock service (inspection, verification, recordings, scenarios, health).
 * Never `PUT /config` (a ship's configuration is its desired state, which the agent pulls), the
 * log (the agent reports it), the WireMock admin or the runtime's own page.
 */
const RELAYABLE: Record<string, RegExp> = {
  GET: /^\/(?:health|inspection(?:\/count|\/unmatched|\/\d{1,15})?|recordings|scenarios)$/,
  POST: /^\/inspection\/verify$/,
  PUT: /^\/scenarios\/[^/]+$/,
  DELETE: /^\/(?:inspection|recordings|scenarios(?:\/[^/]+)?)$/,
}

/**
 * Whether a call may go through the relay: a path of the runtime admin API the platform uses,
 * with a query of plain characters. Checked where a call is queued and again by the agent.
 *
 * @example
 * relayable('GET', '/inspection?skip=0&limit=50') // true
 * relayable('PUT', '/config') // false
 */
export function relayable(method: string, path: string): boolean {
  const pattern = RELAYABLE[method]
  if (pattern === undefined || path.length > 4096) return false
  const q = path.indexOf('?')
  const pathname = q === -1 ? path : path.slice(0, q)
  const query = q === -1 ? '' : path.slice(q + 1)
  if (!/^[A-Za-z0-9._~%!$&'()*+,;=:@/-]*$/.test(pathname)) return false
  // A URL parser takes `..` and `.` segments (`%2e` spelled too) as steps out of the path.
  const steps = pathname.split('/').map((segment) => segment.toLowerCase().replaceAll('%2e', '.'))
  if (steps.some((segment) => segment === '.' || segment === '..')) return false
  if (!/^[A-Za-z0-9._~%!$&'()*+,;=:@/?-]*$/.test(query)) return false
  return pattern.test(pathname)
}

interface AdminRelayOptions {
  /** The mailbox the calls go through (the store's, shared by the instances on it). */
  calls: AdminCallRepository
  /** How waiting polls and callers hear of new calls and answers. */
  wakeups: Wakeups
  /**
   * How long a call waits for its agent to take it, and then, once taken, longer than the call's
   * own time for its answer; default 10 s (`understudy platform --agent-call-timeout`).
   */
  takeWithinMs?: number
}

/** How often rows whose caller is gone (its instance died) are swept, at most. */
const SWEEP_EVERY_MS = 30_000
/** Rows are swept this long after their life ended: room for clocks of instances that differ. */
const SWEEP_GRACE_MS = 60_000

const shipTopic = (shipId: string): string => `ship:${shipId}`
const answerTopic = (callId: string): string => `answer:${callId}`

/**
 * @example
 * const relay = new AdminRelay({ calls: store.adminCalls, wakeups: new LocalWakeups(), takeWithinMs: 10_000 })
 * const admin = relay.admin({ harborId, shipId }, 7)     // a RuntimeAdmin for adminRequest
 * const calls = await relay.take(shipId, 4, 25_000, gone) // the agent's long poll
 * await relay.answer(shipId, calls[0].callId, { status: 200, body }) // its answer
 */
export class AdminRelay {
  readonly takeWithinMs: number
  readonly #calls: AdminCallRepository
  readonly #wakeups: Wakeups
  /** Ends every wait of this instance when it stops. */
  readonly #stopping = new AbortController()
  /** The calls this instance waits for, so that a stop waits until they are withdrawn. */
  readonly #inFlight = new Set<Promise<unknown>>()
  #sweptAt = 0

  constructor(options: AdminRelayOptions) {
    this.takeWithinMs = options.takeWithinMs ?? 10_000
    this.#calls = options.calls
    this.#wakeups = options.wakeups
  }

  /** The admin of a mock service on a ship: its calls go through this relay. */
  admin(ship: ShipRef, mockServiceId: number): RuntimeAdmin {
    return {
      // Never fetched: it names the runtime in logs.
      url: `relay://${ship.shipId}/${mockServiceId}`,
      token: null,
      transport: async (exchange) => await this.call(ship, mockServiceId, exchange),
    }
  }

  /** Queues a call for the ship's agent and resolves with the runtime's answer. */
  async call(ship: ShipRef, mockServiceId: number, exchange: AdminExchange): Promise<AdminAnswer> {
    const who = `agent ${ship.shipId} of private location ${ship.harborId}`
    if (this.#stopping.signal.aborted) {
      throw new Error(`the platform is stopping: no call goes to ${who}`)
    }
    if (!relayable(exchange.method, exchange.path)) {
      throw new Error(`${exchange.method} ${exchange.path} is not an admin call agents answer`)
    }
    const call: StoredAdminCall = {
      callId: randomUUID(),
      harborId: ship.harborId,
      shipId: ship.shipId,
      mockServiceId,
      method: exchange.method,
      path: exchange.path,
      json: exchange.json === undefined ? null : JSON.stringify(exchange.json),
      timeoutMs: Math.min(Math.max(exchange.timeoutMs, 1), MAX_CALL_MS),
    }
    const waiting = this.#callAndWait(call, who)
    this.#inFlight.add(waiting)
    try {
      return await waiting
    } finally {
      this.#inFlight.delete(waiting)
    }
  }

  async #callAndWait(call: StoredAdminCall, who: string): Promise<AdminAnswer> {
    const answerWithinMs = call.timeoutMs + this.takeWithinMs
    const created = Date.now()
    const takeBy = created + this.takeWithinMs
    // Listening before the call is queued: an answer can come no sooner than that.
    const waiter = this.#wakeups.waiter(answerTopic(call.callId))
    try {
      this.#sweep(created)
      await this.#calls.queue({ ...call, created, takeBy, answerWithinMs })
      this.#wakeups.signal(shipTopic(call.shipId))
      let answerBy: number | undefined
      for (;;) {
        const until = answerBy ?? takeBy
        const left = until - Date.now()
        if (left > 0) {
          await waiter.wait(Math.min(left, this.#wakeups.safetyNetMs), this.#stopping.signal)
        }
        const answer = await this.#calls.collect(call.callId)
        if (answer !== undefined) return decoded(answer)
        if (this.#stopping.signal.aborted) {
          await this.#calls.withdraw(call.callId).catch(() => undefined)
          throw new Error(`the platform is stopping: the call to ${who} was withdrawn`)
        }
        const now = Date.now()
        if (answerBy === undefined && now >= takeBy) {
          if (await this.#calls.withdrawQueued(call.callId)) {
            throw new Error(
              `${who} did not take the call within ${this.takeWithinMs} ms (is the agent running and connected to the platform?)`,
            )
          }
          // Taken: its agent has until the time it was given at the take.
          answerBy = (await this.#calls.answerBy(call.callId)) ?? now
        }
        if (answerBy !== undefined && now >= answerBy) {
          // An answer that came in meanwhile is still the answer.
          const late = await this.#calls.withdraw(call.callId)
          if (late !== undefined) return decoded(late)
          throw new Error(`${who} took the call but did not answer within ${answerWithinMs} ms`)
        }
      }
    } finally {
      waiter.close()
    }
  }

  /**
   * The agent's long poll: up to `max` calls queued for the ship, waiting up to `waitMs` for one
   * when there is none, or until `gone` says the agent hung up. Taken calls wait for their answer.
   */
  async take(
    shipId: string,
    max: number,
    waitMs: number,
    gone: AbortSignal,
  ): Promise<RelayedCall[]> {
    const waiter = this.#wakeups.waiter(shipTopic(shipId))
    const ended = AbortSignal.any([gone, this.#stopping.signal])
    try {
      const deadline = Date.now() + waitMs
      for (;;) {
        // An agent that hung up takes nothing: its calls stay for its next poll.
        if (gone.aborted) return []
        const taken = await this.#calls.take(shipId, Math.max(1, max), Date.now())
        if (taken.length > 0) return taken.map(relayedCall)
        const left = deadline - Date.now()
        if (left <= 0 || ended.aborted) return []
        await waiter.wait(Math.min(left, this.#wakeups.safetyNetMs), ended)
      }
    } finally {
      waiter.close()
    }
  }

  /** The agent's answer to a call it took; false when the ship has no such call waiting. */
  async answer(shipId: string, callId: string, answer: AdminAnswer): Promise<boolean> {
    const stored = await this.#calls.answer(
      shipId,
      callId,
      { status: answer.status, body: JSON.stringify(answer.body) },
      Date.now(),
    )
    if (stored) this.#wakeups.signal(answerTopic(callId))
    return stored
  }

  /** Fails every call this instance waits for (withdrawn from the store) and ends its long polls. */
  async close(): Promise<void> {
    this.#stopping.abort()
    await Promise.allSettled([...this.#inFlight])
  }

  /** Deletes, now and then, the rows an instance that died left behind. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return
    this.#sweptAt = now
    this.#calls.sweep(now - SWEEP_GRACE_MS).catch(() => {})
  }
}

function relayedCall(stored: StoredAdminCall): RelayedCall {
  return {
    callId: stored.callId,
    mockServiceId: stored.mockServiceId,
    method: stored.method,
    path: stored.path,
    ...(stored.json === null ? {} : { json: JSON.parse(stored.json) as unknown }),
    timeoutMs: stored.timeoutMs,
  }
}

function decoded(answer: { status: number; body: string }): AdminAnswer {
  return { status: answer.status, body: JSON.parse(answer.body) as unknown }
}
