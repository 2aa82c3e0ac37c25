import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { UnderstudyError } from '../errors/index.js'
import type { Store } from '../store/index.js'
import type { Principal } from './principal.js'
import { FailureThrottle } from './access/throttle.js'

const scrypt = promisify(scryptCallback) as (
  secret: string,
  salt: Buffer,
  length: number,
) => Promise<Buffer>

/** scrypt of an API key secret, stored as `salt:hash` in hex (the secret itself is never stored). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(secret, salt, 32)
  return `${salt.toString('hex')}:${hash.toString('hex')}`
}

/** Constant-time check of a secret against its stored hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
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
 * The three refusals a client can act on differently: no credentials or a header that
 * is not Basic at all, a Bearer token sent to a Basic API, a Basic header that does not decode to
 * `id:secret`, and a key id and secret that do not authenticate (unknown id, wrong secret, revoked
 * key or disabled user alike, so that a refusal never tells which key ids exist).
 */
const UNAUTHORIZED = {
  missing:
    'Credentials are required: HTTP Basic with an API key, Authorization: Basic base64(<key id>:<secret>).',
  bearer:
    'This API takes HTTP Basic with an API key (Authorization: Basic base64(<key id>:<secret>)), not a Bearer token.',
  malformed:
    'The Authorization header is not valid HTTP Basic: expected Basic base64(<key id>:<secret>).',
  wrongKey: 'The API key id and secret do not match an active API key.',
} as const

function unauthorized(message: string): UnderstudyError {
  return new UnderstudyError('ERR_API_UNAUTHORIZED', message)
}

/**
 * HTTP Basic authentication with an API key (`<key id>:<secret>`, the administration specification,
 * docs/api.md#authentication-and-throttling). Verified secrets are cached by key id and a digest of
 * the secret; the key, its user and the user's account memberships are read on every request, so a
 * revoked key, a disabled user or a removed membership is refused at once.
 *
 * An unknown key id costs the same scrypt as a known id with a wrong secret (a hash of a random
 * secret, made when the authenticator is, stands in), so key ids cannot be told apart by timing.
 * Every secret check goes through its FailureThrottle, counted by the caller's peer address and
 * by (id, address): the platform makes one Authenticator and hands it to every surface that
 * checks a secret (APIs, dashboard sign-in, OAuth consent and token endpoint), so they share one
 * set of counters.
 */
export class Authenticator {
  private readonly verified = new Map<string, { digest: string; until: number }>()
  private readonly decoy: Promise<string>

  constructor(
    private readonly store: Store,
    // Counted in the store: every instance on it (and every Authenticator of one) sees the same.
    private readonly throttle: FailureThrottle = new FailureThrottle(undefined, undefined, store),
  ) {
    this.decoy = hashSecret(randomBytes(24).toString('base64url'))
  }

  /**
   * The caller of an `Authorization` header sent from `address` (peerAddress of the request);
   * throws 401 ERR_API_UNAUTHORIZED (one of UNAUTHORIZED's messages), or 429 when throttled.
   */
  async authenticate(header: string | undefined, address: string): Promise<Principal> {
    const credentials = parseBasic(header)
    if (typeof credentials === 'string') throw unauthorized(credentials)
    this.throttle.check(address, credentials.id)
    const key = await this.store.apiKeys.get(credentials.id)
    const digest = createHash('sha256').update(credentials.secret).digest('hex')
    const cached = key === undefined ? undefined : this.verified.get(key.id)
    const now = Date.now()
    if (
      key === undefined ||
      cached === undefined ||
      cached.digest !== digest ||
      cached.until < now
    ) {
      await this.throttle.checkShared(address, credentials.id)
      const ok = await verifySecret(credentials.secret, key?.secretHash ?? (await this.decoy))
      if (!ok || key === undefined) {
        await this.throttle.fail(address, credentials.id)
        throw unauthorized(UNAUTHORIZED.wrongKey)
      }
      if (this.verified.size >= CACHE_SIZE) this.verified.clear()
      this.verified.set(key.id, { digest, until: now + CACHE_MS })
    }
    if (key.revoked !== null) throw unauthorized(UNAUTHORIZED.wrongKey)
    const user = await this.store.users.get(key.userId)
    if (user === undefined || !user.enabled) throw unauthorized(UNAUTHORIZED.wrongKey)
    const memberships = (await this.store.tenancy.membershipsOf(user.id)).filter((m) => m.enabled)
    // The home account when the user is still in it, else its first account.
    const accountId =
      memberships.find((m) => m.accountId === user.accountId)?.accountId ??
      memberships[0]?.accountId
    const account = accountId === undefined ? undefined : await this.store.accounts.get(accountId)
    if (account === undefined) throw unauthorized(UNAUTHORIZED.wrongKey)
    return { user, account, apiKeyId: key.id, memberships }
  }

  /**
   * Checks a secret other than an API key's (an OAuth client secret) under the same throttle and
   * at the same cost whether `stored` exists or not. `id` names the secret within its kind
   * (`client:<client id>`), so that its counters never mix with an API key's of the same id.
   * Throws 429 ThrottledError when this address is over its budget.
   */
  async verifyThrottled(
    address: string,
    id: string,
    secret: string,
    stored: string | undefined,
  ): Promise<boolean> {
    await this.throttle.checkShared(address, id)
    const ok = (await verifySecret(secret, stored ?? (await this.decoy))) && stored !== undefined
    if (!ok) await this.throttle.fail(address, id)
    return ok
  }
}

/** `{id, secret}` of a Basic header, or the UNAUTHORIZED message saying why there is none. */
function parseBasic(header: string | undefined): { id: string; secret: string } | string {
  if (header === undefined || header.trim() === '') return UNAUTHORIZED.missing
  if (/^bearer(\s|$)/i.test(header)) return UNAUTHORIZED.bearer
  if (!/^basic(\s|$)/i.test(header)) return UNAUTHORIZED.missing
  const encoded = header.replace(/^basic\s*/i, '').trim()
  if (encoded === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return UNAUTHORIZED.malformed
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return UNAUTHORIZED.malformed
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}
