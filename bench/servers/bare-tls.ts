// The TLS baselines: a bare `node:https` server (BARE_KIND=https) or a bare `node:http2` secure
// server with the compatibility API and HTTP/1.1 fallback (BARE_KIND=h2, the same server shape
// Understudy's TLS listener uses), answering a fixed body with the headers Understudy sends.
// BARE_KIND=h2stream answers h2 streams on the 'stream' event (`stream.respond`), without the
// compatibility API's request and response objects: what answering that way would save.
// TLS_CERT and TLS_KEY name PEM files; the bench gives Understudy the same ones.
import { readFileSync } from 'node:fs'
import http2 from 'node:http2'
import https from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'

const body = Buffer.from(process.env['BARE_BODY'] ?? '{"hello":"world"}')
const headers = [
  'content-type',
  process.env['BARE_CONTENT_TYPE'] ?? 'application/json',
  'content-length',
  String(body.length),
]
const tls = {
  cert: readFileSync(process.env['TLS_CERT'] ?? ''),
  key: readFileSync(process.env['TLS_KEY'] ?? ''),
}

function answer(
  req: IncomingMessage | http2.Http2ServerRequest,
  res: ServerResponse | http2.Http2ServerResponse,
): void {
  // Requests with bodies are read to the end, as a real server must.
  if (
    req.headers['content-length'] !== undefined ||
    req.headers['transfer-encoding'] !== undefined
  ) {
    req.on('data', () => {})
    req.on('end', () => {
      res.writeHead(200, headers as unknown as http2.OutgoingHttpHeaders)
      res.end(body)
    })
    return
  }
  res.writeHead(200, headers as unknown as http2.OutgoingHttpHeaders)
  res.end(body)
}

const streamHeaders = {
  ':status': 200,
  'content-type': headers[1] as string,
  'content-length': headers[3] as string,
}

function answerStream(
  stream: http2.ServerHttp2Stream,
  requestHeaders: http2.IncomingHttpHeaders,
): void {
  if (stream.endAfterHeaders || requestHeaders['content-length'] === '0') {
    stream.respond(streamHeaders)
    stream.end(body)
    return
  }
  stream.on('data', () => {})
  stream.on('end', () => {
    stream.respond(streamHeaders)
    stream.end(body)
  })
}

function server(): https.Server | http2.Http2SecureServer {
  const kind = process.env['BARE_KIND']
  if (kind === 'h2') return http2.createSecureServer({ ...tls, allowHTTP1: true }, answer)
  if (kind !== 'h2stream') return https.createServer(tls, answer)
  const h2 = http2.createSecureServer({ ...tls, allowHTTP1: true })
  h2.on('stream', answerStream)
  return h2
}

const listening = server()
listening.listen(0, '127.0.0.1', () => {
  const address = listening.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`listening on https://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => listening.close(() => process.exit(0)))
