import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import type http from 'node:http'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InspectionCursor, type InspectionListEntry } from '../inspect/index.js'
import type { AdminTarget } from './admin-target.js'

/** How often the one shared poller reads the ring while a tab listens. */
const POLL_MS = 500

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}
const HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/**
 * The inspection part of the dashboard at `/__ui/` on a runtime's admin listener (docs/dashboard.md):
 * the same built app (dist/ui), which reads `/inspection` and `/inspection/{id}` of this listener,
 * and `/__ui/events`, Server-Sent Events of new inspection entries from one poller of the ring
 * shared by every tab (running only while one listens), lossless up to the ring's size, with a
 * `dropped` event when the ring evicted entries before they were read (src/inspect/feed.ts).
 * Nothing here touches the serve path.
 */
export class AdminUi {
  private readonly files = new Map<string, { body: Buffer; type: string }>()
  private readonly subscribers = new Set<http.ServerResponse>()
  private timer: NodeJS.Timeout | null = null
  private cursor = new InspectionCursor<InspectionListEntry>()

  constructor (private readonly target: AdminTarget, dir = defaultUiDir()) {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir)) {
      const file = join(dir, name)
      if (!statSync(file).isFile()) continue
      let body = readFileSync(file)
      // The app's own links point at /ui/; here it lives at /__ui/.
      if (name === 'index.html') body = Buffer.from(body.toString('utf8').replaceAll('"/ui/', '"/__ui/'))
      this.files.set('/' + name, { body, type: TYPES[extname(name)] ?? 'application/octet-stream' })
    }
  }

  /** Answers a request under /__ui; false for any other path. */
  handle (req: http.IncomingMessage, res: http.ServerResponse, path: string): boolean {
    if (path !== '/__ui' && !path.startsWith('/__ui/')) return false
    req.resume()
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET' })
      res.end('Method not allowed\n')
      return true
    }
    if (path === '/__ui') {
      res.writeHead(302, { location: '/__ui/' })
      res.end()
      return true
    }
    if (path === '/__ui/events') {
      this.subscribe(res)
      return true
    }
    const file = this.files.get(path.slice('/__ui'.length)) ?? this.files.get('/index.html')
    if (file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      res.end('The dashboard is not built: run `npm run build`.\n')
      return true
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length, 'cache-control': 'no-cache', ...HEADERS })
    res.end(req.method === 'HEAD' ? undefined : file.body)
    return true
  }

  /** Ends every stream (the admin listener is closing). */
  close (): void {
    for (const res of this.subscribers) res.end()
    this.subscribers.clear()
    this.stop()
  }

  private subscribe (res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' })
    res.write('retry: 2000\n\n')
    if (this.cursor.started) res.write(event('entries', this.cursor.recent))
    this.subscribers.add(res)
    res.on('close', () => {
      this.subscribers.delete(res)
      if (this.subscribers.size === 0) this.stop()
    })
    if (this.timer === null) this.schedule(0)
  }

  private schedule (delay: number): void {
    this.timer = setTimeout(() => {
      this.poll().then(() => { if (this.subscribers.size > 0) this.schedule(POLL_MS) }, () => { if (this.subscribers.size > 0) this.schedule(POLL_MS * 4) })
    }, delay)
  }

  private async poll (): Promise<void> {
    const step = await this.cursor.next(async (skip, limit) => await this.target.inspection(skip, limit))
    if (step === null || step === 'stop') return
    if (step.dropped > 0) this.broadcast(event('dropped', { count: step.dropped }))
    this.broadcast(event(step.kind, step.entries))
  }

  private broadcast (text: string): void {
    for (const res of this.subscribers) res.write(text)
  }

  private stop (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.cursor = new InspectionCursor<InspectionListEntry>()
  }
}

function event (name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

function defaultUiDir (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'ui')
    dir = resolve(dir, '..')
  }
  return join(process.cwd(), 'dist', 'ui')
}
