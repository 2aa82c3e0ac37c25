import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { OAuthApp } from '../../store/index.js'
import { peerAddress, ThrottledError } from '../access/throttle.js'
import { hashSecret } from '../auth.js'
import { fieldCheckOf, invalidField } from '../validation.js'
import { hashToken, issueToken, MonitorAuthenticator, newSecret } from './bearer.js'
import { SCOPES, type MonitorContext, type MonitorResult, type MonitorRoute } from './types.js'

/*
 * The OAuth 2.0 provider of the monitoring API (the monitoring specification,
 * docs/monitor-api.md#authentication-and-oauth-20), written out here rather than with a library:
 * the maintained Node authorization servers (node-oidc-provider, @node-oauth/oauth2-server)
 * impose their own paths, storage model and error/answer shapes, while clients of the product need
 * exactly `/signin/oauth/authorize`, `/signin/oauth/access_token` and
 * `{access_token, token_type: "bearer"}`. The grant is the plain authorization-code flow:
 *
 * - POST /apps (HTTP Basic with a platform API key): creates an application for the key's user and
 *   answers its client id and secret plus a personal access token (the creator is authorized at
 *   once, the monitoring specification). Client secret stored with scrypt, tokens and codes as
 *   SHA-256.
 * - GET /signin/oauth/authorize: checks the request and answers 302 toward the consent page
 *   (GET /signin/oauth/consent, same parameters), which names the application and the scopes; the
 *   user signs in with a platform API key and allows or denies. POST of that form redirects to the
 *   callback with `code` and `state`, or `error=access_denied`.
 * - POST /signin/oauth/access_token (form-encoded): a code is valid 60 s and once.
 * - Tokens are listed (GET /tokens) and revoked (DELETE /tokens/{id}) by their user.
 */

/** The consent page GET /signin/oauth/authorize redirects to (its form posts back to the authorize URL). */
const CONSENT_PATH = '/signin/oauth/consent'

/** Lifetime of an authorization code (the monitoring specification, docs/monitor-api.md#limits-and-retention). */
const CODE_LIFETIME_MS = 60_000

/** Space-separated scopes: known ones only; `api:read` is always granted (the monitoring specification: required). */
function readScopes(raw: string | null, field: string): string[] {
  const wanted = (raw ?? '').split(/[\s,+]+/).filter((s) => s !== '')
  for (const scope of wanted) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw invalidField(field, `names an unknown scope "${scope}": expected ${SCOPES.join(', ')}`)
    }
  }
  return [...new Set(['api:read', ...wanted])]
}

/** An application body; its URLs (`website_url` or `website`, `callback_url` or `redirect_uri`) are parsed in code. */
const checkApp = fieldCheckOf({
  type: 'object',
  failure: 'must be an object with name, website_url and callback_url',
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      maxLength: 200,
      pattern: '\\S',
      failure: 'is required: 1 to 200 characters',
    },
  },
})
const checkAppScope = fieldCheckOf({
  type: 'string',
  failure: 'must be a space-separated string of scopes',
})

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function redirect(location: string): MonitorResult {
  return { status: 302, raw: null, headers: { location, 'cache-control': 'no-store' } }
}

function withQuery(uri: string, params: Record<string, string>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

/**
 * Only the registered callback itself, compared as a whole string (RFC 9700 section 4.1.3): a
 * prefix or path rule let `.../cbevil` and `.../cb-evil/x` through for a registered `.../cb`.
 */
function redirectAllowed(app: OAuthApp, uri: string): boolean {
  return uri === app.callbackUrl
}

/** RFC 6749 2.3.1: Basic client credentials are percent-encoded; a malformed escape stays as written. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** Checks client_id and redirect_uri of an authorize request; these errors are never redirected. */
async function authorizeTarget(
  ctx: MonitorContext,
  params: URLSearchParams,
): Promise<{ app: OAuthApp; redirectUri: string }> {
  const clientId = params.get('client_id') ?? ''
  const app = clientId === '' ? undefined : await ctx.deps.store.oauth.getApp(clientId)
  if (app === undefined) throw invalidField('/client_id', 'names no application')
  const redirectUri = params.get('redirect_uri') ?? app.callbackUrl
  if (!redirectAllowed(app, redirectUri)) {
    throw invalidField(
      '/redirect_uri',
      "must equal the application's registered callback URL exactly",
    )
  }
  return { app, redirectUri }
}

/** RFC 6749 section 5.2 error of the token endpoint (what OAuth client libraries parse). */
function tokenError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): MonitorResult {
  return {
    status,
    raw: JSON.stringify({ error, error_description: description }),
    headers: {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    },
  }
}

function consentPage(app: OAuthApp, params: URLSearchParams, scopes: string[]): string {
  const hidden = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state']
    .map(
      (name) =>
        `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? '')}">`,
    )
    .join('\n      ')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize ${escapeHtml(app.name)}</title></head>
<body>
  <h1>Authorize ${escapeHtml(app.name)}</h1>
  <p><a href="${escapeHtml(app.websiteUrl)}">${escapeHtml(app.websiteUrl)}</a> asks for access to your Understudy account:</p>
  <ul>${scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>
  <form method="post" action="/signin/oauth/authorize">
      ${hidden}
      <label>API key id <input name="api_key_id" autocomplete="username"></label>
      <label>API key secret <input name="api_key_secret" type="password" autocomplete="current-password"></label>
      <button name="decision" value="allow">Allow</button>
      <button name="decision" value="deny">Deny</button>
  </form>
</body></html>
`
}

export const oauthRoutes: MonitorRoute[] = [
  {
    method: 'POST',
    path: '/apps',
    auth: 'basic',
    handler: async (ctx) => {
      const sent = await ctx.json()
      checkApp(sent)
      const body = sent as Record<string, unknown>
      const name = body['name'] as string
      const website = body['website_url'] ?? body['website']
      const callback = body['callback_url'] ?? body['redirect_uri']
      if (!isHttpUrl(website)) {
        throw invalidField('/website_url', 'is required: an http or https URL')
      }
      if (!isHttpUrl(callback)) {
        throw invalidField('/callback_url', 'is required: an http or https URL')
      }
      if (body['scope'] !== undefined) checkAppScope(body['scope'], '/scope')
      // The personal token of the creator: every scope unless the body narrows it.
      const scopes =
        body['scope'] === undefined ? [...SCOPES] : readScopes(body['scope'] as string, '/scope')
      const clientSecret = newSecret()
      const app = await ctx.deps.store.oauth.createApp({
        clientId: randomUUID(),
        userId: ctx.principal.user.id,
        name,
        websiteUrl: website,
        callbackUrl: callback,
        secretHash: await hashSecret(clientSecret),
      })
      const token = await issueToken(ctx.deps.store, app.clientId, ctx.principal.user.id, scopes)
      return {
        status: 201,
        data: {
          name: app.name,
          website_url: app.websiteUrl,
          callback_url: app.callbackUrl,
          client_id: app.clientId,
          client_secret: clientSecret,
          created_at: Math.floor(app.created / 1000),
          access_token: token.accessToken,
          access_token_id: token.id,
          token_type: 'bearer',
          scope: scopes.join(' '),
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/apps',
    handler: async (ctx) => ({
      data: (await ctx.deps.store.oauth.listApps(ctx.principal.user.id)).map((a) => ({
        name: a.name,
        website_url: a.websiteUrl,
        callback_url: a.callbackUrl,
        client_id: a.clientId,
        created_at: Math.floor(a.created / 1000),
      })),
    }),
  },
  {
    method: 'DELETE',
    path: '/apps/:clientId',
    handler: async (ctx) => {
      const id = ctx.params['clientId'] ?? ''
      if (!(await ctx.deps.store.oauth.deleteApp(ctx.principal.user.id, id))) {
        throw createError('ERR_API_NOT_FOUND', [`Application ${id}`])
      }
      return { status: 204, raw: null }
    },
  },
  {
    method: 'GET',
    path: '/tokens',
    handler: async (ctx) => ({
      data: (await ctx.deps.store.oauth.listTokens(ctx.principal.user.id)).map((t) => ({
        id: t.id,
        client_id: t.clientId,
        scope: t.scopes.join(' '),
        created_at: Math.floor(t.created / 1000),
        current: t.id === ctx.principal.tokenId,
      })),
    }),
  },
  {
    method: 'DELETE',
    path: '/tokens/:tokenId',
    handler: async (ctx) => {
      const id =
        ctx.params['tokenId'] === 'current'
          ? (ctx.principal.tokenId ?? '')
          : (ctx.params['tokenId'] ?? '')
      if (!(await ctx.deps.store.oauth.revokeToken(ctx.principal.user.id, id))) {
        throw createError('ERR_API_NOT_FOUND', [`Token ${id}`])
      }
      return { status: 204, raw: null }
    },
  },
  {
    method: 'GET',
    path: '/signin/oauth/authorize',
    auth: 'none',
    handler: async (ctx) => {
      const { app, redirectUri } = await authorizeTarget(ctx, ctx.query)
      const state = ctx.query.get('state')
      if (ctx.query.get('response_type') !== 'code') {
        return redirect(
          withQuery(redirectUri, {
            error: 'unsupported_response_type',
            ...(state === null ? {} : { state }),
          }),
        )
      }
      let scopes: string[]
      try {
        scopes = readScopes(ctx.query.get('scope'), '/scope')
      } catch {
        return redirect(
          withQuery(redirectUri, { error: 'invalid_scope', ...(state === null ? {} : { state }) }),
        )
      }
      // The product answers 302 toward its consent page; the parameters travel along unchanged.
      const consent = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: scopes.join(' '),
      })
      if (state !== null) consent.set('state', state)
      return redirect(`${CONSENT_PATH}?${consent.toString()}`)
    },
  },
  {
    method: 'GET',
    path: CONSENT_PATH,
    auth: 'none',
    handler: async (ctx) => {
      const { app } = await authorizeTarget(ctx, ctx.query)
      // The authorize redirect checked the scopes; a hand-edited URL gets a 400, no redirect.
      const scopes = readScopes(ctx.query.get('scope'), '/scope')
      return {
        status: 200,
        raw: consentPage(app, ctx.query, scopes),
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'x-frame-options': 'DENY',
        },
      }
    },
  },
  {
    method: 'POST',
    path: '/signin/oauth/authorize',
    auth: 'none',
    handler: async (ctx) => {
      const form = await ctx.form()
      const { app, redirectUri } = await authorizeTarget(ctx, form)
      const state = form.get('state')
      const withState = state === null || state === '' ? {} : { state }
      if (form.get('decision') !== 'allow') {
        return redirect(withQuery(redirectUri, { error: 'access_denied', ...withState }))
      }
      if (form.get('response_type') !== null && form.get('response_type') !== 'code') {
        return redirect(
          withQuery(redirectUri, { error: 'unsupported_response_type', ...withState }),
        )
      }
      const header =
        ctx.req.headers.authorization ??
        `Basic ${Buffer.from(`${form.get('api_key_id') ?? ''}:${form.get('api_key_secret') ?? ''}`).toString('base64')}`
      const principal = await new MonitorAuthenticator(
        ctx.deps.store,
        ctx.deps.authenticator,
      ).basic(header, peerAddress(ctx.req))
      let scopes: string[]
      try {
        scopes = readScopes(form.get('scope'), '/scope')
      } catch {
        return redirect(withQuery(redirectUri, { error: 'invalid_scope', ...withState }))
      }
      const code = newSecret()
      await ctx.deps.store.oauth.createCode({
        codeHash: hashToken(code),
        clientId: app.clientId,
        userId: principal.user.id,
        scopes,
        redirectUri,
        expires: ctx.deps.options.now() + CODE_LIFETIME_MS,
      })
      return redirect(withQuery(redirectUri, { code, ...withState }))
    },
  },
  {
    method: 'POST',
    path: '/signin/oauth/access_token',
    auth: 'none',
    handler: async (ctx) => {
      const form = await ctx.form()
      if (form.get('grant_type') !== 'authorization_code') {
        return tokenError(400, 'unsupported_grant_type', 'grant_type must be authorization_code')
      }
      // Client credentials in the body (the monitoring specification) or in an HTTP Basic header
      // (RFC 6749 2.3.1).
      let clientId = form.get('client_id') ?? ''
      let clientSecret = form.get('client_secret') ?? ''
      const header = ctx.req.headers.authorization
      if (clientId === '' && header !== undefined && /^basic\s+/i.test(header)) {
        const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8')
        const colon = decoded.indexOf(':')
        if (colon <= 0) {
          return tokenError(
            401,
            'invalid_client',
            'the Authorization header is not valid HTTP Basic: expected base64(<client_id>:<client_secret>)',
          )
        }
        clientId = percentDecoded(decoded.slice(0, colon))
        clientSecret = percentDecoded(decoded.slice(colon + 1))
      }
      if (clientId === '') return tokenError(401, 'invalid_client', 'client_id is required')
      const app = await ctx.deps.store.oauth.getApp(clientId)
      // The platform's one throttle counts wrong client secrets too; an unknown client_id costs
      // the same scrypt as a known one, so timing does not tell which clients exist.
      let verified: boolean
      try {
        verified = await ctx.deps.authenticator.verifyThrottled(
          peerAddress(ctx.req),
          `client:${clientId}`,
          clientSecret,
          app?.secretHash,
        )
      } catch (err) {
        if (!(err instanceof ThrottledError)) throw err
        return tokenError(
          429,
          'invalid_client',
          `too many wrong client secrets from this address: retry in ${err.retryAfter} s`,
          { 'retry-after': String(err.retryAfter) },
        )
      }
      if (app === undefined || !verified) {
        return tokenError(401, 'invalid_client', 'unknown client_id or wrong client_secret')
      }
      const code = form.get('code') ?? ''
      if (code === '') return tokenError(400, 'invalid_request', 'code is required')
      const stored = await ctx.deps.store.oauth.consumeCode(hashToken(code))
      if (stored === undefined || stored.clientId !== app.clientId) {
        return tokenError(400, 'invalid_grant', 'unknown authorization code')
      }
      if (stored.used) {
        return tokenError(400, 'invalid_grant', 'the authorization code was already used')
      }
      if (ctx.deps.options.now() > stored.expires) {
        return tokenError(
          400,
          'invalid_grant',
          'the authorization code expired (codes are valid 60 seconds): authorize again',
        )
      }
      const redirectUri = form.get('redirect_uri')
      if (redirectUri !== null && redirectUri !== '' && redirectUri !== stored.redirectUri) {
        return tokenError(400, 'invalid_grant', 'redirect_uri differs from the one authorized')
      }
      const token = await issueToken(ctx.deps.store, app.clientId, stored.userId, stored.scopes)
      return {
        status: 200,
        raw: JSON.stringify({
          access_token: token.accessToken,
          token_type: 'bearer',
          scope: stored.scopes.join(' '),
        }),
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      }
    },
  },
]
