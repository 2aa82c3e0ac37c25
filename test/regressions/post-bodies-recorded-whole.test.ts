import http from 'node:http'
import type http2 from 'node:http2'
import { describe, expect, it, onTestFinished } from 'vitest'
import { inspectionDetail, inspectionList } from '../helpers/admin.js'
import { h2Session } from '../helpers/clients.js'
import { startServer, type TestServer } from '../helpers/server.js'

/*
 * A request body is kept by reference while it is matched (one chunk: no copy), and the
 * inspection record takes its own copy. Bodies that arrive in several chunks, on either protocol,
 * must match and be recorded whole; records read after many more requests on the same
 * connections (whose buffers the client and server reuse) must still show each request's own body.
 */

const dsl = {
  transactions: [
    {
      dsl: {
        requestDsl: {
          method: 'POST',
          path: '/pets',
          body: [{ key: '$.kind', matcherName: 'equals', matchingValue: 'dog' }],
        },
        responseDsl: { status: 201, text: 'stored' },
      },
    },
  ],
}

async function start(options: Record<string, unknown> = {}): Promise<TestServer> {
  return await startServer({ dsl, options: { tlsPort: 0, ...options }, admin: true })
}

const pause = async (ms: number): Promise<void> =>
  await new Promise((resolve) => setTimeout(resolve, ms))

/** Writes each piece, pausing after it so that each leaves as its own chunk or frame, then ends. */
async function writeSlowly(
  target: { write: (piece: string) => unknown; end: () => unknown },
  pieces: string[],
): Promise<void> {
  for (const piece of pieces) {
    target.write(piece)
    await pause(30)
  }
  target.end()
}

/** An HTTP/1.1 POST whose body goes out as chunks, with a pause after each. */
async function chunkedPost(
  url: string,
  pieces: string[],
  agent?: http.Agent,
): Promise<{ status: number; body: string }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/pets`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    writeSlowly(req, pieces).catch(reject)
  })
}

/** An h2 POST on `session` whose body goes out as DATA frames, with a pause after each. */
async function h2Post(
  session: http2.ClientHttp2Session,
  pieces: string[],
): Promise<{ status: number; body: string }> {
  return await new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/pets',
      'content-type': 'application/json',
    })
    let status = 0
    let text = ''
    stream.on('response', (h) => (status = Number(h[':status'])))
    stream.setEncoding('utf8')
    stream.on('data', (c: string) => (text += c))
    stream.on('end', () => resolve({ status, body: text }))
    stream.on('error', reject)
    writeSlowly(stream, pieces).catch(reject)
  })
}

/** The request bodies of the newest `count` records, oldest first. */
async function recordedBodies(app: TestServer, count: number): Promise<string[]> {
  const { body } = await inspectionList(app, 0, count)
  const bodies: string[] = []
  for (const entry of body.result.reverse()) {
    const detail = await inspectionDetail(app, entry.id)
    bodies.push(detail.body.result?.requestBody ?? '<none>')
  }
  return bodies
}

describe('request bodies, matched and recorded whole', () => {
  it('matches and records an HTTP/1.1 body sent in several chunks', async () => {
    const app = await start()
    const pieces = ['{"ki', 'nd":"d', 'og","name":"Rex"}']
    expect(await chunkedPost(app.url, pieces)).toEqual({ status: 201, body: 'stored' })
    expect(await recordedBodies(app, 1)).toEqual([pieces.join('')])
  })

  it('matches and records an HTTP/2 body sent in several DATA frames', async () => {
    const app = await start()
    const session = h2Session(app.runtime.urls.https ?? '')
    const pieces = ['{"kind":', '"dog",', '"name":"Rex"}']
    expect(await h2Post(session, pieces)).toEqual({ status: 201, body: 'stored' })
    expect(await recordedBodies(app, 1)).toEqual([pieces.join('')])
  })

  it('records an announced but empty body as empty, and does not match it', async () => {
    const app = await start()
    expect((await chunkedPost(app.url, [])).status).toBe(404)
    const { body } = await inspectionList(app, 0, 1)
    const detail = await inspectionDetail(app, body.result[0]?.id ?? -1)
    expect(detail.body.result).toMatchObject({ requestBody: '', requestBodyTruncated: false })
  })

  it('keeps each request its own body after many more on the same connections', async () => {
    const app = await start()
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    onTestFinished(() => agent.destroy())
    const session = h2Session(app.runtime.urls.https ?? '')
    const sent: string[] = []
    for (let i = 0; i < 40; i++) {
      const body = JSON.stringify({ kind: 'dog', n: i, pad: String(i).repeat(i % 7) })
      sent.push(body)
      const answer =
        i % 2 === 0
          ? await fetch(`${app.url}/pets`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            }).then(async (r) => ({ status: r.status, body: await r.text() }))
          : await h2Post(session, [body])
      expect(answer).toEqual({ status: 201, body: 'stored' })
    }
    // A few multi-chunk bodies in between, on the keep-alive connection.
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ kind: 'dog', late: i })
      sent.push(body)
      expect((await chunkedPost(app.url, [body.slice(0, 5), body.slice(5)], agent)).status).toBe(
        201,
      )
    }
    expect(await recordedBodies(app, sent.length)).toEqual(sent)
  })
})
