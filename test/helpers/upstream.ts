import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'
import { loadTlsMaterial } from '../../src/serve/tls.js'

/** One request an upstream received, body read in full. */
export interface UpstreamRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  rawHeaders: string[]
  body: Buffer
}

/** A local node:http server standing in for a live system or a `proxyUrl` target. */
interface Upstream {
  /** `http://127.0.0.1:PORT` (`https://` with `tls`) */
  url: string
  host: string
  port: number
  /** Requests received so far, oldest first. */
  requests: UpstreamRequest[]
  close: () => Promise<void>
}

/** Answers one upstream request; the request body is already read. */
type UpstreamHandler = (req: UpstreamRequest, res: http.ServerResponse) => void

const echoJson: UpstreamHandler = (req, res) => {
  const body = Buffer.from(
    JSON.stringify({ method: req.method, url: req.url, body: req.body.toString('utf8') }),
  )
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
  res.end(body)
}

/**
 * Starts an upstream on 127.0.0.1, port 0, that records every request and answers with `handler`
 * (by default a JSON echo of method, url and body); closes it, and every connection to it, when the
 * test finishes. With `tls: true` it speaks HTTPS with a freshly generated self-signed certificate.
 *
 * @example
 * const upstream = await startUpstream((req, res) => res.end('live'))
 * // ... point proxyUrl or liveSystemPort at upstream.url / upstream.port
 * expect(upstream.requests[0]?.url).toBe('/a?b=1')
 */
export async function startUpstream(
  handler: UpstreamHandler = echoJson,
  options: { tls?: boolean } = {},
): Promise<Upstream> {
  const requests: UpstreamRequest[] = []
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const recorded: UpstreamRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      }
      requests.push(recorded)
      handler(recorded, res)
    })
  }
  const tls = options.tls === true ? await loadTlsMaterial(null, null) : null
  const server =
    tls === null
      ? http.createServer(listener)
      : https.createServer({ cert: tls.cert, key: tls.key }, listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  onTestFinished(close)
  return {
    url: `${tls === null ? 'http' : 'https'}://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    requests,
    close,
  }
}

/**
 * A port on 127.0.0.1 nothing listens on: bound on port 0, then released. Connecting to it is
 * refused (another process could take it in between, which is unlikely within one test).
 *
 * @example
 * const port = await closedPort() // fetch(`http://127.0.0.1:${port}`) fails with ECONNREFUSED
 */
export async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
