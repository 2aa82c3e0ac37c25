import { describe, expect, it } from 'vitest'
import { OFF_THREAD_BYTES } from '../../../src/api/v1/upload/index.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { formOf } from '../platform/catalog-helpers.js'
import { generatedHar } from '../../helpers/generated-har.js'

/** Pings `url` every 10 ms until `stop()`; gives every answer's time. */
function pinger(url: string): { stop: () => Promise<number[]> } {
  const state = { running: true }
  const gaps: number[] = []
  const loop = (async () => {
    while (state.running) {
      const started = performance.now()
      // Unauthenticated: answered at once by the same event loop that serves the upload.
      const res = await fetch(url)
      await res.arrayBuffer()
      gaps.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  return {
    stop: async () => {
      state.running = false
      await loop
      return gaps
    },
  }
}

describe('API latency during a large upload', () => {
  it(
    'keeps answering other requests while a large HAR is parsed and converted',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({ uploadLimit: 64 * 1024 * 1024 })
      const har = generatedHar(12_000)
      expect(har.length).toBeGreaterThan(4 * OFF_THREAD_BYTES)

      const pings = pinger(`${platform.url}/api/v4/web/version`)
      const started = performance.now()
      const res = await platform.request('/api/v1/transactions/convert', {
        method: 'POST',
        body: formOf({}, [{ name: 'big.har', bytes: har }]),
      })
      const body = (await res.json()) as { result?: unknown[] }
      const importMs = performance.now() - started
      const gaps = await pings.stop()

      expect(res.status).toBe(200)
      expect(body.result).toHaveLength(12_000)
      const worst = Math.max(...gaps)
      console.log(
        `convert ${Math.round(importMs)} ms; ${gaps.length} pings, worst ${Math.round(worst)} ms`,
      )
      // Many pings were answered while the file was converted, none waiting for the whole import:
      // the bound is relative to the import's own time, so a loaded machine slows both.
      expect(gaps.length).toBeGreaterThan(5)
      expect(worst).toBeLessThan(Math.max(500, importMs / 3))
    },
  )

  it(
    'keeps answering while a large HAR is imported, compiled and stored, and stores it whole',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({ uploadLimit: 64 * 1024 * 1024 })
      const service = (await (
        await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services`, {
          method: 'POST',
          json: { name: 'big' },
        })
      ).json()) as { result: { id: number } }
      const har = generatedHar(8_000)

      const pings = pinger(`${platform.url}/api/v4/web/version`)
      const started = performance.now()
      const res = await platform.request(
        `/api/v1/workspaces/${platform.workspaceId}/transactions`,
        {
          method: 'POST',
          body: formOf({ serviceId: String(service.result.id) }, [{ name: 'big.har', bytes: har }]),
        },
      )
      const body = (await res.json()) as {
        result?: Array<{
          id: number
          name: string
          serviceId: number
          dslType: string
          link: string
          dsl: unknown
        }>
      }
      const importMs = performance.now() - started
      const gaps = await pings.stop()

      expect(res.status).toBe(200)
      expect(body.result).toHaveLength(8_000)
      // The answer's Transactions are the stored ones (the answer is written as text, not re-read).
      const last = body.result?.at(-1)
      const stored = (await (await platform.request(last?.link ?? '')).json()) as {
        result: unknown
      }
      expect(stored.result).toEqual(last)
      expect(last).toMatchObject({ serviceId: service.result.id, dslType: 'HAR_DSL' })
      const sorted = [...gaps].sort((a, b) => a - b)
      const worst = sorted.at(-1) ?? 0
      console.log(
        `store ${Math.round(importMs)} ms; ${gaps.length} pings, worst ${Math.round(worst)} ms, p99 ${Math.round(sorted[Math.floor(sorted.length * 0.99)] ?? 0)} ms`,
      )
      expect(gaps.length).toBeGreaterThan(5)
      // Target 100 ms (bench/upload.ts measures it); generous here, for a loaded test machine. Before
      // the store write and the answer were sliced, one ping waited for most of the upload.
      expect(worst).toBeLessThan(Math.max(400, importMs / 4))
    },
  )
})
