// The pass-through baseline: a bare node:http server that forwards every request to UPSTREAM
// through one undici Pool and streams the answer back (what a hand-written undici proxy does:
// the request's headers minus `host`, the upstream's status and headers, the body as it comes).
import http from 'node:http'
import { Pool, type Dispatcher } from 'undici'

const upstream = process.env['UPSTREAM'] ?? 'http://127.0.0.1:1'
const pool = new Pool(upstream)
const server = http.createServer((req, res) => {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'host' && name !== 'connection') headers[name] = value
  }
  const hasBody =
    req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined
  pool
    .request({
      method: req.method as Dispatcher.HttpMethod,
      path: req.url ?? '/',
      headers,
      body: hasBody ? req : null,
    })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(answer.headers)) {
        if (
          value !== undefined &&
          name !== 'connection' &&
          name !== 'keep-alive' &&
          name !== 'transfer-encoding'
        ) {
          out[name] = value
        }
      }
      res.writeHead(answer.statusCode, out)
      for await (const chunk of answer.body as AsyncIterable<Buffer>) res.write(chunk)
      res.end()
    })
    .catch(() => {
      res.writeHead(502)
      res.end()
    })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
