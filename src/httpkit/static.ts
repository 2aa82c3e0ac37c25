import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
}

/**
 * The headers of every page, asset and dashboard answer, wherever the dashboard is served (the
 * platform's /ui/, a runtime's /__ui/). Every page and asset is the product's own (no CDN):
 * scripts, styles, fetches and event streams only from this origin, no framing, no plugins, no
 * form posted elsewhere. Preact and uPlot set styles through the CSSOM, which a style-src policy
 * does not govern.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

interface Asset {
  body: Buffer
  gzip: Buffer | null
  type: string
}

interface StaticAssetsOptions {
  /** Rewrites a file's bytes once at load (the dashboard's links name the prefix it is served under). */
  rewrite?: (name: string, body: Buffer) => Buffer
}

/**
 * A built single-page app (`npm run build` writes the dashboard to dist/ui), loaded once into
 * memory; each file is gzipped the first time a client accepts gzip.
 *
 * @example
 * const assets = new StaticAssets(defaultUiDir())
 * assets.serve(req, res, '/app.js')
 */
export class StaticAssets {
  private readonly assets = new Map<string, Asset>()

  constructor(
    readonly dir: string,
    options: StaticAssetsOptions = {},
  ) {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const file = join(dir, name)
      if (!statSync(file).isFile()) continue
      const relative = '/' + name.split('\\').join('/')
      const read = readFileSync(file)
      const body = options.rewrite === undefined ? read : options.rewrite(relative, read)
      this.assets.set(relative, {
        body,
        gzip: null,
        type: TYPES[extname(name)] ?? 'application/octet-stream',
      })
    }
  }

  get available(): boolean {
    return this.assets.has('/index.html')
  }

  /**
   * Answers `GET /<prefix>/<file>` given `/<file>`; any other path gets index.html (the app routes
   * in the browser). 404 text when the app was not built.
   */
  serve(req: IncomingMessage, res: ServerResponse, relative: string): void {
    const asset = this.assets.get(relative) ?? this.assets.get('/index.html')
    if (asset === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS })
      res.end('The dashboard is not built: run `npm run build`.\n')
      return
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
    const body = gzip ? (asset.gzip ??= gzipSync(asset.body)) : asset.body
    const headers: Record<string, string | number> = {
      'content-type': asset.type,
      'content-length': body.length,
      // index.html is small and names the bundle: always revalidated; the rest may be cached briefly.
      'cache-control': asset.type.startsWith('text/html') ? 'no-cache' : 'max-age=300',
      vary: 'accept-encoding',
      ...SECURITY_HEADERS,
    }
    if (gzip) headers['content-encoding'] = 'gzip'
    res.writeHead(200, headers)
    res.end(req.method === 'HEAD' ? undefined : body)
  }
}

/** dist/ui of this installation: the package root is the first parent holding package.json. */
export function defaultUiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'ui')
    dir = resolve(dir, '..')
  }
  return join(process.cwd(), 'dist', 'ui')
}
