import type { ServerResponse } from 'node:http'
import { InspectionCursor } from '../../inspect/index.js'
import type { Logger } from '../../log/index.js'

/** How often one upstream poller asks the platform's analytics API for new requests. */
const POLL_MS = 500
const HEARTBEAT_MS = 15_000

type Entry = Record<string, unknown> & { id: number }

interface Poller {
  key: string
  /** Each tab's stream, and whether its dashboard session is still alive. */
  subscribers: Map<ServerResponse, () => boolean>
  /** What was pushed: each poll reads back to it (src/inspect/feed.ts). */
  cursor: InspectionCursor<Entry>
  timer: NodeJS.Timeout | null
  heartbeat: NodeJS.Timeout
  stopped: boolean
}

/**
 * Live inspection for the dashboard as Server-Sent Events. There is one poller per mock service
 * and API key, shared by every tab subscribed to it, and it runs only while a tab listens: it
 * reads `/reports/api/v1/.../inspection-data/service-mock/{id}` (the public analytics API, with the
 * session's own credentials, so the same authorization applies) and pushes entries newer than the
 * last one it saw. The runtime's inspection ring stays the only source; a tab never polls.
 *
 * Lossless up to the ring's size: each poll reads pages (newest first, 1000 a page) back to the
 * last entry it had pushed, so a burst of any size between two polls is delivered whole. When the
 * ring evicted entries before they were read (the last pushed entry is no longer in it), the tabs
 * get a `dropped` event with how many (counted from the gap in record ids).
 *
 * A tab's stream ends when its session ends (sign out, expiry): the browser reconnects, the
 * endpoint answers 401, and the dashboard returns to sign-in.
 */
export class InspectionStreams {
  private readonly pollers = new Map<string, Poller>()

  constructor (private readonly baseUrl: string, private readonly log: Logger) {}

  subscribe (res: ServerResponse, authorization: string, apiKeyId: string, workspaceId: number, mockServiceId: number, alive: () => boolean = () => true): void {
    const key = `${apiKeyId}|${workspaceId}|${mockServiceId}`
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    res.write('retry: 2000\n\n')
    let poller = this.pollers.get(key)
    if (poller === undefined) {
      poller = {
        key,
        subscribers: new Map(),
        cursor: new InspectionCursor<Entry>(),
        timer: null,
        heartbeat: setInterval(() => this.broadcast(poller as Poller, ': ping\n\n'), HEARTBEAT_MS),
        stopped: false,
      }
      this.pollers.set(key, poller)
      const started = poller
      this.schedule(started, `${this.baseUrl}/reports/api/v1/workspaces/${workspaceId}/inspection-data/service-mock/${mockServiceId}`, authorization, 0)
    } else if (poller.cursor.started) {
      res.write(event('entries', poller.cursor.recent))
    }
    poller.subscribers.set(res, alive)
    const owner = poller
    res.on('close', () => {
      owner.subscribers.delete(res)
      if (owner.subscribers.size === 0) this.stop(owner)
    })
  }

  /** Ends every stream (the platform is closing). */
  close (): void {
    for (const poller of this.pollers.values()) {
      for (const res of poller.subscribers.keys()) res.end()
      this.stop(poller)
    }
  }

  /** Ends the streams whose session ended; the last one leaving stops the poller. */
  private endDeadSessions (poller: Poller): void {
    for (const [res, alive] of poller.subscribers) if (!alive()) res.end()
  }

  /** How many upstream pollers run (tests check that tabs share one). */
  get pollerCount (): number {
    return this.pollers.size
  }

  private schedule (poller: Poller, url: string, authorization: string, delay: number): void {
    poller.timer = setTimeout(() => {
      this.endDeadSessions(poller)
      if (poller.stopped || poller.subscribers.size === 0) return
      this.poll(poller, url, authorization).then(
        (keep) => { if (keep && !poller.stopped) this.schedule(poller, url, authorization, POLL_MS) },
        (err: unknown) => {
          this.log.warn({ err }, 'dashboard inspection poll failed')
          if (!poller.stopped) this.schedule(poller, url, authorization, POLL_MS * 4)
        },
      )
    }, delay)
  }

  /** One page of the list, newest first; null when the stream must end (it is ended here); throws to retry later. */
  private async page (poller: Poller, url: string, authorization: string, skip: number, limit: number): Promise<{ entries: Entry[]; total: number } | null> {
    const res = await fetch(`${url}?skip=${skip}&limit=${limit}`, { headers: { authorization }, signal: AbortSignal.timeout(5000) })
    const body = await res.json() as { result?: Entry[]; total?: number; error?: { message?: string } | null }
    if (!res.ok) {
      this.broadcast(poller, event('failure', { status: res.status, message: body.error?.message ?? `HTTP ${res.status}` }))
      if (res.status === 401 || res.status === 403 || res.status === 404) {
        for (const sub of poller.subscribers.keys()) sub.end()
        this.stop(poller)
        return null
      }
      throw new Error(`inspection list answered ${res.status}`)
    }
    const entries = body.result ?? []
    return { entries, total: typeof body.total === 'number' ? body.total : entries.length }
  }

  /** One poll; false when the stream must end (the caller lost access or the mock service is gone). */
  private async poll (poller: Poller, url: string, authorization: string): Promise<boolean> {
    const step = await poller.cursor.next(async (skip, limit) => await this.page(poller, url, authorization, skip, limit))
    if (step === 'stop') return false
    if (step === null) return true
    if (step.dropped > 0) this.broadcast(poller, event('dropped', { count: step.dropped }))
    this.broadcast(poller, event(step.kind, step.entries))
    return true
  }

  private broadcast (poller: Poller, text: string): void {
    for (const res of poller.subscribers.keys()) res.write(text)
  }

  private stop (poller: Poller): void {
    poller.stopped = true
    if (poller.timer !== null) clearTimeout(poller.timer)
    clearInterval(poller.heartbeat)
    if (this.pollers.get(poller.key) === poller) this.pollers.delete(poller.key)
  }
}

function event (name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}
