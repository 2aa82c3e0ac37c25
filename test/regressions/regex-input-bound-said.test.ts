import { describe, expect, it } from 'vitest'
import { startServer } from '../helpers/server.js'
import { adminCall } from '../helpers/admin.js'
import { startCli } from '../helpers/cli.js'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers/temp-dir.js'

interface Miss {
  failed: Array<{ part: string; matcherName: string; actual: string | null; reason?: string }>
}

const dsl = {
  transactions: [
    {
      name: 'orders',
      dsl: {
        requestDsl: {
          method: 'POST',
          path: '/orders',
          body: [{ matcherName: 'matches', matchingValue: '[a-z]+' }],
        },
        responseDsl: { text: 'ok' },
      },
    },
  ],
}

// Defect: a regex matcher given a value over the 65,536-character bound failed as a plain "no
// match": the near miss showed the regex and the start of the body, not that the bound was hit.
describe('a regex input past the bound is said in the near miss and counted once', () => {
  it('names the bound in the near miss; /health counts the request once, not again for the diagnosis', async () => {
    const app = await startServer({ dsl, admin: true })
    const health = async (): Promise<number> =>
      (await adminCall<{ oversizeRegexInputs: number }>(app, 'GET', '/health')).body.result
        .oversizeRegexInputs
    const before = await health()

    const res = await fetch(`${app.url}/orders`, { method: 'POST', body: 'a'.repeat(70_000) })
    expect(res.status).toBe(404)
    const body = (await res.json()) as { nearMisses: Miss[] }
    const failed = body.nearMisses[0]?.failed[0]
    expect(failed?.matcherName).toBe('matches')
    expect(failed?.reason).toContain('longer than the 65,536 characters a regex is run on')
    expect(await health()).toBe(before + 1)

    // within the bound: an ordinary failure, no reason, nothing counted
    const short = (await (
      await fetch(`${app.url}/orders`, { method: 'POST', body: 'A1' })
    ).json()) as { nearMisses: Miss[] }
    expect(short.nearMisses[0]?.failed[0]?.reason).toBeUndefined()
    expect(await health()).toBe(before + 1)
    expect(
      (await fetch(`${app.url}/orders`, { method: 'POST', body: 'a'.repeat(65_536) })).status,
    ).toBe(200)
  })

  it(
    "sums the count of the replicas in a cluster primary's /health",
    { timeout: 60_000 },
    async () => {
      const dir = tempDir()
      writeFileSync(join(dir, 'mock.json'), JSON.stringify(dsl))
      const server = await startCli([
        'run',
        '--mock',
        join(dir, 'mock.json'),
        '--port',
        '0',
        '--admin-port',
        '0',
        '--replicas',
        '2',
      ])
      const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string
      for (let i = 0; i < 4; i++) {
        expect(
          (await fetch(`${server.url}/orders`, { method: 'POST', body: 'a'.repeat(70_000) }))
            .status,
        ).toBe(404)
      }
      const health = (await (await fetch(`${admin}/health`)).json()) as {
        result: { oversizeRegexInputs: number; workers: Array<{ oversizeRegexInputs: number }> }
      }
      expect(health.result.workers).toHaveLength(2)
      expect(health.result.oversizeRegexInputs).toBe(4)
      expect(health.result.workers.reduce((n, w) => n + w.oversizeRegexInputs, 0)).toBe(4)
    },
  )
})
