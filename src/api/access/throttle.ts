import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Repositories } from '../../store/index.js'
import { codes, UnderstudyError } from '../../errors/index.js'

/** A 429 ERR_API_RATE_LIMITED that knows its `Retry-After` (seconds). */
export class ThrottledError extends UnderstudyError {
  constructor(readonly retryAfter: number) {
    super('ERR_API_RATE_LIMITED', codes.ERR_API_RATE_LIMITED.message)
  }
}

interface ThrottleLimits {
  /** Wrong secrets one client address may send in a window, whatever the key ids. */
  perAddress: number
  /** Wrong secrets one client address may send for one key id in a window. */
  perKeyAndAddress: number
  /** The window, in milliseconds; a blocked address waits until its window ends. */
  windowMs: number
}

const DEFAULT_THROTTLE: ThrottleLimits = { perAddress: 50, perKeyAndAddress: 10, windowMs: 60_000 }

/** Counters kept at most; past it the oldest windows are dropped (memory stays bounded under a flood). */
const MAX_COUNTERS = 100_000
/**
 * Characters of a secret id a counter is named by: ids are at most 128 characters, so a longer one
 * (a form field can be megabytes) exists nowhere and only needs to be counted, not hashed whole.
 */
const MAX_ID_LENGTH = 200

/**
 * The address a throttle counts: the TCP peer of the request. `X-Forwarded-For` is not read: any
 * client can write it, so trusting it would let an attacker pick a fresh address for every guess
 * (or impersonate the owner's); the platform has no trusted-proxy setting. An IPv4 peer reached
 * over a dual-stack socket (`::ffff:10.0.0.1`) counts as its IPv4 address.
 */
export function peerAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown'
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}

/** How often the store's ended windows are swept, at most (on a failure, never on a success). */
const SWEEP_EVERY_MS = 10_000

/**
 * The one throttle of wrong secrets (docs/api.md#authentication-and-throttling):
 * the platform keeps a single instance for API keys over HTTP Basic, the dashboard sign-in, the
 * OAuth consent form and OAuth client secrets. Failures are counted per client address and per
 * (secret id, client address) in fixed windows. Past either limit, that address gets 429 with
 * `Retry-After` for the rest of the window, before any secret is checked. A correct secret from
 * another address is never affected: nothing is counted per id alone, so an attacker cannot lock
 * the owner out.
 *
 * With a store, the counters live there, so that guesses spread over several platform instances
 * behind one load balancer add up as if one instance got them all. Only failures write (one
 * upsert per counter); `checkShared` reads the store's counts before a secret is verified (scrypt,
 * tens of ms, dwarfs the read), and `check` answers from what this instance last learned, which is
 * all a request whose secret was verified recently needs.
 */
export class FailureThrottle {
  private readonly counters = new Map<string, { count: number; until: number }>()
  #lastSweep = 0

  constructor(
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
    private readonly store?: Pick<Repositories, 'authFailures'>,
  ) {}

  /** Throws ThrottledError when this address (or this key from it), as far as this instance knows, is over its budget. */
  check(address: string, keyId: string | null): void {
    const wait = Math.max(
      this.blockedFor(addressCounter(address), this.limits.perAddress),
      keyId === null
        ? 0
        : this.blockedFor(keyCounter(keyId, address), this.limits.perKeyAndAddress),
    )
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000))
  }

  /** `check`, after reading the counts every instance added up in the store. */
  async checkShared(address: string, keyId: string | null): Promise<void> {
    if (this.store !== undefined) {
      const names = countersOf(address, keyId)
      this.learn(await this.store.authFailures.counts(names, this.now()))
    }
    this.check(address, keyId)
  }

  /** Counts one wrong credential. */
  async fail(address: string, keyId: string | null): Promise<void> {
    const names = countersOf(address, keyId)
    for (const name of names) this.bump(name)
    if (this.store === undefined) return
    const now = this.now()
    this.learn(await this.store.authFailures.bump(names, now, this.limits.windowMs))
    if (now - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = now
      await this.store.authFailures.sweep(now, MAX_COUNTERS)
    }
  }

  /** Takes the store's counts (every instance's failures) as this instance's view. */
  private learn(counts: ReadonlyMap<string, { count: number; expires: number }>): void {
    for (const [name, { count, expires }] of counts) {
      if (!this.counters.has(name) && this.counters.size >= MAX_COUNTERS) this.prune(this.now())
      this.counters.set(name, { count, until: expires })
    }
  }

  private blockedFor(key: string, limit: number): number {
    const counter = this.counters.get(key)
    const now = this.now()
    if (counter === undefined || counter.until <= now) return 0
    return counter.count >= limit ? counter.until - now : 0
  }

  private bump(key: string): void {
    const now = this.now()
    const counter = this.counters.get(key)
    if (counter === undefined || counter.until <= now) {
      if (this.counters.size >= MAX_COUNTERS) this.prune(now)
      this.counters.set(key, { count: 1, until: now + this.limits.windowMs })
    } else {
      counter.count++
    }
  }

  private prune(now: number): void {
    for (const [key, counter] of this.counters) if (counter.until <= now) this.counters.delete(key)
    // Still full: drop the oldest insertions (Map keeps insertion order).
    for (const key of this.counters.keys()) {
      if (this.counters.size < MAX_COUNTERS / 2) break
      this.counters.delete(key)
    }
  }
}

function addressCounter(address: string): string {
  return `a:${address}`
}

/**
 * A key id is whatever a client sent (any length, any character, NUL included, which PostgreSQL
 * text cannot hold): its counter is named by a digest of the id and the address.
 */
function keyCounter(keyId: string, address: string): string {
  return `k:${createHash('sha256').update(keyId.slice(0, MAX_ID_LENGTH)).update('\u0000').update(address).digest('base64url')}`
}

function countersOf(address: string, keyId: string | null): string[] {
  return keyId === null
    ? [addressCounter(address)]
    : [addressCounter(address), keyCounter(keyId, address)]
}
