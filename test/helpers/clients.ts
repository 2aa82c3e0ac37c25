import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import { onTestFinished } from 'vitest'

/** What a raw client saw: status, reason phrase (HTTP/1.1), headers both ways, and the body. */
interface RawResponse {
  status: number
  /** HTTP/1.1 reason phrase; '' over HTTP/2. */
  statusMessage: string
  headers: Record<string, string | string[] | undefined>
  /** Flat `[name, value, ...]` as received (HTTP/1.1 only; [] over HTTP/2). */
  rawHeaders: string[]
  body: Buffer
  /** '1.1' or '2.0'. */
  httpVersion: string
  /** ALPN protocol of the TLS connection (`h2`, `http/1.1`), or null. */
  alpnProtocol: string | null
}

interface RawRequestOptions {
  method?: string
  /** Path and query, default '/'. */
  path?: string
  headers?: Record<string, string | string[]>
  body?: string | Buffer
  /** Milliseconds before the request is abandoned with an error; default 10 s. */
  timeout?: number
}

/**
 * One HTTP/1.1 request with node:http or node:https (self-signed certificates accepted; ALPN
 * restricted to http/1.1), on a fresh connection that is closed afterwards. Unlike fetch it shows
 * the reason phrase and raw header names, and lets a test send any header.
 *
 * @example
 * const res = await http1Request(`${app.url}`, { path: '/a', headers: { 'x-a': '1' } })
 * res.statusMessage // 'OK'
 */
export async function http1Request(
  origin: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const url = new URL(options.path ?? '/', origin)
  const secure = url.protocol === 'https:'
  const agent = secure
    ? new https.Agent({ keepAlive: false })
    : new http.Agent({ keepAlive: false })
  return await new Promise<RawResponse>((resolve, reject) => {
    const requestOptions: https.RequestOptions = {
      method: options.method ?? 'GET',
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: options.headers ?? {},
      agent,
      timeout: options.timeout ?? 10_000,
    }
    if (secure) {
      requestOptions.rejectUnauthorized = false
      // Passed through to tls.connect, though https.RequestOptions does not declare it.
      Object.assign(requestOptions, { ALPNProtocols: ['http/1.1'] })
    }
    const req = (secure ? https : http).request(requestOptions, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const socket = res.socket as (typeof res.socket & { alpnProtocol?: string | false }) | null
        const alpn = socket?.alpnProtocol
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
          httpVersion: res.httpVersion,
          alpnProtocol: typeof alpn === 'string' ? alpn : null,
        })
        agent.destroy()
      })
    })
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', (err) => {
      agent.destroy()
      reject(err)
    })
    req.end(options.body)
  })
}

/**
 * One HTTP/2 request on its own session: `https://` origins negotiate h2 by ALPN (self-signed
 * certificates accepted), `http://` origins use prior knowledge (h2c). The session is closed
 * before the promise settles.
 *
 * @example
 * const res = await h2Request(runtime.urls.https, { path: '/a' })
 * res.alpnProtocol // 'h2'
 */
export async function h2Request(
  origin: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const session = http2.connect(origin, { rejectUnauthorized: false })
  const timeout = options.timeout ?? 10_000
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('h2 request timed out')), timeout)
      session.on('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
      const stream = session.request({
        ':method': options.method ?? 'GET',
        ':path': options.path ?? '/',
        ...options.headers,
      })
      let headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {}
      const chunks: Buffer[] = []
      stream.on('response', (h) => {
        headers = h
      })
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
      stream.on('end', () => {
        clearTimeout(timer)
        const rest: Record<string, string | string[] | undefined> = {}
        for (const [name, value] of Object.entries(headers)) {
          if (!name.startsWith(':')) rest[name] = typeof value === 'number' ? String(value) : value
        }
        resolve({
          status: Number(headers[':status'] ?? 0),
          statusMessage: '',
          headers: rest,
          rawHeaders: [],
          body: Buffer.concat(chunks),
          httpVersion: '2.0',
          alpnProtocol: session.alpnProtocol ?? null,
        })
      })
      stream.end(options.body)
    })
  } finally {
    await new Promise<void>((resolve) => {
      if (session.closed || session.destroyed) resolve()
      else session.close(() => resolve())
    })
  }
}

/**
 * An HTTP/2 session (self-signed certificates accepted) for several requests in one test, closed
 * when the test ends. Session errors are left to the streams, which report their own.
 *
 * @example
 * const s = h2Session(app.runtime.urls.https ?? '')
 * const stream = s.request({ ':path': '/a' })
 */
export function h2Session(origin: string): http2.ClientHttp2Session {
  const session = http2.connect(origin, { rejectUnauthorized: false })
  session.on('error', () => {})
  onTestFinished(() => {
    session.destroy()
  })
  return session
}
