import { createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import OAuth from 'oauth-1.0a'

/** What the target server saw, for tests to assert on. */
export interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export interface TargetServer {
  url: string
  seen: Seen[]
  /** Tokens the server accepts on /protected. */
  validTokens: Set<string>
  close: () => Promise<void>
}

export const OAUTH1 = {
  consumer_key: 'ck',
  consumer_secret: 'cs',
  access_token: 'at',
  token_secret: 'ts',
}
export const CLIENT = { id: 'client-1', secret: 'shh' }

function oauth1Valid(method: string, url: string, params: Record<string, string>): boolean {
  const client = new OAuth({
    consumer: { key: OAUTH1.consumer_key, secret: OAUTH1.consumer_secret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  })
  const signature = params['oauth_signature']
  const oauthData: Record<string, string> = {}
  const data: Record<string, string> = {}
  for (const [k, v] of Object.entries(params)) {
    if (k === 'oauth_signature') continue
    if (k.startsWith('oauth_')) oauthData[k] = v
    else data[k] = v
  }
  const expected = client.getSignature(
    { url, method, data },
    OAUTH1.token_secret,
    oauthData as unknown as OAuth.Data,
  )
  return signature === expected
}

/**
 * A small HTTP service for runner tests: JSON, XML and text resources, an echo, basic and OAuth
 * protected resources and an OAuth 2.0 token endpoint, on 127.0.0.1 and a free port.
 */
export async function startTarget(): Promise<TargetServer> {
  const seen: Seen[] = []
  const validTokens = new Set<string>(['stored-token'])
  let issued = 0
  const decks = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(value))
      }
      switch (url.pathname) {
        case '/json':
          json(
            200,
            {
              id: 7,
              name: 'widget',
              price: '12.5',
              tags: ['a', 'b'],
              nested: { k: 'v' },
              nothing: null,
              empty: [],
              ok: true,
            },
            { 'x-custom': 'abc', 'x-count': '42' },
          )
          return
        case '/xml':
          res.writeHead(200, { 'content-type': 'application/xml' })
          res.end('<order><id>7</id><status>shipped</status></order>')
          return
        case '/set-cookie':
          res.writeHead(200, {
            'set-cookie': ['session=s1; Path=/; HttpOnly', 'theme=dark', 'old=x; Max-Age=0'],
          })
          res.end()
          return
        case '/text':
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.end('hello world')
          return
        case '/get':
        case '/post':
        case '/echo':
          json(200, {
            method: req.method,
            args: Object.fromEntries(url.searchParams),
            headers: req.headers,
            body,
            form: Object.fromEntries(
              new URLSearchParams(
                req.headers['content-type']?.startsWith('application/x-www-form-urlencoded') ===
                  true
                  ? body
                  : '',
              ),
            ),
          })
          return
        case '/oauth1': {
          const params: Record<string, string> = Object.fromEntries(url.searchParams)
          const header = req.headers.authorization ?? ''
          if (header.startsWith('OAuth ')) {
            for (const m of header.slice(6).matchAll(/(\w+)="([^"]*)"/g)) {
              params[m[1] as string] = decodeURIComponent(m[2] as string)
            }
          }
          if (
            req.headers['content-type']?.startsWith('application/x-www-form-urlencoded') === true
          ) {
            Object.assign(params, Object.fromEntries(new URLSearchParams(body)))
          }
          const valid = oauth1Valid(
            req.method ?? 'GET',
            `http://${req.headers.host ?? ''}${url.pathname}`,
            params,
          )
          json(valid ? 200 : 401, { valid })
          return
        }
        case '/token': {
          const form = new URLSearchParams(body)
          const basic = req.headers.authorization ?? ''
          const fromBasic = basic.startsWith('Basic ')
            ? Buffer.from(basic.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
            : []
          const clientId = form.get('client_id') ?? fromBasic[0]
          const secret = form.get('client_secret') ?? fromBasic[1]
          if (clientId !== CLIENT.id || secret !== CLIENT.secret) {
            json(401, { error: 'invalid_client' })
            return
          }
          const grant = form.get('grant_type')
          const okGrant =
            grant === 'client_credentials' ||
            (grant === 'password' &&
              form.get('username') === 'ada' &&
              form.get('password') === 'pw') ||
            (grant === 'refresh_token' && form.get('refresh_token') === 'refresh-1')
          if (!okGrant) {
            json(400, { error: 'invalid_grant' })
            return
          }
          const token = `${grant}-${++issued}`
          validTokens.add(token)
          json(
            200,
            { access_token: token, token_type: 'bearer', expires_in: 3600 },
            { 'cache-control': 'no-store' },
          )
          return
        }
        case '/protected': {
          const auth = req.headers.authorization ?? ''
          const token = auth.startsWith('Bearer ')
            ? auth.slice(7)
            : (url.searchParams.get('access_token') ?? '')
          if (validTokens.has(token)) json(200, { token })
          else json(401, { error: 'invalid_token' })
          return
        }
        default:
          {
            // The Deck of Cards API of the real export (deck_of_cards_api_test.json).
            const shuffle = /^\/api\/deck\/new\/shuffle\/?$/.exec(url.pathname)
            if (shuffle !== null) {
              const id = `deck${++issued}`
              const remaining = 52 * Number(url.searchParams.get('deck_count') ?? '1')
              decks.set(id, remaining)
              json(200, { success: true, deck_id: id, shuffled: true, remaining })
              return
            }
            const draw = /^\/api\/deck\/([^/]+)\/draw\/?$/.exec(url.pathname)
            if (draw !== null) {
              const id = draw[1] ?? ''
              const left = decks.get(id)
              if (left === undefined) {
                json(404, { success: false, error: `Deck ID ${id} does not exist.` })
                return
              }
              const count = Math.min(Number(url.searchParams.get('count') ?? '1'), left)
              decks.set(id, left - count)
              json(200, {
                success: true,
                deck_id: id,
                cards: Array.from({ length: count }, (_, i) => ({ code: `C${i}` })),
                remaining: left - count,
              })
              return
            }
          }
          if (url.pathname.startsWith('/status/')) {
            json(Number(url.pathname.slice(8)) || 500, {})
            return
          }
          json(404, { error: 'not found' })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    validTokens,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
