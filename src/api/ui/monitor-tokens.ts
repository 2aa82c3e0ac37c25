import { randomUUID } from 'node:crypto'
import type { Store } from '../../store/index.js'
import { hashSecret } from '../auth.js'
import { issueToken, newSecret, SCOPES } from '../monitor/index.js'
import { ABSOLUTE_MS, type UiSession } from './sessions.js'

/** The application the dashboard's tokens belong to, one per user (it shows in that user's GET /apps). */
const DASHBOARD_APP_NAME = 'Understudy dashboard'

/**
 * The dashboard's own OAuth tokens for the monitoring API, which takes no API key: each signed-in
 * session gets one for the key's user, with every scope (the user's workspace roles still decide,
 * as for any token), kept sealed in the session (the browser never sees it), and revoked when the
 * session ends, on whichever platform instance: at sign-out, when a request or a sweep finds it
 * expired, or when it is evicted. A token older than the longest session (its session was lost
 * some other way) is revoked at the user's next sign-in.
 */
export class SessionTokens {
  constructor(
    private readonly store: Store,
    private readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new token for a session of `userId`. */
  async issue(userId: number): Promise<NonNullable<UiSession['monitor']>> {
    const clientId = await this.#appOf(userId)
    const outlived = this.now() - ABSOLUTE_MS
    for (const token of await this.store.oauth.listTokens(userId)) {
      if (token.clientId === clientId && token.created < outlived && token.revoked === null) {
        await this.store.oauth.revokeToken(userId, token.id)
      }
    }
    const { id, accessToken } = await issueToken(this.store, clientId, userId, SCOPES)
    return { userId, tokenId: id, authorization: `Bearer ${accessToken}` }
  }

  /** Revokes the token of a session that ended. */
  async revoke(userId: number | null, tokenId: string | null): Promise<void> {
    if (userId === null || tokenId === null) return
    await this.store.oauth.revokeToken(userId, tokenId)
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
