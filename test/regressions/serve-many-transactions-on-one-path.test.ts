import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

const COUNT = 40_000

// Defect: the start-up check for shadowed transactions (a transaction no request can reach)
// compared each transaction with every earlier one on the same URL: 40,000 transactions on one
// path told apart by a header made 800,000,000 comparisons, and `serve` did not start within
// minutes. Earlier transactions are now indexed by one of their matchers; the check is linear.
describe('serve starts with tens of thousands of transactions on one path', () => {
  it(
    'listens, answers each by its header, and still reports a shadowed one',
    { timeout: 180_000 },
    async () => {
      const transactions = Array.from({ length: COUNT }, (_, i) => ({
        dsl: {
          requestDsl: {
            method: 'GET',
            path: '/tenant',
            headers: [{ key: 'x-tenant', matcherName: 'equals', matchingValue: String(i) }],
          },
          responseDsl: { text: `tenant ${i}` },
        },
      }))
      // the last one repeats the first: shadowed
      transactions.push({
        dsl: {
          requestDsl: {
            method: 'GET',
            path: '/tenant',
            headers: [{ key: 'x-tenant', matcherName: 'equals', matchingValue: '0' }],
          },
          responseDsl: { text: 'again' },
        },
      })
      const file = join(tempDir(), 'mock.json')
      writeFileSync(file, JSON.stringify({ transactions }))
      const server = await startCli(['serve', '--port', '0', file], { timeoutMs: 150_000 })
      expect(
        await (await fetch(`${server.url}/tenant`, { headers: { 'x-tenant': '39999' } })).text(),
      ).toBe('tenant 39999')
      // newest first: the repeated one answers, and the first is reported as never reached
      expect(
        await (await fetch(`${server.url}/tenant`, { headers: { 'x-tenant': '0' } })).text(),
      ).toBe('again')
      expect(server.stdout() + server.stderr()).toMatch(
        /transaction 0 .*can never be reached: transaction 40000/,
      )
    },
  )
})
