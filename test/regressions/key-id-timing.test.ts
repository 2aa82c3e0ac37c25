import { describe, expect, it } from 'vitest'
import { requestFrom, type AddressedResponse } from '../helpers/from-address.js'
import { startMonitorPlatform } from '../e2e/monitor/helpers.js'

// Defect: an unknown id and a known one with a wrong secret must take the same time to refuse,
// or timing tells which ids exist. The OAuth token endpoint refused an unknown client_id at once,
// without the scrypt check a known client's wrong secret costs. API keys (HTTP Basic and the
// consent form) are sampled too, so that a change to their stand-in check cannot bring it back.

const SAMPLES = 20

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/** Milliseconds of each refusal, known and unknown id interleaved, each pair from a fresh address (no throttle). */
async function sample(
  subnet: number,
  send: (from: string, id: string) => Promise<AddressedResponse>,
  knownId: string,
): Promise<{ known: number[]; unknown: number[] }> {
  const known: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const from = `127.0.${subnet}.${i + 1}`
    for (const [id, into] of (i % 2 === 0
      ? [
          [knownId, known],
          [`no-such-key-${i}`, unknown],
        ]
      : [
          [`no-such-key-${i}`, unknown],
          [knownId, known],
        ]) as Array<[string, number[]]>) {
      const t0 = performance.now()
      const res = await send(from, id)
      into.push(performance.now() - t0)
      expect(res.status).toBe(401)
    }
  }
  return { known, unknown }
}

describe('unknown and known ids take the same time to refuse', () => {
  it('on the API (HTTP Basic), the OAuth consent form and the OAuth token endpoint', async () => {
    const m = await startMonitorPlatform()
    const knownId =
      Buffer.from(m.basic.slice('Basic '.length), 'base64').toString().split(':')[0] ?? ''
    const api = async (from: string, keyId: string) =>
      await requestFrom(from, `${m.url}/api/v4/user`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${keyId}:definitely-wrong`).toString('base64')}`,
        },
      })
    const consent = async (from: string, keyId: string) =>
      await requestFrom(from, `${m.url}/signin/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: m.clientId,
          redirect_uri: 'https://ci.example.com/callback',
          response_type: 'code',
          decision: 'allow',
          api_key_id: keyId,
          api_key_secret: 'definitely-wrong',
        }).toString(),
      })
    const token = async (from: string, clientId: string) =>
      await requestFrom(from, `${m.url}/signin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: clientId,
          client_secret: 'definitely-wrong',
          code: 'x',
          grant_type: 'authorization_code',
        }).toString(),
      })
    await api('127.0.9.1', 'warm-up')
    await consent('127.0.9.2', 'warm-up')
    await token('127.0.9.3', 'warm-up')
    for (const [subnet, send, id] of [
      [10, api, knownId],
      [11, consent, knownId],
      [12, token, m.clientId],
    ] as const) {
      const { known, unknown } = await sample(subnet, send, id)
      const ratio = median(unknown) / median(known)
      // Medians of interleaved samples, bounds wide for a loaded 2-core machine: the defect this
      // guards against (an unknown id refused without the scrypt check) gives a ratio near 0.
      expect(
        ratio,
        `subnet ${subnet}: unknown ${median(unknown).toFixed(1)} ms, known ${median(known).toFixed(1)} ms`,
      ).toBeGreaterThan(0.4)
      expect(
        ratio,
        `subnet ${subnet}: unknown ${median(unknown).toFixed(1)} ms, known ${median(known).toFixed(1)} ms`,
      ).toBeLessThan(2.5)
    }
  })
})
