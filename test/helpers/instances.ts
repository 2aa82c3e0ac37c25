import { randomBytes } from 'node:crypto'
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'
import { startCli, type CliServer } from './cli.js'
import { tempDir } from './temp-dir.js'

/** One `understudy platform` process of a group sharing a PostgreSQL database. */
interface PlatformInstance {
  url: string
  dataDir: string
  server: CliServer
}

/** Several platform instances on one database, behind a round-robin proxy. */
export interface PlatformInstances {
  instances: PlatformInstance[]
  /** The proxy's URL: what a load balancer's clients call. */
  url: string
  proxy: RoundRobinProxy
  /** `Authorization` of the bootstrap API key every instance was started with. */
  auth: string
  apiKeyId: string
  accountId: number
  workspaceId: number
}

/**
 * Starts `count` platform processes (`dist/src/cli/main.js platform`) on the PostgreSQL database
 * `store`, each on 127.0.0.1:0 with a data dir of its own and the same bootstrap key, one after
 * the other (the first creates the bootstrap account, the others find it), and a round-robin proxy
 * in front of them. `args` go to every instance's command line after the others. Everything is
 * stopped when the test finishes.
 *
 * @example
 * const group = await startPlatformInstances(2, await requirePgDatabase())
 * await fetch(`${group.url}/api/v4/user`, { headers: { authorization: group.auth } })
 */
export async function startPlatformInstances(
  count: number,
  store: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<PlatformInstances> {
  const apiKeyId = `ha-${randomBytes(4).toString('hex')}`
  const apiKeySecret = randomBytes(16).toString('hex')
  const instances: PlatformInstance[] = []
  for (let i = 0; i < count; i++) {
    const dataDir = tempDir(`understudy-instance-${i}-`)
    const server = await startCli(
      [
        'platform',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--store',
        store,
        ...args,
      ],
      {
        env: {
          UNDERSTUDY_API_KEY_ID: apiKeyId,
          UNDERSTUDY_API_KEY_SECRET: apiKeySecret,
          ...env,
        },
        timeoutMs: 30_000,
      },
    )
    instances.push({ url: server.url, dataDir, server })
  }
  const proxy = await startRoundRobinProxy(instances.map((i) => i.url))
  onTestFinished(async () => await proxy.close())
  const auth = `Basic ${Buffer.from(`${apiKeyId}:${apiKeySecret}`).toString('base64')}`
  const first = instances[0]
  if (first === undefined) throw new Error('no instance started')
  const res = await fetch(`${first.url}/api/v4/user`, { headers: { authorization: auth } })
  const body = (await res.json()) as {
    result?: { accountId: number; defaultProject?: { workspaceId: number } }
  }
  const workspaceId = body.result?.defaultProject?.workspaceId
  if (body.result === undefined || workspaceId === undefined) {
    throw new Error('the bootstrap account or workspace is missing')
  }
  return {
    instances,
    url: proxy.url,
    proxy,
    auth,
    apiKeyId,
    accountId: body.result.accountId,
    workspaceId,
  }
}

/** A load balancer for tests: round robin over upstreams, dropping those that refuse connections. */
interface RoundRobinProxy {
  url: string
  /** Upstreams still in the rotation. */
  live: () => string[]
  /** Which upstream answered each request, in order. */
  answeredBy: string[]
  close: () => Promise<void>
}

/**
 * A small HTTP load balancer on 127.0.0.1:0 (node:http only). Requests go to the upstreams in
 * turn; answers stream back as they come (Server-Sent Events included). A request body is read
 * whole first, so that a request whose connection an upstream refuses (the process is gone) can be
 * sent, whatever its method, to the next upstream: a refused connection delivered nothing, so
 * nothing can happen twice. The refusing upstream leaves the rotation. Any other failure (a
 * connection reset while the upstream had the request) is answered 502 and never retried: the
 * upstream may have acted on it, and the client decides.
 */
async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  const live = [...upstreams]
  const answeredBy: string[] = []
  let next = 0

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    tried: Set<string>,
  ): void {
    const candidates = live.filter((u) => !tried.has(u))
    const upstream = candidates[next++ % Math.max(1, candidates.length)]
    if (upstream === undefined) {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end('no live upstream')
      return
    }
    tried.add(upstream)
    const target = new URL(req.url ?? '/', upstream)
    const headers = { ...req.headers, host: target.host }
    delete headers['content-length']
    delete headers['transfer-encoding']
    if (body.length > 0 || !['GET', 'HEAD'].includes(req.method ?? 'GET')) {
      headers['content-length'] = String(body.length)
    }
    const out = httpRequest(
      target,
      { method: req.method, headers, agent: false },
      (upstreamRes: IncomingMessage) => {
        answeredBy.push(upstream)
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers)
        upstreamRes.pipe(res)
        res.on('close', () => upstreamRes.destroy())
      },
    )
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') {
        const at = live.indexOf(upstream)
        if (at !== -1) live.splice(at, 1)
        forward(req, res, body, tried)
        return
      }
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' })
        res.end(`upstream failed: ${err.code ?? err.message}`)
      } else {
        res.destroy()
      }
    })
    out.end(body)
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    live: () => [...live],
    answeredBy,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
