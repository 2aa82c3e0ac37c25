import { describe, expect, it } from 'vitest'
import { requestFrom } from '../helpers/from-address.js'
import { startMonitorPlatform, type MonitorPlatform } from '../e2e/monitor/helpers.js'

// Defects: the dashboard sign-in counted every client as one address ("unknown"), so wrong
// sign-ins from one address locked the right secret out at another; the OAuth consent form
// checked API key secrets without any throttle; each surface kept counters of its own.
// One throttle, one set of counters, per peer address and per key-and-address, everywhere.

const ATTACKS = 60
const CALLBACK = 'https://ci.example.com/callback'

function keyOf(m: MonitorPlatform): { id: string; secret: string } {
  const [id = '', secret = ''] = Buffer.from(m.basic.slice('Basic '.length), 'base64')
    .toString()
    .split(':')
  return { id, secret }
}

async function signIn(m: MonitorPlatform, from: string, keyId: string, secret: string) {
  return await requestFrom(from, `${m.url}/ui/session`, {
    method: 'POST',
    headers: { 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json' },
    body: JSON.stringify({ keyId, secret }),
  })
}

async function consent(m: MonitorPlatform, from: string, keyId: string, secret: string) {
  return await requestFrom(from, `${m.url}/signin/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: m.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      state: 's',
      decision: 'allow',
      api_key_id: keyId,
      api_key_secret: secret,
    }).toString(),
  })
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
}

describe('one throttle for every secret check, counted by peer address', () => {
  it('slows wrong dashboard sign-ins from one address and still signs the owner in from another', async () => {
    const m = await startMonitorPlatform()
    const key = keyOf(m)
    const statuses: number[] = []
    for (let i = 0; i < ATTACKS; i++) {
      statuses.push((await signIn(m, '127.0.0.2', key.id, `wrong-${i}`)).status)
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true)
    const throttled = await signIn(m, '127.0.0.2', key.id, key.secret)
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0)
    expect(JSON.parse(throttled.body).error.code).toBe('ERR_API_RATE_LIMITED')
    const owner = await signIn(m, '127.0.0.3', key.id, key.secret)
    expect(owner.status).toBe(200)
    expect(String(owner.headers['set-cookie'])).toContain('understudy_ui=')
  })

  it('throttles the OAuth consent form, and the owner elsewhere still gets a code', async () => {
    const m = await startMonitorPlatform()
    const key = keyOf(m)
    const statuses: number[] = []
    for (let i = 0; i < ATTACKS; i++) {
      statuses.push((await consent(m, '127.0.0.4', key.id, `wrong-${i}`)).status)
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true)
    // The right secret from the attacking address waits out the window: no code.
    const throttled = await consent(m, '127.0.0.4', key.id, key.secret)
    expect(throttled.status).toBe(429)
    expect(throttled.headers['location']).toBeUndefined()
    const owner = await consent(m, '127.0.0.5', key.id, key.secret)
    expect(owner.status).toBe(302)
    expect(new URL(String(owner.headers['location'])).searchParams.get('code')).toBeTruthy()
  })

  it('counts wrong secrets of every surface together: API guesses slow the same address on the dashboard', async () => {
    const m = await startMonitorPlatform()
    const key = keyOf(m)
    // Many key ids from one address: the per-address budget, shared by every surface.
    for (let i = 0; i < ATTACKS; i++) {
      const res = await requestFrom('127.0.0.6', `${m.url}/api/v4/user`, {
        headers: { authorization: basic(`guess-${i}`, 'wrong') },
      })
      expect([401, 429]).toContain(res.status)
    }
    expect((await signIn(m, '127.0.0.6', key.id, key.secret)).status).toBe(429)
    expect((await consent(m, '127.0.0.6', key.id, key.secret)).status).toBe(429)
    // The owner at another address is untouched, on the API, the dashboard and the consent form.
    expect(
      (
        await requestFrom('127.0.0.7', `${m.url}/api/v4/user`, {
          headers: { authorization: m.basic },
        })
      ).status,
    ).toBe(200)
    expect((await signIn(m, '127.0.0.7', key.id, key.secret)).status).toBe(200)
    expect((await consent(m, '127.0.0.7', key.id, key.secret)).status).toBe(302)
  })

  it('throttles wrong OAuth client secrets at the token endpoint, per address', async () => {
    const m = await startMonitorPlatform()
    const token = async (from: string, secret: string) =>
      await requestFrom(from, `${m.url}/signin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: m.clientId,
          client_secret: secret,
          code: 'x',
          grant_type: 'authorization_code',
        }).toString(),
      })
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await token('127.0.0.8', `wrong-${i}`)).status)
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429])
    const last = await token('127.0.0.8', m.clientSecret)
    expect(last.status).toBe(429)
    expect(JSON.parse(last.body).error).toBe('invalid_client')
    // From elsewhere the right client secret is checked (and the made-up code refused).
    const elsewhere = await token('127.0.0.9', m.clientSecret)
    expect(elsewhere.status).toBe(400)
    expect(JSON.parse(elsewhere.body).error).toBe('invalid_grant')
  })
})
