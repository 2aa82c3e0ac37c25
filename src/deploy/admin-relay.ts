import { randomUUID } from 'node:crypto'
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
 * Pending calls live in the memory of this platform instance: an agent whose poll reaches another
 * instance does not see them, and they fail closed when their time is up.
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

interface Pending {
  call: RelayedCall
  ship: ShipRef
  resolve: (answer: AdminAnswer) => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

interface AdminRelayOptions {
  /**
   * How long a call waits for its agent to take it, and then, once taken, longer than the call's
   * own time for its answer; default 10 s (`understudy platform --agent-call-timeout`).
   */
  takeWithinMs?: number
}

/**
 * @example
 * const relay = new AdminRelay({ takeWithinMs: 10_000 })
 * const admin = relay.admin({ harborId, shipId }, 7)     // a RuntimeAdmin for adminRequest
 * const calls = await relay.take(shipId, 4, 25_000, gone) // the agent's long poll
 * relay.answer(shipId, calls[0].callId, { status: 200, body }) // its answer
 */
export class AdminRelay {
  readonly takeWithinMs: number
  /** Calls not taken yet, per ship, oldest first. */
  readonly #queued = new Map<string, Pending[]>()
  /** Calls taken by an agent and not answered yet, by call id. */
  readonly #taken = new Map<string, Pending>()
  /** Long polls waiting for calls, per ship. */
  readonly #pollers = new Map<string, Set<() => void>>()
  #closed = false

  constructor(options: AdminRelayOptions = {}) {
    this.takeWithinMs = options.takeWithinMs ?? 10_000
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
    if (this.#closed) throw new Error(`the platform is stopping: no call goes to ${who}`)
    if (!relayable(exchange.method, exchange.path)) {
      throw new Error(`${exchange.method} ${exchange.path} is not an admin call agents answer`)
    }
    return await new Promise<AdminAnswer>((resolve, reject) => {
      const call: RelayedCall = {
        callId: randomUUID(),
        mockServiceId,
        method: exchange.method,
        path: exchange.path,
        ...(exchange.json === undefined ? {} : { json: exchange.json }),
        timeoutMs: Math.min(Math.max(exchange.timeoutMs, 1), MAX_CALL_MS),
      }
      const pending: Pending = {
        call,
        ship,
        resolve,
        reject,
        timer: setTimeout(() => {
          const queue = this.#queued.get(ship.shipId) ?? []
          const at = queue.indexOf(pending)
          if (at !== -1) queue.splice(at, 1)
          if (queue.length === 0) this.#queued.delete(ship.shipId)
          reject(
            new Error(
              `${who} did not take the call within ${this.takeWithinMs} ms (is the agent running and connected to this platform instance?)`,
            ),
          )
        }, this.takeWithinMs),
      }
      pending.timer.unref()
      const queue = this.#queued.get(ship.shipId)
      if (queue === undefined) this.#queued.set(ship.shipId, [pending])
      else queue.push(pending)
      this.#wake(ship.shipId)
    })
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
    if (!this.#has(shipId) && waitMs > 0 && !this.#closed && !gone.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer)
          gone.removeEventListener('abort', done)
          this.#pollers.get(shipId)?.delete(done)
          resolve()
        }
        const timer = setTimeout(done, waitMs)
        gone.addEventListener('abort', done)
        let waiting = this.#pollers.get(shipId)
        if (waiting === undefined) {
          waiting = new Set()
          this.#pollers.set(shipId, waiting)
        }
        waiting.add(done)
      })
      if (this.#pollers.get(shipId)?.size === 0) this.#pollers.delete(shipId)
    }
    // An agent that hung up takes nothing: its calls stay for its next poll.
    if (gone.aborted) return []
    const queue = this.#queued.get(shipId)
    if (queue === undefined) return []
    const taken = queue.splice(0, Math.max(1, max))
    if (queue.length === 0) this.#queued.delete(shipId)
    for (const pending of taken) {
      clearTimeout(pending.timer)
      const { call, ship } = pending
      const answerWithin = call.timeoutMs + this.takeWithinMs
      pending.timer = setTimeout(() => {
        this.#taken.delete(call.callId)
        pending.reject(
          new Error(
            `agent ${ship.shipId} of private location ${ship.harborId} took the call but did not answer within ${answerWithin} ms`,
          ),
        )
      }, answerWithin)
      pending.timer.unref()
      this.#taken.set(call.callId, pending)
    }
    return taken.map((p) => p.call)
  }

  /** The agent's answer to a call it took; false when the ship has no such call waiting. */
  answer(shipId: string, callId: string, answer: AdminAnswer): boolean {
    const pending = this.#taken.get(callId)
    if (pending?.ship.shipId !== shipId) return false
    this.#taken.delete(callId)
    clearTimeout(pending.timer)
    pending.resolve(answer)
    return true
  }

  /** Fails every call waiting and ends every long poll (the platform is stopping). */
  close(): void {
    this.#closed = true
    const reason = new Error('the platform is stopping')
    for (const queue of this.#queued.values()) {
      for (const pending of queue) {
        clearTimeout(pending.timer)
        pending.reject(reason)
      }
    }
    this.#queued.clear()
    for (const pending of this.#taken.values()) {
      clearTimeout(pending.timer)
      pending.reject(reason)
    }
    this.#taken.clear()
    for (const waiting of this.#pollers.values()) for (const done of [...waiting]) done()
    this.#pollers.clear()
  }

  #has(shipId: string): boolean {
    return (this.#queued.get(shipId)?.length ?? 0) > 0
  }

  #wake(shipId: string): void {
    const waiting = this.#pollers.get(shipId)
    if (waiting === undefined) return
    // One poll takes the calls; the others keep waiting.
    const first = waiting.values().next().value
    if (first !== undefined) first()
  }
}
