import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../../log/index.js'
import type { Store } from '../../store/index.js'
import {
  defaultUiDir,
  readSmallJson,
  SECURITY_HEADERS,
  splitUrl,
  StaticAssets,
  writeJson,
} from '../../httpkit/index.js'
import { peerAddress, ThrottledError } from '../access/throttle.js'
import { Authenticator } from '../auth.js'
import { InspectionStreams } from './inspection-stream.js'
import { SessionTokens } from './monitor-tokens.js'
import { csrfMatches, sessionCookie, UiSessions, type UiSession } from './sessions.js'

interface UiFrontOptions {
  store: Store
  log: Logger
  /** The platform's own URL: the live-inspection poller calls the public analytics API there. */
  baseUrl: string
  /** Where the built dashboard lives (default: dist/ui of this installation). */
  uiDir?: string
  /** The platform's one checker of secrets: sign-in counts against the APIs' throttle (default: its own). */
  authenticator?: Authenticator
  /** Whether a request is the monitoring API's: those take the session's OAuth token, not its API key. */
  isMonitoringRequest?: (req: IncomingMessage) => boolean
}

/** A request listener in front of the API's, plus what must be closed with the platform. */
interface UiFront {
  handle: (req: IncomingMessage, res: ServerResponse) => void
  close: () => void
  sessions: UiSessions
  streams: InspectionStreams
}

/** The header every dashboard fetch carries: a custom header, so no other site can send it. */
const UI_HEADER = 'x-requested-with'
const SIGN_IN_LIMIT = 4096
const STREAM_PATH = /^\/ui\/events\/workspaces\/(\d{1,15})\/service-mocks\/(\d{1,15})\/inspection$/

/**
 * The dashboard's server side (docs/dashboard.md): static files under /ui/, sign-in to a session
 * cookie, and the translation of that cookie into the API's own Basic authentication for
 * /api and /reports (into the session's own OAuth token for the monitoring API), with a CSRF token
 * required on every state-changing request. Everything else goes to the API handler untouched;
 * apart from its sessions (kept in the store, see sessions.ts) the dashboard reaches the store only
 * through the public APIs.
 */
export function createUiFront(
  options: UiFrontOptions,
  api: (req: IncomingMessage, res: ServerResponse) => void,
): UiFront {
  const assets = new StaticAssets(options.uiDir ?? defaultUiDir())
  const streams = new InspectionStreams(options.baseUrl, options.log)
  const authenticator = options.authenticator ?? new Authenticator(options.store)
  const monitorTokens = new SessionTokens(options.store, options.baseUrl)
  // A session that ends anywhere (sign-out, expiry, eviction) takes its monitoring token with it.
  const sessions = new UiSessions(options.store, async (ended) => {
    await monitorTokens.revoke(ended.userId, ended.monitorTokenId)
  })
  const isMonitoringRequest = options.isMonitoringRequest ?? (() => false)
  const secure = options.baseUrl.startsWith('https:')

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const { path } = splitUrl(req.url)
    if (path === '/ui') {
      req.resume()
      res.writeHead(302, { location: '/ui/' })
      res.end()
      return
    }
    // Browsers and tools ask for /favicon.ico of any page they show (an API answer opened in a
    // tab): the dashboard's icon rather than a 404.
    if (path === '/favicon.ico' && (req.method === 'GET' || req.method === 'HEAD')) {
      req.resume()
      res.writeHead(301, { location: '/ui/favicon.svg', 'cache-control': 'max-age=86400' })
      res.end()
      return
    }
    if (path.startsWith('/ui/')) {
      uiRequest(req, res, path).catch((err: unknown) => {
        options.log.error({ err, path }, 'dashboard request failed')
        if (!res.headersSent) {
          json(res, 500, {
            error: {
              code: 'ERR_INTERNAL',
              message: 'The dashboard request failed; see the platform log.',
            },
          })
        } else res.end()
      })
      return
    }
    if (req.headers[UI_HEADER] !== undefined) {
      bridged(req, res).catch((err: unknown) => {
        options.log.error({ err, path }, 'dashboard request failed')
        if (!res.headersSent) refuse(req, res, 'The session could not be checked: sign in again.')
      })
      return
    }
    api(req, res)
  }

  /** A dashboard call: its session's credentials put on it (bridge), then the API's answer. */
  async function bridged(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const outcome = await bridge(req, res)
    if (typeof outcome === 'string') return refuse(req, res, outcome)
    if (outcome !== null) {
      // The session's token stands in for its API key, which the other APIs check on every
      // call: a key revoked (or a user disabled) since sign-in must end the monitoring access too.
      try {
        await authenticator.authenticate(outcome.authorization, peerAddress(req))
      } catch {
        await sessions.end(outcome)
        return refuse(req, res, 'The API key of this session no longer signs in: sign in again.')
      }
    }
    api(req, res)
  }

  function refuse(req: IncomingMessage, res: ServerResponse, message: string): void {
    req.resume()
    json(res, 401, {
      apiVersion: 1,
      error: { code: 'ERR_API_UNAUTHORIZED', message },
      result: null,
    })
  }

  /**
   * A dashboard call to /api or /reports: the session cookie becomes the API's `Authorization`,
   * after the CSRF check for state-changing methods. The `WWW-Authenticate` challenge of a 401 is
   * dropped so that the browser shows the sign-in page instead of its own password dialog.
   * Answers a refusal, null, or the session when its monitoring token was put on the request (its
   * API key is then checked before the call goes on).
   */
  async function bridge(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<string | UiSession | null> {
    const writeHead = res.writeHead.bind(res)
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest[rest.length - 1]
      if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
        delete (headers as Record<string, unknown>)['www-authenticate']
      }
      res.removeHeader('www-authenticate')
      return (writeHead as (...a: unknown[]) => ServerResponse)(status, ...rest)
    }) as typeof res.writeHead
    if (req.headers.authorization !== undefined) return null
    const session = await sessions.fromCookie(req.headers.cookie)
    if (session === undefined) return null // the API answers 401: the dashboard goes to sign-in
    // Every method, reads included: browsers send cookies to every port of a host, so the cookie
    // may reach a mock service on the same host (and its inspection); alone it must authorize nothing.
    if (!csrfMatches(session, req.headers['x-csrf-token'])) {
      return 'The CSRF token is missing or wrong: sign in again.'
    }
    // The monitoring API takes OAuth tokens only: the session's own token, revoked at sign-out.
    const token = isMonitoringRequest(req) ? session.monitor?.authorization : undefined
    req.headers.authorization = token ?? session.authorization
    return token === undefined ? null : session
  }

  async function uiRequest(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET'
    if (path === '/ui/session') {
      if (method === 'GET') return currentSession(req, res)
      if (method === 'POST') return signIn(req, res)
      if (method === 'DELETE') return signOut(req, res)
      req.resume()
      return json(
        res,
        405,
        {
          error: {
            code: 'ERR_API_METHOD_NOT_ALLOWED',
            message: `${method} is not allowed on /ui/session`,
          },
        },
        { allow: 'GET, POST, DELETE' },
      )
    }
    const stream = STREAM_PATH.exec(path)
    if (stream !== null && method === 'GET') {
      const session = await sessions.fromCookie(req.headers.cookie)
      // EventSource cannot send headers: the token comes in the query (the platform logs no URLs).
      const token = splitUrl(req.url).query.get('token') ?? undefined
      if (session === undefined || !csrfMatches(session, token)) {
        return json(res, 401, {
          error: { code: 'ERR_API_UNAUTHORIZED', message: 'Sign in again: the session has ended.' },
        })
      }
      // The stream ends with the session (sign out, expiry): reconnecting then answers 401 above.
      streams.subscribe(
        res,
        session.authorization,
        session.apiKeyId,
        Number(stream[1]),
        Number(stream[2]),
        sessions.liveness(session),
      )
      return
    }
    req.resume()
    if (method !== 'GET' && method !== 'HEAD') {
      return json(
        res,
        405,
        {
          error: {
            code: 'ERR_API_METHOD_NOT_ALLOWED',
            message: `${method} is not allowed on ${path}`,
          },
        },
        { allow: 'GET, HEAD' },
      )
    }
    assets.serve(
      req,
      res,
      path.slice('/ui'.length) === '/' ? '/index.html' : path.slice('/ui'.length),
    )
  }

  async function currentSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume()
    const session = await sessions.fromCookie(req.headers.cookie)
    // The token is given once, at sign-in: a cookie alone cannot fetch it.
    if (session === undefined || !csrfMatches(session, req.headers['x-csrf-token'])) {
      return json(res, 401, { error: { code: 'ERR_API_UNAUTHORIZED', message: 'Not signed in.' } })
    }
    return json(res, 200, { result: { csrfToken: session.csrfToken, apiKeyId: session.apiKeyId } })
  }

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A custom header cannot be sent cross-site without CORS, which the platform never grants.
    if (req.headers[UI_HEADER] === undefined) {
      req.resume()
      return json(res, 403, {
        error: { code: 'ERR_API_FORBIDDEN', message: `Sign-in requires the ${UI_HEADER} header.` },
      })
    }
    const input = await readSmallJson(req, SIGN_IN_LIMIT)
    const keyId = typeof input?.['keyId'] === 'string' ? input['keyId'].trim() : ''
    const secret = typeof input?.['secret'] === 'string' ? input['secret'] : ''
    const details = [
      ...(keyId === '' ? [{ path: '/keyId', message: 'is required' }] : []),
      ...(secret === '' ? [{ path: '/secret', message: 'is required' }] : []),
    ]
    if (input === null || details.length > 0) {
      return json(res, 400, {
        error: {
          code: 'ERR_API_VALIDATION',
          message: 'The API key id and secret are required.',
          details,
        },
      })
    }
    const authorization = `Basic ${Buffer.from(`${keyId}:${secret}`).toString('base64')}`
    let userId: number
    try {
      userId = (await authenticator.authenticate(authorization, peerAddress(req))).user.id
    } catch (err) {
      if (err instanceof ThrottledError) {
        return json(
          res,
          429,
          {
            error: {
              code: 'ERR_API_RATE_LIMITED',
              message: `Too many wrong sign-ins from this address: try again in ${err.retryAfter} s.`,
            },
          },
          { 'retry-after': String(err.retryAfter) },
        )
      }
      return json(res, 401, {
        error: {
          code: 'ERR_API_UNAUTHORIZED',
          message: 'This API key id and secret do not sign in.',
          details: [{ path: '/secret', message: 'does not match the key id' }],
        },
      })
    }
    const session = await sessions.create(keyId, authorization, await monitorTokens.issue(userId))
    return json(
      res,
      200,
      { result: { csrfToken: session.csrfToken, apiKeyId: keyId } },
      { 'set-cookie': sessionCookie(session, secure) },
    )
  }

  async function signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume()
    const session: UiSession | undefined = await sessions.fromCookie(req.headers.cookie)
    if (session !== undefined) {
      if (!csrfMatches(session, req.headers['x-csrf-token'])) {
        return json(res, 403, {
          error: { code: 'ERR_API_FORBIDDEN', message: 'The CSRF token is missing or wrong.' },
        })
      }
      await sessions.end(session)
    }
    await sessions.sweep()
    res.writeHead(204, { 'set-cookie': sessionCookie(null, secure), ...SECURITY_HEADERS })
    res.end()
  }

  return { handle, close: () => streams.close(), sessions, streams }
}

/** A dashboard answer: JSON, never cached, with the dashboard's security headers. */
function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  writeJson(res, status, body, { ...headers, ...SECURITY_HEADERS, 'cache-control': 'no-store' })
}
