import { randomBytes, timingSafeEqual } from 'node:crypto'

/** A signed-in dashboard tab's server-side state: the API key it stands for and its CSRF token. */
export interface UiSession {
  id: string
  csrfToken: string
  /** `Authorization` header value the session is translated to for the public APIs. */
  authorization: string
  apiKeyId: string
  created: number
  lastSeen: number
}

/**
 * Lifetimes (docs/dashboard.md): a session ends after 30 minutes without a request, 12 hours after
 * sign-in in any case, on sign out, and when the platform restarts (sessions live in memory only:
 * nothing about them is written to the store).
 */
const IDLE_MS = 30 * 60 * 1000
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000
const MAX_SESSIONS = 10_000

const COOKIE_NAME = 'understudy_ui'

/** In-memory dashboard sessions, by an unguessable id that only the HttpOnly cookie carries. */
export class UiSessions {
  private readonly sessions = new Map<string, UiSession>()

  constructor(private readonly now: () => number = Date.now) {}

  create(apiKeyId: string, authorization: string): UiSession {
    if (this.sessions.size >= MAX_SESSIONS) this.sweep()
    if (this.sessions.size >= MAX_SESSIONS) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.sessions.keys().next().value
      if (oldest !== undefined) this.sessions.delete(oldest)
    }
    const now = this.now()
    const session: UiSession = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(32).toString('base64url'),
      authorization,
      apiKeyId,
      created: now,
      lastSeen: now,
    }
    this.sessions.set(session.id, session)
    return session
  }

  /** The live session of a cookie header, touched; undefined when absent, unknown or expired. */
  fromCookie(cookieHeader: string | undefined): UiSession | undefined {
    const id = cookieValue(cookieHeader, COOKIE_NAME)
    if (id === undefined) return undefined
    const session = this.sessions.get(id)
    if (session === undefined) return undefined
    const now = this.now()
    if (now - session.lastSeen > IDLE_MS || now - session.created > ABSOLUTE_MS) {
      this.sessions.delete(id)
      return undefined
    }
    session.lastSeen = now
    return session
  }

  /** Whether a session is still alive (not ended, not expired), without touching it. */
  isAlive(session: UiSession): boolean {
    const now = this.now()
    return (
      this.sessions.get(session.id) === session &&
      now - session.lastSeen <= IDLE_MS &&
      now - session.created <= ABSOLUTE_MS
    )
  }

  end(session: UiSession): void {
    this.sessions.delete(session.id)
  }

  /** Ends every session of an API key (for example when it stops authenticating). */
  endAllOf(apiKeyId: string): void {
    for (const [id, s] of this.sessions) if (s.apiKeyId === apiKeyId) this.sessions.delete(id)
  }

  private sweep(): void {
    const now = this.now()
    for (const [id, s] of this.sessions) {
      if (now - s.lastSeen > IDLE_MS || now - s.created > ABSOLUTE_MS) this.sessions.delete(id)
    }
  }
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
