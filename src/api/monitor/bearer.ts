import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { Store } from '../../store/index.js'
import { Authenticator } from '../auth.js'
import { visibleWorkspaceRoles } from '../access/authorize.js'
import { SCOPES, type MonitorPrincipal } from './types.js'

/** SHA-256 of a token or code, hex: what the store keeps (32 random bytes need no slow hash). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A new opaque secret: 32 random bytes, base64url (tokens, codes, client secrets). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Issues an access token for a user through an application; only its hash is stored.
 *
 * @example
 * const { accessToken } = await issueToken(store, app.clientId, user.id, ['api:read'])
 */
export async function issueToken(
  store: Store,
  clientId: string,
  userId: number,
  scopes: readonly string[],
): Promise<{ id: string; accessToken: string }> {
  const accessToken = newSecret()
  const id = randomUUID()
  await store.oauth.createToken({
    id,
    tokenHash: hashToken(accessToken),
    clientId,
    userId,
    scopes: [...scopes],
  })
  return { id, accessToken }
}

/** What a 401 says to a caller that sent a platform API key where a token is needed. */
const BASIC_REFUSED = {
  path: '/authorization',
  message:
    'the monitoring API takes an OAuth 2.0 access token (Authorization: Bearer), not a platform API key: POST /apps with the key answers a token',
}

/**
 * `Authorization: Bearer <token>` (the monitoring specification), and HTTP Basic with a platform
 * API key where a route allows it (creating an OAuth application: POST /apps). Revoked tokens,
 * tokens of a disabled user, unknown tokens and API keys elsewhere all answer 401.
 */
export class MonitorAuthenticator {
  readonly #basic: Authenticator

  /** `basic`: the platform's one Authenticator, so that its throttle counts every wrong secret. */
  constructor(
    private readonly store: Store,
    basic: Authenticator = new Authenticator(store),
  ) {
    this.#basic = basic
  }

  isBearer(header: string | undefined): boolean {
    return header !== undefined && /^bearer\s+/i.test(header)
  }

  async bearer(header: string | undefined): Promise<MonitorPrincipal> {
    if (header !== undefined && /^basic\s/i.test(header)) {
      throw createError('ERR_API_UNAUTHORIZED', [], { details: [BASIC_REFUSED] })
    }
    if (!this.isBearer(header)) throw createError('ERR_API_UNAUTHORIZED')
    const token = (header as string).replace(/^bearer\s+/i, '').trim()
    if (token === '' || token.length > 512) throw createError('ERR_API_UNAUTHORIZED')
    const stored = await this.store.oauth.getTokenByHash(hashToken(token))
    if (stored === undefined || stored.revoked !== null) throw createError('ERR_API_UNAUTHORIZED')
    const user = await this.store.users.get(stored.userId)
    if (user === undefined || !user.enabled) throw createError('ERR_API_UNAUTHORIZED')
    const account = await this.store.accounts.get(user.accountId)
    if (account === undefined) throw createError('ERR_API_UNAUTHORIZED')
    const memberships = (await this.store.tenancy.membershipsOf(user.id)).filter((m) => m.enabled)
    const workspaceRoles = await visibleWorkspaceRoles(this.store, user.id, memberships)
    return { user, account, scopes: new Set(stored.scopes), tokenId: stored.id, workspaceRoles }
  }

  /** A platform API key sent from `address` (peerAddress of the request), throttled as everywhere. */
  async basic(header: string | undefined, address: string): Promise<MonitorPrincipal> {
    const { user, account, memberships } = await this.#basic.authenticate(header, address)
    const workspaceRoles = await visibleWorkspaceRoles(this.store, user.id, memberships)
    return { user, account, scopes: new Set(SCOPES), tokenId: null, workspaceRoles }
  }
}
