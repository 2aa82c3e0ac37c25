import { describe, expect, it, onTestFinished } from 'vitest'
import { LocalWakeups, PgWakeups } from '../../../src/store/index.js'
import { freshPgDatabase, hasPostgres } from '../../helpers/postgres.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Wake-ups between platform instances: in process, a signal reaches the waiters of its topic only,
 * and one sent before the wait is not missed; on PostgreSQL a signal of one instance wakes the
 * waiters of another, and does again after the listening connection was cut.
 */

/** Whether the waiter is woken within `ms` (its own wait would end much later). */
async function wokenWithin(wait: Promise<void>, ms: number): Promise<boolean> {
  return await Promise.race([
    wait.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ])
}

describe('LocalWakeups', () => {
  it('wakes the waiters of a topic only, and keeps a signal that came before the wait', async () => {
    const wakeups = new LocalWakeups()
    const ship = wakeups.waiter('ship:a')
    const other = wakeups.waiter('ship:b')
    wakeups.signal('ship:a')
    expect(await wokenWithin(ship.wait(60_000), 1000)).toBe(true)
    const otherWait = other.wait(60_000)
    expect(await wokenWithin(otherWait, 200)).toBe(false)
    // Closed, a waiter hears nothing more; its wait ends.
    other.close()
    await otherWait
    const abort = new AbortController()
    const aborted = ship.wait(60_000, abort.signal)
    abort.abort()
    expect(await wokenWithin(aborted, 1000)).toBe(true)
    ship.close()
    await wakeups.close()
  })
})

describe.skipIf(!hasPostgres)('PgWakeups', () => {
  it('wakes the waiters of another instance, and again once its connection is back', async () => {
    const url = await freshPgDatabase()
    if (url === undefined) return
    const a = new PgWakeups(url)
    const b = new PgWakeups(url)
    onTestFinished(async () => {
      await a.close()
      await b.close()
    })
    const waiter = b.waiter('answer:call-1')
    onTestFinished(() => waiter.close())
    // Until both connections listen a signal may go unheard: signal until one is heard.
    const heard = async (): Promise<void> => {
      await waitFor(
        async () => {
          a.signal('answer:call-1')
          return await wokenWithin(waiter.wait(60_000), 300)
        },
        'the signal of instance A at instance B',
        { timeoutMs: 20_000, intervalMs: 0 },
      )
    }
    await heard()
    // Another topic does not wake it.
    a.signal('answer:call-2')
    expect(await wokenWithin(waiter.wait(60_000), 300)).toBe(false)

    // Every connection but the test's own is cut, as a database restart or failover would.
    const { default: pg } = await import('pg')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    } finally {
      await admin.end()
    }
    // B wakes every waiter once it listens again; after that only A's NOTIFY can wake it.
    await heard()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await wokenWithin(waiter.wait(60_000), 100)
    await heard()
  }, 60_000)
})
