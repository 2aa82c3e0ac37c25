import type { ServerResponse } from 'node:http'
import { feedReplay, PolledEventStream, pollFeed } from '../../httpkit/index.js'
import { InspectionCursor } from '../../inspect/index.js'
import type { Logger } from '../../log/index.js'

/** How often one upstream poller asks the platform's analytics API for new requests. */
const POLL_MS = 500
const HEARTBEAT_MS = 15_000
/** Ids announced as kept, remembered per poller (a ring's worth). */
const KEPT_IDS = 20_000

type Entry = Record<string, unknown> & { id: number }

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
 * get a `dropped` event with how many (counted from the gap in record ids; src/inspect/feed.ts).
 *
 * A tab's stream ends when its session ends (sign out, expiry): the browser reconnects, the
 * endpoint answers 401, and the dashboard returns to sign-in.
 */
export class InspectionStreams {
  private readonly pollers = new Map<
    string,
    { stream: PolledEventStream; cursor: InspectionCursor<Entry> }
  >()

  /** Set when the platform closes: a tab reconnecting over a kept-alive socket gets no new stream. */
  private closed = false

  constructor(
    private readonly baseUrl: string,
    private readonly log: Logger,
  ) {}

  subscribe(
    res: ServerResponse,
    authorization: string,
    apiKeyId: string,
    workspaceId: number,
    mockServiceId: number,
    alive: () => boolean = () => true,
  ): void {
    if (this.closed) {
      // A stream opened now would hold its socket open and keep the closing server from ending.
      res.shouldKeepAlive = false
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
      res.end(
        JSON.stringify({
          error: { code: 'ERR_API_UNAVAILABLE', message: 'The platform is stopping.' },
        }),
      )
      return
    }
    const key = `${apiKeyId}|${workspaceId}|${mockServiceId}`
    let poller = this.pollers.get(key)
    if (poller === undefined) {
      const url = `${this.baseUrl}/reports/api/v1/workspaces/${workspaceId}/inspection-data/service-mock/${mockServiceId}`
      const cursor = new InspectionCursor<Entry>()
      const kept = new Set<number>()
      const stream: PolledEventStream = new PolledEventStream({
        intervalMs: POLL_MS,
        heartbeatMs: HEARTBEAT_MS,
        poll: async () =>
          await pollFeed(
            stream,
            cursor,
            async (skip, limit) => await this.page(stream, url, authorization, skip, limit, kept),
          ),
        onError: (err) => this.log.warn({ err }, 'dashboard inspection poll failed'),
        // A poller that stopped is forgotten: the next tab starts a new one, from the latest entries.
        onIdle: () => {
          if (this.pollers.get(key)?.stream === stream) this.pollers.delete(key)
        },
      })
      poller = { stream, cursor }
      this.pollers.set(key, poller)
    }
    poller.stream.subscribe(res, { alive, replay: feedReplay(poller.cursor) })
  }

  /** Ends every stream (the platform is closing). */
  close(): void {
    this.closed = true
    for (const { stream } of [...this.pollers.values()]) stream.end()
  }

  /** How many upstream pollers run (tests check that tabs share one). */
  get pollerCount(): number {
    return this.pollers.size
  }

  /**
   * Entries the platform kept when the mock service stopped or was redeployed come back marked
   * `previousRun`; a tab that received them live, unmarked, is told their ids (`kept`) once.
   */
  private announceKept(stream: PolledEventStream, entries: Entry[], kept: Set<number>): void {
    const fresh = entries
      .filter((e) => e['previousRun'] === true && !kept.has(e.id))
      .map((e) => e.id)
    if (fresh.length === 0) return
    if (kept.size + fresh.length > KEPT_IDS) kept.clear()
    for (const id of fresh) kept.add(id)
    stream.send('kept', fresh)
  }

  /** One page of the list, newest first; null when the stream must end; throws to retry later. */
  private async page(
    stream: PolledEventStream,
    url: string,
    authorization: string,
    skip: number,
    limit: number,
    kept: Set<number>,
  ): Promise<{ entries: Entry[]; total: number } | null> {
    const res = await fetch(`${url}?skip=${skip}&limit=${limit}`, {
      headers: { authorization },
      signal: AbortSignal.timeout(5000),
    })
    const body = (await res.json()) as {
      result?: Entry[]
      total?: number
      error?: { message?: string } | null
    }
    if (!res.ok) {
      stream.send('failure', {
        status: res.status,
        message: body.error?.message ?? `HTTP ${res.status}`,
      })
      // The caller lost access or the mock service is gone: the stream ends.
      if (res.status === 401 || res.status === 403 || res.status === 404) return null
      throw new Error(`inspection list answered ${res.status}`)
    }
    const entries = body.result ?? []
    this.announceKept(stream, entries, kept)
    return { entries, total: typeof body.total === 'number' ? body.total : entries.length }
  }
}
