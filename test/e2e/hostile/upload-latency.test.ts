import { describe, expect, it } from 'vitest'
import { OFF_THREAD_BYTES } from '../../../src/api/import-off-thread.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { formOf } from '../platform/catalog-helpers.js'

/** A HAR of `count` distinct GET entries with JSON answers, generated (no big file is committed). */
export function generatedHar (count: number): string {
  const entries = Array.from({ length: count }, (_, i) => ({
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 1,
    request: { method: 'GET', url: `https://api.example.com/v1/items/${i}`, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'content-type', value: 'application/json' }],
      cookies: [],
      content: { size: 40, mimeType: 'application/json', text: JSON.stringify({ id: i, name: `item ${i}`, tags: ['a', 'b'] }) },
      redirectURL: '',
      headersSize: -1,
      bodySize: 40,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  }))
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } })
}

describe('API latency during a large upload', () => {
  it('keeps answering other requests while a large HAR is parsed and converted', { timeout: 60_000 }, async () => {
    const platform = await startTestPlatform({ uploadLimit: 64 * 1024 * 1024 })
    const har = generatedHar(12_000)
    expect(har.length).toBeGreaterThan(4 * OFF_THREAD_BYTES)

    const state = { uploading: true }
    const gaps: number[] = []
    const pinger = (async () => {
      while (state.uploading) {
        const started = performance.now()
        // Unauthenticated: answered at once (401) by the same event loop that serves the upload.
        const res = await fetch(`${platform.url}/api/v1/workspaces`)
        await res.arrayBuffer()
        gaps.push(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    const started = performance.now()
    const res = await platform.request('/api/v1/transactions/convert', { method: 'POST', body: formOf({}, [{ name: 'big.har', bytes: har }]) })
    const body = await res.json() as { result?: unknown[] }
    const importMs = performance.now() - started
    state.uploading = false
    await pinger

    expect(res.status).toBe(200)
    expect(body.result).toHaveLength(12_000)
    const worst = Math.max(...gaps)
    console.log(`import ${Math.round(importMs)} ms; ${gaps.length} pings, worst ${Math.round(worst)} ms`)
    // Many pings were answered while the file was converted, none waiting for the whole import.
    expect(gaps.length).toBeGreaterThan(5)
    expect(worst).toBeLessThan(Math.max(500, importMs / 3))
  })
})
