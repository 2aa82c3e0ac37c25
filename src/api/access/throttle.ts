import type { IncomingMessage } from 'node:http'
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
 * Characters of a secret id kept in a counter's name: ids are at most 128 characters, so a longer
 * one (a form field can be megabytes) exists nowhere and only needs to be counted, not stored whole.
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

/**
 * The one throttle of wrong secrets (docs/api.md#authentication-and-throttling):
 * the platform keeps a single instance for API keys over HTTP Basic, the dashboard sign-in, the
 * OAuth consent form and OAuth client secrets. Failures are counted per client address and per
 * (secret id, client address) in fixed windows. Past either limit, that address gets 429 with
 * `Retry-After` for the rest of the window, before any secret is checked. A correct secret from
 * another address is never affected: nothing is counted per id alone, so an attacker cannot lock
 * the owner out.
 */
export class FailureThrottle {
  private readonly counters = new Map<string, { count: number; until: number }>()

  constructor(
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws ThrottledError when this address (or this key from it) is over its budget. */
  check(address: string, keyId: string | null): void {
    const wait = Math.max(
      this.blockedFor(`a:${address}`, this.limits.perAddress),
      keyId === null
        ? 0
        : this.blockedFor(keyCounter(keyId, address), this.limits.perKeyAndAddress),
    )
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000))
  }

  /** Counts one wrong credential. */
  fail(address: string, keyId: string | null): void {
    this.bump(`a:${address}`)
    if (keyId !== null) this.bump(keyCounter(keyId, address))
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

function keyCounter(keyId: string, address: string): string {
  return `k:${keyId.slice(0, MAX_ID_LENGTH)}\u0000${address}`
}
