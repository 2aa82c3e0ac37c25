import { writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * A webhook on every answer does not slow the answers (the full figures at 5,000 req/s
 * come from bench/post-serve.ts). Here a few seconds at a lower rate against a real `understudy
 * run`, with a receiver that takes WEBHOOK_MS to answer each call: were the answer waiting for its
 * webhook, its latency would be at least that.
 */

const RATE = 150
const SECONDS = 3
const WEBHOOK_MS = 300

/** A webhook receiver that counts the calls and answers each after `delayMs`. */
async function slowReceiver(delayMs: number): Promise<{ url: string; count: () => number }> {
  let count = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      count++
      setTimeout(() => res.end('ok'), delayMs)
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    async () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => count }
}

function mockFile(hookUrl: string | null): string {
  const response: Record<string, unknown> = { status: 200, json: { hello: 'world' } }
  if (hookUrl !== null) {
    response['postServe'] = [
      {
        url: `${hookUrl}/hook`,
        method: 'POST',
        body: '{"path": "{{request.path}}", "status": {{response.status}} }',
      },
    ]
  }
  const file = join(tempDir('understudy-hook-load-'), 'mock.json')
  writeFileSync(
    file,
    JSON.stringify({
      transactions: [
        { dsl: { requestDsl: { method: 'GET', path: '/api/hello' }, responseDsl: response } },
      ],
    }),
  )
  return file
}

async function load(url: string): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}/api/hello`,
    connections: 20,
    overallRate: RATE,
    duration: SECONDS,
  })
}

describe('postServe under load', () => {
  it(
    'delivers a webhook for every answer while the answers stay as fast as without one',
    { timeout: 60_000 },
    async () => {
      const hook = await slowReceiver(WEBHOOK_MS)
      const plain = await startCli([
        'run',
        '--mock',
        mockFile(null),
        '--port',
        '0',
        '--log-level',
        'warn',
      ])
      const hooked = await startCli([
        'run',
        '--mock',
        mockFile(hook.url),
        '--port',
        '0',
        '--admin-port',
        '0',
        '--log-level',
        'warn',
      ])
      await hooked.waitFor('stdout', /admin on http:\/\/\S+/)
      const admin = /admin on (http:\/\/\S+)/.exec(hooked.stdout())?.[1] as string

      const without = await load(plain.url)
      const withHook = await load(hooked.url)
      const answered = withHook['2xx']
      expect(withHook.errors + withHook.non2xx).toBe(0)
      expect(answered).toBeGreaterThan(RATE * SECONDS * 0.3)

      // every answer's webhook arrives: as many as the requests the runtime answered (autocannon
      // counts only those answered within its duration)
      const served = (
        (await (await fetch(`${admin}/inspection?limit=0`)).json()) as { total: number }
      ).total
      expect(served).toBeGreaterThanOrEqual(answered)
      await waitFor(() => hook.count() >= served, `${served} webhook calls`, {
        timeoutMs: 20_000,
        intervalMs: 100,
      })
      expect(hook.count()).toBe(served)
      const stats = (await (await fetch(`${admin}/scenarios`)).json()) as {
        result: { postServe: { sent: number; failed: number; dropped: number } }
      }
      expect(stats.result.postServe).toMatchObject({ failed: 0, dropped: 0 })

      // answers never waited for their webhook (each took WEBHOOK_MS), and are within a generous
      // bound of the same load without a webhook (the machine is shared: loose on purpose)
      expect(withHook.latency.p50).toBeLessThan(WEBHOOK_MS / 2)
      expect(withHook.latency.p99).toBeLessThan(without.latency.p99 * 5 + 200)
      console.info(
        `postServe load (${RATE} req/s, ${SECONDS} s): without webhook p50 ${without.latency.p50} ms p99 ${without.latency.p99} ms; with webhook p50 ${withHook.latency.p50} ms p99 ${withHook.latency.p99} ms; ${hook.count()} webhooks received`,
      )
      await Promise.all([plain.stop(), hooked.stop()])
    },
  )
})
