import type http2 from 'node:http2'
import { describe, expect, it } from 'vitest'
import { inspectionList } from '../../helpers/admin.js'
import { h2Session } from '../../helpers/clients.js'
import { startServer, type TestServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Compiled answers over HTTP/2 go straight to the stream (src/serve/h2-respond.ts) unless CORS or
 * a HEAD request needs the compatibility response: every shape of answer reaches the client whole,
 * and each is recorded.
 */

const transactions = [
  {
    dsl: {
      requestDsl: { method: 'POST', path: '/orders' },
      responseDsl: {
        status: 201,
        json: { id: 7 },
        headers: [
          { name: 'Set-Cookie', value: 'a=1' },
          { name: 'X-Served', value: 'yes' },
          { name: 'Set-Cookie', value: 'b=2' },
        ],
      },
    },
  },
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/orders/7' },
      responseDsl: { text: 'seven' },
    },
  },
  {
    dsl: { requestDsl: { method: 'HEAD', path: '/orders/7' }, responseDsl: { text: 'seven' } },
  },
  { dsl: { requestDsl: { method: 'DELETE', path: '/orders/7' }, responseDsl: { status: 204 } } },
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/empty' },
      responseDsl: { status: 200, content: '' },
    },
  },
]

interface H2Answer {
  headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader
  body: string
}

async function ask(
  s: http2.ClientHttp2Session,
  method: string,
  path: string,
  headers: http2.OutgoingHttpHeaders = {},
  body?: string,
): Promise<H2Answer> {
  return await new Promise((resolve, reject) => {
    const stream = s.request({ ':method': method, ':path': path, ...headers })
    let answer: H2Answer['headers'] = {}
    let text = ''
    stream.setEncoding('utf8')
    stream.on('response', (h) => {
      answer = h
    })
    stream.on('data', (d: string) => {
      text += d
    })
    stream.on('end', () => resolve({ headers: answer, body: text }))
    stream.on('error', reject)
    stream.end(body)
  })
}

async function start(extra: Record<string, unknown> = {}): Promise<TestServer> {
  return await startServer({
    dsl: { transactions, ...extra },
    options: { tlsPort: 0, h2cPort: 0 },
    admin: true,
  })
}

describe('compiled answers over HTTP/2', () => {
  it.each(['https', 'h2c'] as const)(
    'sends status, repeated headers, date and body whole (%s)',
    async (listener) => {
      const app = await start()
      const s = h2Session(app.runtime.urls[listener] ?? '')
      const created = await ask(s, 'POST', '/orders', { 'content-type': 'application/json' }, '{}')
      expect(created.headers[':status']).toBe(201)
      expect(created.headers['set-cookie']).toEqual(['a=1', 'b=2'])
      expect(created.headers['x-served']).toBe('yes')
      expect(created.headers['content-type']).toBe('application/json')
      expect(created.headers['content-length']).toBe(String(Buffer.byteLength(created.body)))
      expect(Number.isNaN(Date.parse(String(created.headers['date'])))).toBe(false)
      expect(JSON.parse(created.body)).toEqual({ id: 7 })

      const text = await ask(s, 'GET', '/orders/7')
      expect([text.headers[':status'], text.body]).toEqual([200, 'seven'])
    },
  )

  it('answers 204, an empty body and HEAD without DATA, and keeps the session usable', async () => {
    const app = await start()
    const s = h2Session(app.runtime.urls.https ?? '')
    const deleted = await ask(s, 'DELETE', '/orders/7')
    expect([deleted.headers[':status'], deleted.body]).toEqual([204, ''])
    const empty = await ask(s, 'GET', '/empty')
    expect([empty.headers[':status'], empty.headers['content-length'], empty.body]).toEqual([
      200,
      '0',
      '',
    ])
    const head = await ask(s, 'HEAD', '/orders/7')
    expect([head.headers[':status'], head.headers['content-length'], head.body]).toEqual([
      200,
      '5',
      '',
    ])
    // Many streams at once on the same session, each answered.
    const many = await Promise.all(Array.from({ length: 40 }, () => ask(s, 'GET', '/orders/7')))
    expect(new Set(many.map((a) => `${a.headers[':status']} ${a.body}`))).toEqual(
      new Set(['200 seven']),
    )
  })

  it('keeps CORS headers on answers over HTTP/2', async () => {
    const app = await start({ cors: true })
    const s = h2Session(app.runtime.urls.https ?? '')
    const answer = await ask(s, 'GET', '/orders/7', { origin: 'https://app.example' })
    expect(answer.headers['access-control-allow-origin']).toBe('*')
    expect(answer.body).toBe('seven')
  })

  it('records each answer with its status and headers', async () => {
    const app = await start()
    const s = h2Session(app.runtime.urls.https ?? '')
    await ask(s, 'POST', '/orders', { 'content-type': 'application/json' }, '{}')
    await ask(s, 'DELETE', '/orders/7')
    let entries: Array<[string, string, number]> = []
    await waitFor(async () => {
      const { body } = await inspectionList(app)
      entries = body.result.map((e) => [e.operation, e.url, e.statusCode])
      return entries.length >= 2 && entries.every(([, , status]) => status !== 0)
    }, 'both answers recorded')
    expect(entries).toEqual([
      ['DELETE', '/orders/7', 204],
      ['POST', '/orders', 201],
    ])
  })
})
