import type { LiveExchange } from '../../src/serve/index.js'

/**
 * A live exchange as the runtime hands one to a recording: a JSON GET answered in 12 ms, ended at
 * epoch 1,000 ms unless `overrides` says otherwise.
 *
 * @example
 * recording.add(liveExchange('/pets', { durationMs: 30 }), 'http://live')
 */
export function liveExchange(url: string, overrides: Partial<LiveExchange> = {}): LiveExchange {
  return {
    method: 'GET',
    url,
    requestHeaders: { accept: 'application/json' },
    requestBody: null,
    status: 200,
    responseHeaders: ['content-type', 'application/json'],
    responseBody: Buffer.from('{"ok":true}'),
    truncated: false,
    durationMs: 12,
    endedAt: 1_000,
    ...overrides,
  }
}
