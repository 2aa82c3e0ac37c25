import type http2 from 'node:http2'
import tls from 'node:tls'
import { describe, expect, it, onTestFinished } from 'vitest'
import { inspectionList } from '../../helpers/admin.js'
import { h2Request, h2Session, http1Request } from '../../helpers/clients.js'
import { startServer, type TestServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * HTTPS (`tlsPort`) speaks h2 and http/1.1 by ALPN on one port with a generated self-signed
 * certificate; h2c (`h2cPort`) speaks HTTP/2 with prior knowledge. Every listener gives the same
 * answers.
 */

const transactions = [
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/pets/{id}' },
      responseDsl: {
        status: 200,
        statusMessage: 'Fine',
        json: { name: 'Rex' },
        headers: [{ name: 'X-Served', value: 'yes' }],
      },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/echo',
        body: [{ key: '$.kind', matcherName: 'equals', matchingValue: 'dog' }],
      },
      responseDsl: { status: 201, text: 'dog stored' },
    },
  },
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/slow' },
      responseDsl: { text: 'slow', responseDelay: { type: 'fixed', duration: 600 } },
    },
  },
  { dsl: { requestDsl: { method: 'GET', path: '/fast' }, responseDsl: { text: 'fast' } } },
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/hop' },
      responseDsl: {
        text: 'hop',
        headers: [
          { name: 'Keep-Alive', value: 'timeout=5' },
          { name: 'Upgrade', value: 'h2c' },
          { name: 'X-Kept', value: '1' },
        ],
      },
    },
  },
]

async function start(
  options: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<TestServer> {
  return await startServer({ dsl: { transactions, ...extra }, options, admin: true })
}

/** One request on an existing session: status, body and the time it took. */
async function onSession(
  s: http2.ClientHttp2Session,
  path: string,
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now()
  return await new Promise((resolve, reject) => {
    const stream = s.request({ ':path': path })
    let status = 0
    let body = ''
    stream.setEncoding('utf8')
    stream.on('response', (h) => {
      status = Number(h[':status'])
    })
    stream.on('data', (d: string) => {
      body += d
    })
    stream.on('end', () => resolve({ status, body, ms: performance.now() - started }))
    stream.on('error', reject)
    stream.end()
  })
}

describe('HTTPS with h2 and http/1.1 on one port', () => {
  it('negotiates h2 by ALPN and answers like the HTTP/1.1 listener', async () => {
    const app = await start({ tlsPort: 0 })
    const httpsUrl = app.runtime.urls.https
    expect(httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const h2 = await h2Request(httpsUrl ?? '', { path: '/pets/1' })
    expect(h2.alpnProtocol).toBe('h2')
    expect(h2.httpVersion).toBe('2.0')
    expect(h2.status).toBe(200)
    expect(h2.headers['content-type']).toBe('application/json')
    expect(h2.headers['x-served']).toBe('yes')
    expect(h2.headers['content-length']).toBe(String(h2.body.length))
    expect(JSON.parse(h2.body.toString())).toEqual({ name: 'Rex' })

    const h1 = await http1Request(httpsUrl ?? '', { path: '/pets/1' })
    expect(h1.alpnProtocol).toBe('http/1.1')
    expect(h1.httpVersion).toBe('1.1')
    expect(h1.status).toBe(200)
    expect(h1.statusMessage).toBe('Fine')
    expect(h1.headers['x-served']).toBe('yes')
    expect(h1.body).toEqual(h2.body)

    const plain = await http1Request(app.url, { path: '/pets/1' })
    expect(plain.body).toEqual(h2.body)
  })

  it('serves a self-signed certificate for localhost', async () => {
    const app = await start({ tlsPort: 0 })
    const { port } = new URL(app.runtime.urls.https ?? '')
    const socket = tls.connect({
      host: '127.0.0.1',
      port: Number(port),
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
    })
    onTestFinished(() => {
      socket.destroy()
    })
    await new Promise((resolve, reject) => {
      socket.once('secureConnect', resolve)
      socket.once('error', reject)
    })
    const cert = socket.getPeerCertificate()
    expect(cert.subject.CN).toBe('localhost')
    expect(cert.issuer.CN).toBe('localhost')
    expect(cert.subjectaltname).toContain('DNS:localhost')
    expect(cert.subjectaltname).toContain('IP Address:127.0.0.1')
    expect(socket.authorized).toBe(false)
  })

  // Was a bug (fixed in src/serve/exchange.ts): an HTTP/2 body without content-length was never read.
  it('matches a request body sent over h2 without content-length', async () => {
    const app = await start({ tlsPort: 0 })
    const res = await h2Request(app.runtime.urls.https ?? '', {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"dog"}',
    })
    expect(res.status).toBe(201)
    expect(res.body.toString()).toBe('dog stored')
  })

  it('drops written connection-specific headers over h2 and keeps them over HTTP/1.1', async () => {
    const app = await start({ tlsPort: 0 })
    const h2 = await h2Request(app.runtime.urls.https ?? '', { path: '/hop' })
    expect(h2.status).toBe(200)
    expect(h2.body.toString()).toBe('hop')
    expect(h2.headers['x-kept']).toBe('1')
    expect(h2.headers['keep-alive']).toBeUndefined()
    expect(h2.headers['upgrade']).toBeUndefined()
    const h1 = await http1Request(app.url, { path: '/hop' })
    expect(h1.headers['upgrade']).toBe('h2c')
  })

  it('answers a no-match over h2 with the problem+json 404', async () => {
    const app = await start({ tlsPort: 0 })
    const res = await h2Request(app.runtime.urls.https ?? '', { path: '/nothing' })
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('application/problem+json')
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'ERR_MATCH_NO_MATCH' })
  })

  it('answers several streams of one h2 session independently, the fast before the slow', async () => {
    const app = await start({ tlsPort: 0 })
    const s = h2Session(app.runtime.urls.https ?? '')
    const slow = onSession(s, '/slow')
    await new Promise((resolve) => setTimeout(resolve, 50))
    const fast = await onSession(s, '/fast')
    expect(fast).toMatchObject({ status: 200, body: 'fast' })
    const slowResult = await slow
    expect(slowResult).toMatchObject({ status: 200, body: 'slow' })
    expect(slowResult.ms).toBeGreaterThanOrEqual(590)
    // compared with the slow stream, not with the clock: behind it, the fast one would take as long
    expect(fast.ms).toBeLessThan(slowResult.ms / 2)
  })

  it('refuses past capacity over h2 with 503 and Retry-After', async () => {
    const app = await start({ tlsPort: 0 }, { capacity: 1 })
    const s = h2Session(app.runtime.urls.https ?? '')
    const slow = onSession(s, '/slow')
    await waitFor(() => app.runtime.inFlight() >= 1, 'the slow request to be in flight')
    const refused = await h2Request(app.runtime.urls.https ?? '', { path: '/fast' })
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 'ERR_SERVE_CAPACITY' })
    expect((await slow).status).toBe(200)
  })

  it('answers 413 over h2 and keeps the session usable', async () => {
    const app = await start({ tlsPort: 0, bodyLimit: 1000 })
    const s = h2Session(app.runtime.urls.https ?? '')
    const big = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = s.request({ ':method': 'POST', ':path': '/echo', 'content-length': '5000' })
      let status = 0
      let body = ''
      stream.setEncoding('utf8')
      stream.on('response', (h) => {
        status = Number(h[':status'])
      })
      stream.on('data', (d: string) => {
        body += d
      })
      stream.on('end', () => resolve({ status, body }))
      stream.on('error', reject)
      stream.end(Buffer.alloc(5000))
    })
    expect(big.status).toBe(413)
    expect(JSON.parse(big.body)).toMatchObject({ code: 'ERR_SERVE_BODY_TOO_LARGE' })
    expect(await onSession(s, '/fast')).toMatchObject({ status: 200, body: 'fast' })
  })

  it('answers 413 to an h2 body without content-length that grows past the limit', async () => {
    const app = await start({ tlsPort: 0, bodyLimit: 1000 })
    const s = h2Session(app.runtime.urls.https ?? '')
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = s.request({ ':method': 'POST', ':path': '/echo' })
      let status = 0
      let body = ''
      stream.setEncoding('utf8')
      stream.on('response', (h) => {
        status = Number(h[':status'])
      })
      stream.on('data', (d: string) => {
        body += d
      })
      stream.on('end', () => resolve({ status, body }))
      stream.on('error', reject)
      // Written in parts, never ended: only the limit can stop it.
      for (let i = 0; i < 4; i++) stream.write(Buffer.alloc(400))
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'ERR_SERVE_BODY_TOO_LARGE' })
    expect(await onSession(s, '/fast')).toMatchObject({ status: 200 })
  })

  it('records h2 requests in inspection with their method and path', async () => {
    const app = await start({ tlsPort: 0 })
    await h2Request(app.runtime.urls.https ?? '', { path: '/pets/9?x=1' })
    const { body } = await inspectionList(app)
    expect(body.result[0]).toMatchObject({
      operation: 'GET',
      url: '/pets/9?x=1',
      matched: true,
      arguments: [{ key: 'x', value: '1' }],
    })
  })
})

describe('h2c', () => {
  it('answers HTTP/2 prior-knowledge clients on the h2c port', async () => {
    const app = await start({ h2cPort: 0 })
    const h2cUrl = app.runtime.urls.h2c
    expect(h2cUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(app.runtime.urls.https).toBeNull()
    const res = await h2Request(h2cUrl ?? '', { path: '/pets/2' })
    expect(res.httpVersion).toBe('2.0')
    expect(res.alpnProtocol).toBe('h2c')
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body.toString())).toEqual({ name: 'Rex' })
    const post = await h2Request(h2cUrl ?? '', {
      method: 'POST',
      path: '/echo',
      body: '{"kind":"dog"}',
    })
    expect(post.status).toBe(201)
  })

  it('runs HTTP/1.1, HTTPS and h2c listeners side by side', async () => {
    const app = await start({ tlsPort: 0, h2cPort: 0 })
    const ports = new Set(
      [app.url, app.runtime.urls.https, app.runtime.urls.h2c].map((u) => new URL(u ?? '').port),
    )
    expect(ports.size).toBe(3)
    const answers = await Promise.all([
      http1Request(app.url, { path: '/fast' }),
      h2Request(app.runtime.urls.https ?? '', { path: '/fast' }),
      h2Request(app.runtime.urls.h2c ?? '', { path: '/fast' }),
    ])
    for (const a of answers) expect(a.body.toString()).toBe('fast')
  })
})

describe('dribbled bodies over HTTP/2', () => {
  const dribbled = [
    {
      dsl: {
        requestDsl: { method: 'GET', path: '/trickle' },
        responseDsl: {
          status: 200,
          statusMessage: 'Fine',
          text: 'abcdefghij',
          headers: [{ name: 'X-Kept', value: '1' }],
          responseDelay: { type: 'fixed', duration: 400, dribbled: true, chunks: 5 },
        },
      },
    },
  ]

  /** Sends GET /trickle on a session; the body's pieces with the ms after the headers each arrived. */
  async function trickle(
    s: http2.ClientHttp2Session,
  ): Promise<{ status: number; kept: unknown; pieces: Array<{ at: number; text: string }> }> {
    return await new Promise((resolve, reject) => {
      const stream = s.request({ ':path': '/trickle' })
      let status = 0
      let kept: unknown
      let headersAt = 0
      const pieces: Array<{ at: number; text: string }> = []
      stream.on('response', (h) => {
        status = Number(h[':status'])
        kept = h['x-kept']
        headersAt = performance.now()
      })
      stream.on('data', (d: Buffer) => {
        pieces.push({ at: performance.now() - headersAt, text: d.toString() })
      })
      stream.on('end', () => resolve({ status, kept, pieces }))
      stream.on('error', reject)
      stream.end()
    })
  }

  for (const listener of ['https', 'h2c'] as const) {
    it(`sends the body in chunks spread over the delay (${listener})`, async () => {
      const app = await startServer({
        dsl: { transactions: dribbled },
        options: listener === 'https' ? { tlsPort: 0 } : { h2cPort: 0 },
        admin: true,
      })
      const s = h2Session(app.runtime.urls[listener] ?? '')
      const answer = await trickle(s)
      expect(answer.status).toBe(200)
      expect(answer.kept).toBe('1')
      expect(answer.pieces.map((p) => p.text).join('')).toBe('abcdefghij')
      // 5 pieces, one per 80 ms: the headers come at once, the body over about 400 ms
      expect(answer.pieces.length).toBeGreaterThanOrEqual(3)
      expect(answer.pieces[0]?.at ?? 0).toBeGreaterThanOrEqual(40)
      expect(answer.pieces.at(-1)?.at ?? 0).toBeGreaterThanOrEqual(250)
      // the session stays usable
      expect((await trickle(s)).pieces.map((p) => p.text).join('')).toBe('abcdefghij')
    })
  }
})
