import { describe, expect, it } from 'vitest'
import { importHar } from '../../../importers/har/index.js'

/** A HAR of `count` entries that each deviate from the schema as Chrome's do (`serverIPAddress: "[::1]"`, `redirectURL: null`). */
function deviatingHar(count: number): Buffer {
  const entries = Array.from({ length: count }, (_, i) => ({
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `https://api.example.com/items/${i}`,
      httpVersion: 'HTTP/1.1',
      headers: [],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: 2, mimeType: 'application/json', text: '{}' },
      redirectURL: null,
      headersSize: -1,
      bodySize: 2,
    },
    serverIPAddress: '[::1]',
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  }))
  return Buffer.from(
    JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }),
  )
}

function timeImport(count: number): number {
  const bytes = deviatingHar(count)
  const started = performance.now()
  const result = importHar({ bytes, fileName: 'scale.har' })
  expect(result.document.transactions).toHaveLength(count)
  // The deviations are summarized in one warning, not one per entry.
  expect(result.warnings).toHaveLength(1)
  return performance.now() - started
}

describe('HAR importer scale', () => {
  it(
    'is linear in the number of entries, also when every entry deviates from the schema',
    { timeout: 120_000 },
    () => {
      timeImport(200) // warm-up: validators compiled, code optimized
      const small = timeImport(1_000)
      const large = timeImport(4_000)
      // Quadratic work (the whole-document ajv@6 validation was) gives about 16 times; linear about 4.
      expect(large / small).toBeLessThan(9)
    },
  )
})
