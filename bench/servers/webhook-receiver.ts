// A webhook receiver for bench/post-serve.ts: counts the calls it receives (GET /count answers the
// number) and answers each at once with 204.
import http from 'node:http'

let received = 0
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.end(String(received))
    return
  }
  req.resume()
  req.on('end', () => {
    received++
    res.writeHead(204)
    res.end()
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
