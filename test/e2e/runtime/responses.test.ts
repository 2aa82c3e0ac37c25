import { describe, expect, it } from 'vitest'
import { http1Request } from '../../helpers/clients.js'
import { startServer } from '../../helpers/server.js'

/* How a matched transaction's responseDsl is written on the wire (docs/dsl.md#response-responsedsl). */

/** One transaction answering GET `path` with `responseDsl`. */
const on = (path: string, responseDsl: Record<string, unknown>) => ({
  dsl: { requestDsl: { method: 'GET', path }, responseDsl },
})

/** How many times a header name occurs among raw headers. */
const occurrences = (rawHeaders: string[], name: string): number =>
  rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name).length

describe('responses', () => {
  it('answers with the written status and reason phrase', async () => {
    const app = await startServer({
      dsl: [
        on('/made', { status: 201, statusMessage: 'Made It', text: 'ok' }),
        on('/plain', { status: 201, text: 'ok' }),
      ],
    })
    const made = await http1Request(app.url, { path: '/made' })
    expect(made.status).toBe(201)
    expect(made.statusMessage).toBe('Made It')
    expect(made.body.toString()).toBe('ok')
    const plain = await http1Request(app.url, { path: '/plain' })
    expect(plain.status).toBe(201)
    expect(plain.statusMessage).toBe('Created')
  })

  it('defaults to status 200 with an empty body and content-length 0', async () => {
    const app = await startServer({ dsl: [on('/empty', {})] })
    const res = await http1Request(app.url, { path: '/empty' })
    expect(res.status).toBe(200)
    expect(res.headers['content-length']).toBe('0')
    expect(res.body.length).toBe(0)
  })

  it('sends the written headers, repeated names included', async () => {
    const app = await startServer({
      dsl: [
        on('/h', {
          text: 'x',
          headers: [
            { name: 'X-Custom', value: 'a b' },
            { name: 'Set-Cookie', value: 'a=1' },
            { name: 'Set-Cookie', value: 'b=2' },
            { name: 'X-Number', value: 42 },
          ],
        }),
      ],
    })
    const res = await http1Request(app.url, { path: '/h' })
    expect(res.headers['x-custom']).toBe('a b')
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2'])
    expect(res.headers['x-number']).toBe('42')
    expect(res.rawHeaders).toContain('X-Custom')
  })

  it.each([
    ['json', 'application/json'],
    ['xml', 'application/xml'],
    ['text', 'text/plain'],
    ['html', 'text/html'],
    ['JSON', 'application/json'],
    ['application/pdf', 'application/pdf'],
  ])('turns contentType %s into Content-Type %s', async (contentType, expected) => {
    const app = await startServer({ dsl: [on('/c', { contentType, content: 'aGk=' })] })
    const res = await fetch(`${app.url}/c`)
    expect(res.headers.get('content-type')).toBe(expected)
    expect(await res.text()).toBe('hi')
  })

  it('appends the charset to the content type, except for binary bodies', async () => {
    const app = await startServer({
      dsl: [
        on('/text', { contentType: 'json', charset: 'UTF-8', content: 'e30=' }),
        on('/bin', {
          contentType: 'application/octet-stream',
          charset: 'UTF-8',
          binary: true,
          content: 'AAEC',
        }),
        on('/has', {
          contentType: 'text/plain; charset=latin1',
          charset: 'UTF-8',
          content: 'aGk=',
        }),
      ],
    })
    expect((await fetch(`${app.url}/text`)).headers.get('content-type')).toBe(
      'application/json; charset=UTF-8',
    )
    expect((await fetch(`${app.url}/bin`)).headers.get('content-type')).toBe(
      'application/octet-stream',
    )
    expect((await fetch(`${app.url}/has`)).headers.get('content-type')).toBe(
      'text/plain; charset=latin1',
    )
  })

  it('lets a written Content-Type win over contentType and sends it once', async () => {
    const app = await startServer({
      dsl: [
        on('/ct', {
          contentType: 'json',
          charset: 'UTF-8',
          headers: [{ name: 'content-type', value: 'application/vnd.a+json' }],
          content: 'e30=',
        }),
      ],
    })
    const res = await http1Request(app.url, { path: '/ct' })
    expect(res.headers['content-type']).toBe('application/vnd.a+json')
    expect(occurrences(res.rawHeaders, 'content-type')).toBe(1)
  })

  it('computes content-length from the body in bytes, replacing a written one', async () => {
    const app = await startServer({
      dsl: [
        on('/len', {
          text: 'héllo',
          headers: [
            { name: 'Content-Length', value: '999' },
            { name: 'Transfer-Encoding', value: 'chunked' },
          ],
        }),
      ],
    })
    const res = await http1Request(app.url, { path: '/len' })
    expect(res.status).toBe(200)
    expect(res.headers['content-length']).toBe('6')
    expect(occurrences(res.rawHeaders, 'content-length')).toBe(1)
    expect(res.headers['transfer-encoding']).toBeUndefined()
    expect(res.body.toString('utf8')).toBe('héllo')
  })

  it('decodes base64 content and returns binary bytes unchanged', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
    const app = await startServer({
      dsl: [
        on('/bytes', {
          binary: true,
          contentType: 'application/octet-stream',
          content: bytes.toString('base64'),
        }),
      ],
    })
    const res = await fetch(`${app.url}/bytes`)
    expect(res.headers.get('content-length')).toBe('256')
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes)
  })

  it('serves the text and json shorthands with their content types', async () => {
    const app = await startServer({
      dsl: [
        on('/t', { text: 'plain words' }),
        on('/j', { json: { a: [1, 'two', null], b: true } }),
        on('/n', { json: null }),
      ],
    })
    const t = await fetch(`${app.url}/t`)
    expect(t.headers.get('content-type')).toBe('text/plain')
    expect(await t.text()).toBe('plain words')
    const j = await fetch(`${app.url}/j`)
    expect(j.headers.get('content-type')).toBe('application/json')
    expect(await j.json()).toEqual({ a: [1, 'two', null], b: true })
    expect(await (await fetch(`${app.url}/n`)).text()).toBe('null')
  })

  it.each([204, 304])(
    'answers %i without a body even when the transaction has content',
    async (status) => {
      const app = await startServer({
        dsl: [on('/none', { status, text: 'ignored', headers: [{ name: 'ETag', value: '"v1"' }] })],
      })
      const res = await http1Request(app.url, { path: '/none' })
      expect(res.status).toBe(status)
      expect(res.body.length).toBe(0)
      expect(res.headers['content-length']).toBeUndefined()
      expect(res.headers['etag']).toBe('"v1"')
      // The connection stays usable: a second request on the same server is answered.
      expect((await http1Request(app.url, { path: '/none' })).status).toBe(status)
    },
  )

  it('answers repeated requests on one keep-alive connection identically', async () => {
    const app = await startServer({ dsl: [on('/k', { json: { ok: true } })] })
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${app.url}/k`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ ok: true })
    }
  })
})
