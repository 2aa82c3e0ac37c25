import type { ServerResponse } from 'node:http'

/** What a browser waits before it reconnects a dropped stream. */
const RETRY_MS = 2000

/** One Server-Sent Event. */
function eventText(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

interface PolledEventStreamOptions {
  /**
   * One poll, which sends what it found (`send`). Resolves false when the stream must end (every
   * listener is then ended); rejects to be retried after four intervals.
   */
  poll: () => Promise<boolean>
  /** Between two polls. */
  intervalMs: number
  /** A comment line this often, so that proxies do not close a quiet stream (absent: none). */
  heartbeatMs?: number
  /** A poll that failed (it is retried). */
  onError?: (err: unknown) => void
  /** The last listener left or the stream ended: the poller has stopped (reset what it remembers). */
  onIdle?: () => void
}

/**
 * Server-Sent Events to any number of listeners (browser tabs), fed by one poller that runs only
 * while someone listens: the dashboard's live updates, on the platform and on a runtime's admin
 * listener. Each listener may carry a test of whether it may still listen (its session is alive),
 * checked before each poll; a listener that fails it is ended.
 *
 * @example
 * const stream = new PolledEventStream({ intervalMs: 500, poll: async () => { stream.send('entries', await next()); return true } })
 * stream.subscribe(res)
 */
export class PolledEventStream {
  private readonly listeners = new Map<ServerResponse, () => boolean>()
  private timer: NodeJS.Timeout | null = null
  private heartbeat: NodeJS.Timeout | null = null
  private running = false
  /** Grows at each stop, so that a poll in flight across a stop and a restart does not schedule twice. */
  private generation = 0

  constructor(private readonly options: PolledEventStreamOptions) {}

  /** Opens the stream on `res`, sends `replay` (what a joining tab has missed) and starts the poller if idle. */
  subscribe(
    res: ServerResponse,
    { alive = () => true, replay }: { alive?: () => boolean; replay?: string | undefined } = {},
  ): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    res.write(`retry: ${RETRY_MS}\n\n`)
    if (replay !== undefined) res.write(replay)
    this.listeners.set(res, alive)
    res.on('close', () => {
      this.listeners.delete(res)
      if (this.listeners.size === 0) this.stop()
    })
    if (!this.running) this.start()
  }

  /** Sends one event to every listener. */
  send(name: string, data: unknown): void {
    this.write(eventText(name, data))
  }

  /** Ends every listener's stream and stops the poller. */
  end(): void {
    for (const res of this.listeners.keys()) res.end()
    this.stop()
  }

  /** How many listeners are connected. */
  get size(): number {
    return this.listeners.size
  }

  private write(text: string): void {
    for (const res of this.listeners.keys()) res.write(text)
  }

  private start(): void {
    this.running = true
    if (this.options.heartbeatMs !== undefined) {
      this.heartbeat = setInterval(() => this.write(': ping\n\n'), this.options.heartbeatMs)
    }
    this.schedule(0)
  }

  private schedule(delay: number): void {
    const generation = this.generation
    this.timer = setTimeout(() => {
      for (const [res, alive] of this.listeners) if (!alive()) res.end()
      if (!this.running || this.listeners.size === 0) return
      this.options.poll().then(
        (keep) => {
          if (generation !== this.generation) return
          if (keep) this.schedule(this.options.intervalMs)
          else this.end()
        },
        (err: unknown) => {
          this.options.onError?.(err)
          if (generation === this.generation) this.schedule(this.options.intervalMs * 4)
        },
      )
    }, delay)
  }

  private stop(): void {
    if (!this.running) return
    this.running = false
    this.generation++
    if (this.timer !== null) clearTimeout(this.timer)
    if (this.heartbeat !== null) clearInterval(this.heartbeat)
    this.timer = null
    this.heartbeat = null
    this.options.onIdle?.()
  }
}

/** What one step of a feed found (src/inspect's InspectionCursor is one such cursor). */
interface FeedStep<E> {
  kind: string
  entries: E[]
  dropped: number
}

/** A cursor over a list read newest first, delivering each entry once. */
interface FeedCursor<E> {
  readonly started: boolean
  readonly recent: readonly E[]
  next: (
    read: (skip: number, limit: number) => Promise<{ entries: readonly E[]; total: number } | null>,
  ) => Promise<FeedStep<E> | null | 'stop'>
}

/**
 * One poll of a feed into a stream: a `dropped` event first when entries were evicted unread, then
 * the new entries (`entries`, or `reset` for a new journal). False when the feed must stop.
 */
export async function pollFeed<E>(
  stream: PolledEventStream,
  cursor: FeedCursor<E>,
  read: (skip: number, limit: number) => Promise<{ entries: readonly E[]; total: number } | null>,
): Promise<boolean> {
  const step = await cursor.next(read)
  if (step === 'stop') return false
  if (step === null) return true
  if (step.dropped > 0) stream.send('dropped', { count: step.dropped })
  stream.send(step.kind, step.entries)
  return true
}

/** What a tab joining a running feed gets first: the latest entries delivered, if any. */
export function feedReplay<E>(cursor: FeedCursor<E>): string | undefined {
  return cursor.started ? eventText('entries', cursor.recent) : undefined
}
