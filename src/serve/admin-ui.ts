import type http from 'node:http'
import {
  defaultUiDir,
  feedReplay,
  PolledEventStream,
  pollFeed,
  StaticAssets,
} from '../httpkit/index.js'
import { InspectionCursor, type InspectionListEntry } from '../inspect/index.js'
import type { AdminTarget } from './admin-target.js'

/** How often the one shared poller reads the ring while a tab listens. */
const POLL_MS = 500

/**
 * The inspection part of the dashboard at `/__ui/` on a runtime's admin listener (docs/dashboard.md):
 * the same built app (dist/ui) with the same security headers as the platform's /ui/, which reads
 * `/inspection` and `/inspection/{id}` of this listener, and `/__ui/events`, Server-Sent Events of
 * new inspection entries from one poller of the ring shared by every tab (running only while one
 * listens), lossless up to the ring's size, with a `dropped` event when the ring evicted entries
 * before they were read (src/inspect/feed.ts). Nothing here touches the serve path.
 */
export class AdminUi {
  private readonly assets: StaticAssets
  private readonly stream: PolledEventStream
  private cursor = new InspectionCursor<InspectionListEntry>()

  constructor(
    private readonly target: AdminTarget,
    dir = defaultUiDir(),
  ) {
    // The app's own links point at /ui/; here it lives at /__ui/.
    this.assets = new StaticAssets(dir, {
      rewrite: (name, body) =>
        name === '/index.html'
          ? Buffer.from(body.toString('utf8').replaceAll('"/ui/', '"/__ui/'))
          : body,
    })
    this.stream = new PolledEventStream({
      intervalMs: POLL_MS,
      poll: async () =>
        await pollFeed(
          this.stream,
          this.cursor,
          async (skip, limit) => await this.target.inspection(skip, limit),
        ),
      // The next tab starts from the latest entries again.
      onIdle: () => {
        this.cursor = new InspectionCursor<InspectionListEntry>()
      },
    })
  }

  /** Answers a request under /__ui; false for any other path. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, path: string): boolean {
    if (path !== '/__ui' && !path.startsWith('/__ui/')) return false
    req.resume()
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' })
      res.end('Method not allowed\n')
      return true
    }
    if (path === '/__ui') {
      res.writeHead(302, { location: '/__ui/' })
      res.end()
      return true
    }
    if (path === '/__ui/events') {
      this.stream.subscribe(res, { replay: feedReplay(this.cursor) })
      return true
    }
    this.assets.serve(req, res, path === '/__ui/' ? '/index.html' : path.slice('/__ui'.length))
    return true
  }

  /** Ends every stream (the admin listener is closing). */
  close(): void {
    this.stream.end()
  }
}
