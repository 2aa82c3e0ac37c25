// The baseline of every benchmark: bare node:http answering a fixed body, with the same response
// headers Understudy sends for the scenario's transaction (content-type and content-length).
import http from 'node:http'

const body = Buffer.from(process.env['BARE_BODY'] ?? '{"hello":"world"}')
const headers = [
  'content-type',
  process.env['BARE_CONTENT_TYPE'] ?? 'application/json',
  'content-length',
  String(body.length),
]
const server = http.createServer((req, res) => {
  // Requests with bodies are read to the end, as a real server must.
  if (
    req.headers['content-length'] !== undefined ||
    req.headers['transfer-encoding'] !== undefined
  ) {
    req.on('data', () => {})
    req.on('end', () => {
      res.writeHead(200, headers)
      res.end(body)
    })
    return
  }
  res.writeHead(200, headers)
  res.end(body)
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
