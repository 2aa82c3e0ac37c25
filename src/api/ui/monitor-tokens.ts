import { randomUUID } from 'node:crypto'
import type { Store } from '../../store/index.js'
import { hashSecret } from '../auth.js'
import { issueToken, newSecret, SCOPES } from '../monitor/index.js'
import { ABSOLUTE_MS, type UiSession } from './sessions.js'

/** The application the dashboard's tokens belong to, one per user (it shows in that user's GET /apps). */
const DASHBOARD_APP_NAME = 'Understudy dashboard'

interface HeldToken {
  tokenId: string
  userId: number
  authorization: string
}

/**
 * The dashboard's own OAuth tokens for the monitoring API, which takes no API key: each signed-in
 * session gets one for the key's user, with every scope (the user's workspace roles still decide,
 * as for any token), and it is revoked when the session ends. Only the platform holds it: the
 * bridge puts it on the session's monitoring requests, the browser never sees it. Sessions live in
 * memory: the token of a session that expired here is revoked at the next sign-in or sign-out; one
 * older than the longest session (a platform restarted, or another instance's) at the user's next
 * sign-in. Its secret was never written anywhere, so such a token was unusable anyway.
 */
export class SessionTokens {
  readonly #held = new Map<UiSession, HeldToken>()

  constructor(
    private readonly store: Store,
    private readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Issues the session's token; `isAlive` tells which other sessions still hold theirs. */
  async issue(
    session: UiSession,
    userId: number,
    isAlive: (session: UiSession) => boolean,
  ): Promise<void> {
    await this.revokeEnded(isAlive)
    const clientId = await this.#appOf(userId)
    // Only tokens no session can hold any more: platforms sharing the store keep their own sessions.
    const outlived = this.now() - ABSOLUTE_MS
    for (const token of await this.store.oauth.listTokens(userId)) {
      if (token.clientId === clientId && token.created < outlived) {
        await this.store.oauth.revokeToken(userId, token.id)
      }
    }
    const { id, accessToken } = await issueToken(this.store, clientId, userId, SCOPES)
    this.#held.set(session, { tokenId: id, userId, authorization: `Bearer ${accessToken}` })
  }

  /** The `Authorization` of the session's monitoring requests; undefined when it holds no token. */
  authorizationOf(session: UiSession): string | undefined {
    return this.#held.get(session)?.authorization
  }

  /** Revokes the token of a session that ends (sign-out). */
  async revoke(session: UiSession): Promise<void> {
    const held = this.#held.get(session)
    if (held === undefined) return
    this.#held.delete(session)
    await this.store.oauth.revokeToken(held.userId, held.tokenId)
  }

  /** Revokes the tokens of sessions that expired since. */
  async revokeEnded(isAlive: (session: UiSession) => boolean): Promise<void> {
    for (const session of [...this.#held.keys()]) {
      if (!isAlive(session)) await this.revoke(session)
    }
  }

  async #appOf(userId: number): Promise<string> {
    const existing = (await this.store.oauth.listApps(userId)).find(
      (a) => a.name === DASHBOARD_APP_NAME,
    )
    if (existing !== undefined) return existing.clientId
    const app = await this.store.oauth.createApp({
      clientId: randomUUID(),
      userId,
      name: DASHBOARD_APP_NAME,
      websiteUrl: `${this.baseUrl}/ui/`,
      callbackUrl: `${this.baseUrl}/ui/`,
      // The dashboard never uses the code flow: the secret is made and forgotten.
      secretHash: await hashSecret(newSecret()),
    })
    return app.clientId
  }
}
