import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { createError } from '../errors/index.js'
import type { Store } from '../store/index.js'
import type { Principal } from './http/types.js'
import { FailureThrottle } from './access/throttle.js'

const scrypt = promisify(scryptCallback) as (secret: string, salt: Buffer, length: number) => Promise<Buffer>

/** scrypt of an API key secret, stored as `salt:hash` in hex (the secret itself is never stored). */
export async function hashSecret (secret: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(secret, salt, 32)
  return `${salt.toString('hex')}:${hash.toString('hex')}`
}

/** Constant-time check of a secret against its stored hash. */
export async function verifySecret (secret: string, stored: string): Promise<boolean> {
  const [saltHex, hashHex] = stored.split(':')
  if (saltHex === undefined || hashHex === undefined) return false
  const expected = Buffer.from(hashHex, 'hex')
  const actual = await scrypt(secret, Buffer.from(saltHex, 'hex'), expected.length)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** How long a verified key is remembered, so that scrypt (tens of ms, by design) runs rarely. */
const CACHE_MS = 5 * 60 * 1000
const CACHE_SIZE = 1000

/**
 * HTTP Basic authentication with an API key (`<key id>:<secret>`, spec/001 "Authentication").
 * Verified secrets are cached by key id and a digest of the secret; the key, its user and the
 * user's account memberships are read on every request, so a revoked key, a disabled user or a
 * removed membership is refused at once (issue 10).
 *
 * An unknown key id costs the same scrypt as a known id with a wrong secret (a hash of a random
 * secret stands in), so key ids cannot be told apart by timing; wrong credentials are throttled
 * per client address and per (key id, address) (src/api/access/throttle.ts).
 */
export class Authenticator {
  private readonly verified = new Map<string, { digest: string; until: number }>()
  private decoy: Promise<string> | null = null

  constructor (private readonly store: Store, private readonly throttle: FailureThrottle = new FailureThrottle()) {}

  /** The caller of an `Authorization` header; throws 401 ERR_API_UNAUTHORIZED, or 429 when throttled. */
  async authenticate (header: string | undefined, address = 'unknown'): Promise<Principal> {
    const credentials = parseBasic(header)
    if (credentials === null) throw createError('ERR_API_UNAUTHORIZED')
    this.throttle.check(address, credentials.id)
    const key = await this.store.apiKeys.get(credentials.id)
    const digest = createHash('sha256').update(credentials.secret).digest('hex')
    const cached = key === undefined ? undefined : this.verified.get(key.id)
    const now = Date.now()
    if (key === undefined || cached === undefined || cached.digest !== digest || cached.until < now) {
      this.decoy ??= hashSecret(randomBytes(24).toString('base64url'))
      const ok = await verifySecret(credentials.secret, key?.secretHash ?? await this.decoy)
      if (!ok || key === undefined) {
        this.throttle.fail(address, credentials.id)
        throw createError('ERR_API_UNAUTHORIZED')
      }
      if (this.verified.size >= CACHE_SIZE) this.verified.clear()
      this.verified.set(key.id, { digest, until: now + CACHE_MS })
    }
    if (key.revoked !== null) throw createError('ERR_API_UNAUTHORIZED')
    const user = await this.store.users.get(key.userId)
    if (user === undefined || !user.enabled) throw createError('ERR_API_UNAUTHORIZED')
    const memberships = (await this.store.tenancy.membershipsOf(user.id)).filter((m) => m.enabled)
    // The home account when the user is still in it, else its first account.
    const accountId = memberships.find((m) => m.accountId === user.accountId)?.accountId ?? memberships[0]?.accountId
    const account = accountId === undefined ? undefined : await this.store.accounts.get(accountId)
    if (account === undefined) throw createError('ERR_API_UNAUTHORIZED')
    return { user, account, apiKeyId: key.id, memberships }
  }
}
function parseBasic (header: string | undefined): { id: string; secret: string } | null {
  if (header === undefined || !/^basic\s+/i.test(header)) return null
  const decoded = Buffer.from(header.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}
