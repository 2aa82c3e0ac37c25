// The TLS baselines: a bare `node:https` server (BARE_KIND=https) or a bare `node:http2` secure
// server with the compatibility API and HTTP/1.1 fallback (BARE_KIND=h2, the same server shape
// Understudy's TLS listener uses), answering a fixed body with the headers Understudy sends.
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

const server =
  process.env['BARE_KIND'] === 'h2'
    ? http2.createSecureServer({ ...tls, allowHTTP1: true }, answer)
    : https.createServer(tls, answer)
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`listening on https://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
