import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
const LISTEN_BACKLOG = 65_535
import { startServer } from '../helpers/server.js'
import { burst, ticketRace } from '../helpers/traffic.js'

/*
 * A runtime listened with Node's default backlog of 511: a burst of more connections than that at
 * once (a load test's ramp, the 1,000-request scenario race) overflowed the kernel's accept queue,
 * the kernel answered some handshakes with SYN cookies, and under load a client saw its
 * connection reset (`read ECONNRESET` in a 1,000-connection test). The listening socket now asks
 * for the kernel's largest queue.
 */

/** The accept queue of the socket listening on `port`, as the kernel reports it (ss's Send-Q). */
function acceptQueueOf(port: number): number {
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim()
  return Number(line.split(/\s+/)[2])
}

function hasSs(): boolean {
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('the runtime listens with room for bursts of connections', () => {
  it.runIf(process.platform === 'linux' && hasSs())(
    'asks the kernel for an accept queue as large as it allows, not 511',
    async () => {
      const app = await startServer({ dsl: [] })
      const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))
      const expected = Math.min(LISTEN_BACKLOG, somaxconn)
      expect(expected).toBeGreaterThan(511)
      expect(acceptQueueOf(Number(new URL(app.url).port))).toBe(expected)
    },
  )

  it('answers every request of a burst of 1,500 connections', async () => {
    const app = await startServer({ yaml: `transactions:\n${ticketRace}` })
    const counts = await burst(app.url, 1500)
    expect(counts.get(201)).toBe(1)
    expect(counts.get(409)).toBe(1499)
  })
})
