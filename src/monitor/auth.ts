import { createHmac } from 'node:crypto'
import OAuth from 'oauth-1.0a'
import * as oauth from 'oauth4webapi'
import type { OAuth1Auth, OAuth2Auth } from './types.js'
import { egressFetch, type OutgoingRequest } from './http.js'
import type { EgressPolicy } from '../net/index.js'

/*
 * Step authentication. Signing and token requests use maintained protocol libraries: oauth-1.0a
 * (HMAC-SHA1 request signing) and oauth4webapi (token endpoint requests and response checks).
 */

function setHeader(out: OutgoingRequest, name: string, value: string): void {
  out.headers = out.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase())
  out.headers.push([name, value])
}

function headerValue(out: OutgoingRequest, name: string): string | undefined {
  return out.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1]
}

export function applyBasic(out: OutgoingRequest, username: string, password: string): void {
  setHeader(
    out,
    'Authorization',
    `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
  )
}

/**
 * Signs a request with OAuth 1.0a HMAC-SHA1: the signature in the Authorization header (default),
 * the query string, or the form body. Form fields of a form-encoded body are signed with it.
 */
export function applyOAuth1(out: OutgoingRequest, auth: OAuth1Auth): void {
  const client = new OAuth({
    consumer: { key: auth.consumer_key ?? '', secret: auth.consumer_secret ?? '' },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  })
  const contentType = headerValue(out, 'content-type') ?? ''
  const formBody = out.body !== null && contentType.startsWith('application/x-www-form-urlencoded')
  const data: Record<string, string> = {}
  if (formBody) for (const [k, v] of new URLSearchParams(out.body ?? '')) data[k] = v
  const token =
    auth.access_token !== undefined && auth.access_token !== ''
      ? { key: auth.access_token, secret: auth.token_secret ?? '' }
      : undefined
  const signed = client.authorize({ url: out.url, method: out.method, data }, token)
  // oauth_timestamp is a number in the library's answer: every oauth_ value is sent as text.
  const oauthParams: Array<[string, string]> = Object.entries(signed)
    .filter(([k, v]) => k.startsWith('oauth_') && (typeof v === 'string' || typeof v === 'number'))
    .map(([k, v]) => [k, String(v)])
  const location: 'auth_header' | 'query' | 'body' =
    auth.signature_type === 'query' || auth.signature_type === 'body'
      ? auth.signature_type
      : 'auth_header'
  switch (location) {
    case 'query': {
      const url = new URL(out.url)
      for (const [k, v] of oauthParams) url.searchParams.append(k, v)
      out.url = url.toString()
      break
    }
    case 'body': {
      const params = new URLSearchParams(formBody ? (out.body ?? '') : '')
      for (const [k, v] of oauthParams) params.append(k, v)
      out.body = params.toString()
      setHeader(out, 'Content-Type', 'application/x-www-form-urlencoded')
      break
    }
    case 'auth_header':
      setHeader(out, 'Authorization', client.toHeader(signed).Authorization)
  }
}

/** Obtains and caches OAuth 2.0 tokens for one run (a token is fetched once per grant and client). */
export class OAuth2Tokens {
  readonly #cache = new Map<string, Promise<string>>()
  readonly #refreshed = new Map<string, Promise<string>>()

  constructor(
    private readonly timeoutMs: number,
    private readonly egress: EgressPolicy,
  ) {}

  #server(auth: OAuth2Auth): oauth.AuthorizationServer {
    const endpoint = auth.access_token_url ?? ''
    const url = new URL(endpoint)
    return {
      issuer: url.origin,
      token_endpoint: endpoint,
      ...(auth.auth_url !== undefined && auth.auth_url !== ''
        ? { authorization_endpoint: auth.auth_url }
        : {}),
    }
  }

  #options(): oauth.TokenEndpointRequestOptions {
    // Tests often target local mock services over plain HTTP.
    return {
      [oauth.allowInsecureRequests]: true,
      signal: () => AbortSignal.timeout(this.timeoutMs),
      [oauth.customFetch]: egressFetch(this.egress),
    }
  }

  #clientAuth(auth: OAuth2Auth): oauth.ClientAuth {
    const secret = auth.client_secret ?? ''
    if (secret === '') return oauth.None()
    return auth.client_authentication === 'body'
      ? oauth.ClientSecretPost(secret)
      : oauth.ClientSecretBasic(secret)
  }

  async #fetch(auth: OAuth2Auth): Promise<string> {
    const as = this.#server(auth)
    const client: oauth.Client = { client_id: auth.client_id ?? '' }
    const clientAuth = this.#clientAuth(auth)
    const scope = auth.scope !== undefined && auth.scope !== '' ? { scope: auth.scope } : {}
    if (auth.grant_type === 'client_credentials') {
      const res = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientAuth,
        scope,
        this.#options(),
      )
      return (await oauth.processClientCredentialsResponse(as, client, res)).access_token
    }
    const res = await oauth.genericTokenEndpointRequest(
      as,
      client,
      clientAuth,
      'password',
      { username: auth.username ?? '', password: auth.password ?? '', ...scope },
      this.#options(),
    )
    return (await oauth.processGenericTokenEndpointResponse(as, client, res)).access_token
  }

  async refresh(auth: OAuth2Auth): Promise<string> {
    const key = JSON.stringify([auth.access_token_url, auth.client_id, auth.refresh_token])
    let pending = this.#refreshed.get(key)
    if (pending === undefined) {
      const as = this.#server(auth)
      const client: oauth.Client = { client_id: auth.client_id ?? '' }
      pending = oauth
        .refreshTokenGrantRequest(
          as,
          client,
          this.#clientAuth(auth),
          auth.refresh_token ?? '',
          this.#options(),
        )
        .then(
          async (res) => (await oauth.processRefreshTokenResponse(as, client, res)).access_token,
        )
      this.#refreshed.set(key, pending)
    }
    return await pending
  }

  /** Whether a 401 answer should be retried once with a refreshed token. */
  canRefresh(auth: OAuth2Auth): boolean {
    return (
      auth.is_auto_refresh_token === true &&
      (auth.refresh_token ?? '') !== '' &&
      (auth.access_token_url ?? '') !== ''
    )
  }

  /** The token a step sends: fetched for client credentials and password grants, else the stored one. */
  async token(auth: OAuth2Auth): Promise<string> {
    const hasEndpoint = (auth.access_token_url ?? '') !== ''
    if (
      hasEndpoint &&
      (auth.grant_type === 'client_credentials' || auth.grant_type === 'password_credentials')
    ) {
      const key = JSON.stringify([
        auth.grant_type,
        auth.access_token_url,
        auth.client_id,
        auth.client_secret,
        auth.username,
        auth.scope,
      ])
      let pending = this.#cache.get(key)
      if (pending === undefined) {
        pending = this.#fetch(auth)
        this.#cache.set(key, pending)
      }
      return await pending
    }
    const stored = auth.access_token ?? ''
    if (stored === '' && this.canRefresh(auth)) return await this.refresh(auth)
    return stored
  }
}

export function applyBearer(
  out: OutgoingRequest,
  token: string,
  location: OAuth2Auth['token_location'],
): void {
  if (location === 'query') {
    const url = new URL(out.url)
    url.searchParams.set('access_token', token)
    out.url = url.toString()
  } else {
    setHeader(out, 'Authorization', `Bearer ${token}`)
  }
}

/**
 * The authorization address of a code grant, with PKCE (`code_challenge`, S256 by default, or
 * plain) for `authorization_code_pkce`: what a user opens once to obtain the token a step stores.
 */
export async function authorizationUrl(auth: OAuth2Auth, redirectUri: string): Promise<string> {
  const url = new URL(auth.auth_url ?? '')
  url.searchParams.set('response_type', auth.grant_type === 'implicit' ? 'token' : 'code')
  url.searchParams.set('client_id', auth.client_id ?? '')
  url.searchParams.set('redirect_uri', redirectUri)
  if ((auth.scope ?? '') !== '') url.searchParams.set('scope', auth.scope ?? '')
  if ((auth.state ?? '') !== '') url.searchParams.set('state', auth.state ?? '')
  if (auth.grant_type === 'authorization_code_pkce') {
    const verifier = auth.code_verifier ?? ''
    const method = auth.code_challenge_method === 'plain' ? 'plain' : 'S256'
    url.searchParams.set(
      'code_challenge',
      method === 'plain' ? verifier : await oauth.calculatePKCECodeChallenge(verifier),
    )
    url.searchParams.set('code_challenge_method', method)
  }
  return url.toString()
}
