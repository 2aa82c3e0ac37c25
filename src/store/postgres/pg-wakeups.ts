import type * as Pg from 'pg'
import type { Logger } from '../../log/index.js'
import { WaiterHub, type Waiter, type Wakeups } from '../wakeups.js'
import { openPgClient } from './connection.js'

/** The one channel of wake-ups; the topic is the payload (short: a ship's or a call's id). */
const CHANNEL = 'understudy_wakeups'
/** Longest topic sent: NOTIFY refuses payloads of 8,000 bytes and more. */
const MAX_TOPIC = 1000
/** Waits between attempts to connect again, growing to the last. */
const RECONNECT_MS = [250, 1000, 2000, 5000]

/**
 * Wake-ups between the platform instances on one PostgreSQL database: LISTEN/NOTIFY on one
 * connection of its own per instance, which signals too (NOTIFY on it), and connects again
 * whenever it drops. A signal wakes this process's waiters at once, without the round trip;
 * the instance's own notifications coming back are skipped. While the connection is down the
 * signals of other instances are lost, so waiters poll every second meanwhile anyway (the
 * safety net) and are all woken once it is back.
 *
 * @example
 * const wakeups = new PgWakeups('postgres://understudy@db/understudy', log)
 * wakeups.signal('ship:ship-1')
 * await wakeups.close()
 */
export class PgWakeups implements Wakeups {
  readonly safetyNetMs = 1_000
  readonly #hub = new WaiterHub()
  readonly #url: string
  readonly #log: Logger | undefined
  #client: Pg.Client | undefined
  /** The backend process of the connection: notifications from it are this instance's own. */
  #backendPid: number | undefined
  #attempt = 0
  #retry: NodeJS.Timeout | undefined
  #closed = false

  constructor(url: string, log?: Logger) {
    this.#url = url
    this.#log = log
    this.#connect()
  }

  signal(topic: string): void {
    this.#hub.wake(topic)
    const client = this.#backendPid === undefined ? undefined : this.#client
    if (client === undefined || topic.length > MAX_TOPIC) return
    // Lost when the connection drops meanwhile: the other instances' slow poll finds the change.
    client.query('SELECT pg_notify($1, $2)', [CHANNEL, topic]).catch(() => {})
  }

  waiter(topic: string): Waiter {
    return this.#hub.waiter(topic)
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retry)
    this.#hub.wakeAll()
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => {})
  }

  #connect(): void {
    if (this.#closed) return
    const client = openPgClient(this.#url)
    this.#client = client
    let down = false
    const lost = (err?: Error): void => {
      if (down) return
      down = true
      this.#backendPid = undefined
      client.removeAllListeners('notification')
      client.end().catch(() => {})
      if (this.#closed) return
      if (this.#attempt === 0) {
        this.#log?.warn(
          { err },
          'the wake-ups connection to PostgreSQL dropped: connecting again (agent calls poll meanwhile)',
        )
      }
      const delay = RECONNECT_MS[Math.min(this.#attempt, RECONNECT_MS.length - 1)] ?? 5000
      this.#attempt++
      this.#retry = setTimeout(() => this.#connect(), delay)
      this.#retry.unref()
    }
    client.on('error', lost)
    client.on('end', () => lost())
    client.on('notification', (msg: Pg.Notification) => {
      if (msg.channel !== CHANNEL || msg.payload === undefined) return
      if (msg.processId === this.#backendPid) return
      this.#hub.wake(msg.payload)
    })
    client
      .connect()
      .then(async () => await client.query(`LISTEN ${CHANNEL}`))
      .then(async () => {
        const [row] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows
        if (down || this.#closed) return
        this.#backendPid = row?.pid
        if (this.#attempt > 0) this.#log?.info('the wake-ups connection to PostgreSQL is back')
        this.#attempt = 0
        // What was signalled while the connection was down was not heard: everyone looks again.
        this.#hub.wakeAll()
      })
      .catch((err: unknown) => lost(err instanceof Error ? err : new Error(String(err))))
  }
}
