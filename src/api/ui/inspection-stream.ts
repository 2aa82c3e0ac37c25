import type { ServerResponse } from 'node:http'
import type { Logger } from '../../log/index.js'

/** How often one upstream poller asks the platform's analytics API for new requests. */
const POLL_MS = 500
const HEARTBEAT_MS = 15_000
/** Entries replayed to a tab that joins a running poller, and asked of each poll. */
const RECENT = 100

type Entry = Record<string, unknown> & { id: number }

interface Poller {
  key: string
  subscribers: Set<ServerResponse>
  recent: Entry[]
  lastId: number
  /** Ids already pushed (entries come newest first, and one in flight is pushed when it completes). */
  sent: Set<number>
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
 */
export class InspectionStreams {
  private readonly pollers = new Map<string, Poller>()

  constructor (private readonly baseUrl: string, private readonly log: Logger) {}

  subscribe (res: ServerResponse, authorization: string, apiKeyId: string, workspaceId: number, mockServiceId: number): void {
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
        subscribers: new Set(),
        recent: [],
        lastId: -1,
        sent: new Set(),
        timer: null,
        heartbeat: setInterval(() => this.broadcast(poller as Poller, ': ping\n\n'), HEARTBEAT_MS),
        stopped: false,
      }
      this.pollers.set(key, poller)
      const started = poller
      this.schedule(started, `${this.baseUrl}/reports/api/v1/workspaces/${workspaceId}/inspection-data/service-mock/${mockServiceId}?limit=${RECENT}`, authorization, 0)
    } else if (poller.lastId >= 0) {
      res.write(event('entries', poller.recent))
    }
    poller.subscribers.add(res)
    const owner = poller
    res.on('close', () => {
      owner.subscribers.delete(res)
      if (owner.subscribers.size === 0) this.stop(owner)
    })
  }

  /** Ends every stream (the platform is closing). */
  close (): void {
    for (const poller of this.pollers.values()) {
      for (const res of poller.subscribers) res.end()
      this.stop(poller)
    }
  }

  /** How many upstream pollers run (tests check that tabs share one). */
  get pollerCount (): number {
    return this.pollers.size
  }

  private schedule (poller: Poller, url: string, authorization: string, delay: number): void {
    poller.timer = setTimeout(() => {
      this.poll(poller, url, authorization).then(
        (keep) => { if (keep && !poller.stopped) this.schedule(poller, url, authorization, POLL_MS) },
        (err: unknown) => {
          this.log.warn({ err }, 'dashboard inspection poll failed')
          if (!poller.stopped) this.schedule(poller, url, authorization, POLL_MS * 4)
        },
      )
    }, delay)
  }

  /** One poll; false when the stream must end (the caller lost access or the mock service is gone). */
  private async poll (poller: Poller, url: string, authorization: string): Promise<boolean> {
    const res = await fetch(url, { headers: { authorization }, signal: AbortSignal.timeout(5000) })
    const body = await res.json() as { result?: Entry[]; error?: { message?: string } | null }
    if (!res.ok) {
      this.broadcast(poller, event('failure', { status: res.status, message: body.error?.message ?? `HTTP ${res.status}` }))
      if (res.status === 401 || res.status === 403 || res.status === 404) {
        for (const sub of poller.subscribers) sub.end()
        this.stop(poller)
        return false
      }
      return true
    }
    // A record still in flight (status 0) is sent once it completes, so it shows its outcome.
    const entries = (body.result ?? []).filter((e) => typeof e['statusCode'] !== 'number' || e['statusCode'] > 0)
    const newest = entries[0]?.id ?? 0
    const first = poller.lastId < 0
    // A restarted runtime starts its ids again: a list whose newest id went down is a new journal.
    if (!first && entries.length > 0 && newest < poller.lastId) {
      poller.recent = entries.slice(0, RECENT)
      poller.sent = new Set(entries.map((e) => e.id))
      poller.lastId = newest
      this.broadcast(poller, event('reset', poller.recent))
      return true
    }
    const fresh = entries.filter((e) => !poller.sent.has(e.id))
    for (const e of fresh) poller.sent.add(e.id)
    if (poller.sent.size > RECENT * 4) poller.sent = new Set(entries.map((e) => e.id))
    poller.lastId = Math.max(poller.lastId, newest, 0)
    if (fresh.length > 0 || first) {
      poller.recent = [...fresh, ...poller.recent].sort((a, b) => b.id - a.id).slice(0, RECENT)
      this.broadcast(poller, event('entries', fresh))
    }
    return true
  }

  private broadcast (poller: Poller, text: string): void {
    for (const res of poller.subscribers) res.write(text)
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
