import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Repositories, StoredUiSession } from '../../store/index.js'
import { openSession, sealSession, sessionKeyOf } from './session-seal.js'

/** A signed-in dashboard tab's state, as opened from its cookie: the API key it stands for and its CSRF token. */
export interface UiSession {
  /** The session id (the cookie's value); only its hash is stored. */
  id: string
  idHash: string
  csrfToken: string
  /** `Authorization` header value the session is translated to for the public APIs. */
  authorization: string
  apiKeyId: string
  /** The session's monitoring token (the monitoring API takes no API key), when it has one. */
  monitor: { userId: number; tokenId: string; authorization: string } | null
  created: number
  lastSeen: number
}

/**
 * Lifetimes (docs/dashboard.md): a session ends after 30 minutes without a request, 12 hours after
 * sign-in in any case, and on sign out, whichever platform instance on the store it reaches.
 */
const IDLE_MS = 30 * 60 * 1000
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000
const MAX_SESSIONS = 10_000
/**
 * A session's last request is written at most this often: the idle limit is then exact to within
 * this much, and a busy dashboard tab costs one write a minute, not one per request.
 */
const TOUCH_EVERY_MS = 60 * 1000
/** Expired sessions are swept (their monitoring tokens revoked) at most this often, at a sign-in or out. */
const SWEEP_EVERY_MS = 60 * 1000
/** How stale an open live stream's view of its session may get (a sign-out on another instance). */
const STREAM_CHECK_MS = 5000

const COOKIE_NAME = 'understudy_ui'

/** Called with each session that ended (sign-out, expiry, eviction): its monitoring token is revoked. */
type OnEnded = (ended: StoredUiSession) => Promise<void>

/**
 * Dashboard sessions, kept in the store so that every platform instance behind a load balancer
 * sees the same ones: a session signed in through one instance works on the others, and signing
 * out on one ends it on all. The cookie carries an unguessable id; the store keeps its hash and
 * the session's secrets sealed under it (session-seal.ts). Nothing is cached between requests:
 * each one reads its session, so that an end or an expiry decided anywhere counts at once.
 */
export class UiSessions {
  #lastSweep = 0

  constructor(
    private readonly store: Pick<Repositories, 'uiSessions'>,
    private readonly onEnded: OnEnded,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    apiKeyId: string,
    authorization: string,
    monitor: UiSession['monitor'],
  ): Promise<UiSession> {
    await this.sweep()
    const now = this.now()
    const session: UiSession = {
      id: randomBytes(32).toString('base64url'),
      idHash: '',
      csrfToken: randomBytes(32).toString('base64url'),
      authorization,
      apiKeyId,
      monitor,
      created: now,
      lastSeen: now,
    }
    session.idHash = sessionKeyOf(session.id)
    const evicted = await this.store.uiSessions.create(
      {
        idHash: session.idHash,
        apiKeyId,
        userId: monitor?.userId ?? null,
        monitorTokenId: monitor?.tokenId ?? null,
        sealed: sealSession(session.id, {
          authorization,
          csrfToken: session.csrfToken,
          monitorAuthorization: monitor?.authorization ?? null,
        }),
        created: now,
        lastSeen: now,
      },
      MAX_SESSIONS,
    )
    for (const ended of evicted) await this.onEnded(ended)
    return session
  }

  /** The live session of a cookie header, touched; undefined when absent, unknown or expired. */
  async fromCookie(cookieHeader: string | undefined): Promise<UiSession | undefined> {
    const id = cookieValue(cookieHeader, COOKIE_NAME)
    if (id === undefined || id === '') return undefined
    const idHash = sessionKeyOf(id)
    const stored = await this.store.uiSessions.get(idHash)
    if (stored === undefined) return undefined
    const now = this.now()
    if (expired(stored, now)) {
      await this.#remove(idHash)
      return undefined
    }
    const secrets = openSession(id, stored.sealed)
    if (secrets === undefined) return undefined
    if (now - stored.lastSeen >= TOUCH_EVERY_MS) {
      await this.store.uiSessions.touch(idHash, now)
      stored.lastSeen = now
    }
    return {
      id,
      idHash,
      csrfToken: secrets.csrfToken,
      authorization: secrets.authorization,
      apiKeyId: stored.apiKeyId,
      monitor:
        secrets.monitorAuthorization === null ||
        stored.userId === null ||
        stored.monitorTokenId === null
          ? null
          : {
              userId: stored.userId,
              tokenId: stored.monitorTokenId,
              authorization: secrets.monitorAuthorization,
            },
      created: stored.created,
      lastSeen: stored.lastSeen,
    }
  }

  /**
   * A test of whether a session still lives, for a long-lived stream: synchronous (it runs on every
   * poll of the stream), answering from the last look at the store, and looking again at most every
   * few seconds, so that a sign-out on another instance ends the stream within that time.
   */
  liveness(session: UiSession): () => boolean {
    let alive = true
    let checked = this.now()
    let checking = false
    return () => {
      const now = this.now()
      if (now - session.created > ABSOLUTE_MS) alive = false
      if (alive && !checking && now - checked >= STREAM_CHECK_MS) {
        checking = true
        checked = now
        this.store.uiSessions.get(session.idHash).then(
          (stored) => {
            alive = alive && stored !== undefined && !expired(stored, this.now())
            checking = false
          },
          () => {
            checking = false
          },
        )
      }
      return alive
    }
  }

  async end(session: UiSession): Promise<void> {
    await this.#remove(session.idHash)
  }

  /** Removes the expired sessions of every instance (at most every SWEEP_EVERY_MS). */
  async sweep(): Promise<void> {
    const now = this.now()
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return
    this.#lastSweep = now
    for (const ended of await this.store.uiSessions.sweep(now - IDLE_MS, now - ABSOLUTE_MS)) {
      await this.onEnded(ended)
    }
  }

  async #remove(idHash: string): Promise<void> {
    const removed = await this.store.uiSessions.delete(idHash)
    if (removed !== undefined) await this.onEnded(removed)
  }
}

function expired(stored: StoredUiSession, now: number): boolean {
  return now - stored.lastSeen > IDLE_MS || now - stored.created > ABSOLUTE_MS
}

/** Constant-time comparison of the CSRF header with the session's token. */
export function csrfMatches(session: UiSession, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false
  const a = Buffer.from(header)
  const b = Buffer.from(session.csrfToken)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The session cookie: HttpOnly, SameSite=Strict, Path=/ (the dashboard calls /api and /reports). */
export function sessionCookie(session: UiSession | null, secure: boolean): string {
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
  if (session === null) return `${COOKIE_NAME}=; ${attributes}; Max-Age=0`
  return `${COOKIE_NAME}=${session.id}; ${attributes}; Max-Age=${ABSOLUTE_MS / 1000}`
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
