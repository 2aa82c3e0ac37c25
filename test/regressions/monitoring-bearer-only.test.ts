import { describe, expect, it } from 'vitest'
import { expectMonitorError, startMonitorPlatform } from '../e2e/monitor/helpers.js'

// Defect: the monitoring API took the platform API key (HTTP Basic) wherever a token was needed,
// which bypassed the token scopes of the monitoring specification ("every API request requires a valid OAuth 2.0
// access token"); the dashboard reached it with its session's API key.
describe('the monitoring API takes OAuth tokens only', () => {
  it('refuses a platform API key with the 401 envelope naming the header, everywhere but POST /apps', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const basic = { token: null, headers: { authorization: m.basic } }
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/account'],
      ['GET', '/buckets'],
      ['GET', `/buckets/${key}/tests`],
      ['POST', `/buckets/${key}/tests`],
      ['GET', '/apps'],
      ['GET', '/tokens'],
      ['GET', `/v1/teams/${m.teamId}`],
    ] as const) {
      const res = await m.call(method, path, {
        ...basic,
        ...(method === 'POST' ? { json: { name: 'x' } } : {}),
      })
      expectMonitorError(res, 401)
      expect(res.headers.get('www-authenticate')).toContain('Bearer')
      expect(JSON.stringify(res.body.error)).toContain('/authorization')
    }
    // Nothing was created by the refused POST.
    expect((await m.call('GET', `/buckets/${key}/tests`)).body.data).toEqual([])
    // POST /apps with the key is how a CI job gets its token, which then works.
    const app = await m.call('POST', '/apps', {
      ...basic,
      json: {
        name: 'CI job',
        website_url: 'https://ci.example.com',
        callback_url: 'https://ci.example.com/cb',
      },
    })
    expect(app.status).toBe(201)
    expect((await m.call('GET', '/buckets', { token: app.body.data.access_token })).status).toBe(
      200,
    )
  })

  it('gives a dashboard session its own token for the monitoring API, revoked at sign-out', async () => {
    const m = await startMonitorPlatform()
    const [keyId, secret] = Buffer.from(m.basic.slice(6), 'base64').toString().split(':') as [
      string,
      string,
    ]
    const ui = { 'x-requested-with': 'understudy-ui' }
    const signIn = await fetch(`${m.url}/ui/session`, {
      method: 'POST',
      headers: { ...ui, 'content-type': 'application/json' },
      body: JSON.stringify({ keyId, secret }),
    })
    expect(signIn.status).toBe(200)
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const csrf = ((await signIn.json()) as { result: { csrfToken: string } }).result.csrfToken
    const session = { ...ui, cookie, 'x-csrf-token': csrf, accept: 'application/json' }

    const buckets = await fetch(`${m.url}/buckets`, { headers: session })
    expect(buckets.status).toBe(200)
    expect(((await buckets.json()) as { data: unknown[] }).data).toEqual([])
    // The session's token belongs to the user's "Understudy dashboard" application.
    const apps = (await m.call('GET', '/apps')).body.data as Array<{
      name: string
      client_id: string
    }>
    const dashboard = apps.find((a) => a.name === 'Understudy dashboard')
    expect(dashboard).toBeDefined()
    const live = async (): Promise<number> =>
      ((await m.call('GET', '/tokens')).body.data as Array<{ client_id: string }>).filter(
        (t) => t.client_id === dashboard?.client_id,
      ).length
    expect(await live()).toBe(1)
    // The rest of the platform still takes the session's API key.
    expect((await fetch(`${m.url}/api/v1/tags`, { headers: session })).status).toBe(200)

    const out = await fetch(`${m.url}/ui/session`, { method: 'DELETE', headers: session })
    expect(out.status).toBe(204)
    expect(await live()).toBe(0)
    expect((await fetch(`${m.url}/buckets`, { headers: session })).status).toBe(401)
  })

  it('ends the monitoring access of a session whose API key was revoked since sign-in', async () => {
    const m = await startMonitorPlatform()
    const v4 = async (method: string, path: string): Promise<Response> =>
      await fetch(`${m.url}${path}`, {
        method,
        headers: { authorization: m.basic, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify({ name: 'dashboard key' }) } : {}),
      })
    const made = await v4('POST', '/api/v4/user/api-keys')
    expect(made.status).toBe(201)
    const key = ((await made.json()) as { result: { id: string; secret: string } }).result
    const ui = { 'x-requested-with': 'understudy-ui' }
    const signIn = await fetch(`${m.url}/ui/session`, {
      method: 'POST',
      headers: { ...ui, 'content-type': 'application/json' },
      body: JSON.stringify({ keyId: key.id, secret: key.secret }),
    })
    expect(signIn.status).toBe(200)
    const session = {
      ...ui,
      cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'x-csrf-token': ((await signIn.json()) as { result: { csrfToken: string } }).result.csrfToken,
    }
    expect((await fetch(`${m.url}/buckets`, { headers: session })).status).toBe(200)
    expect((await v4('DELETE', `/api/v4/user/api-keys/${key.id}`)).status).toBeLessThan(300)
    expect((await fetch(`${m.url}/buckets`, { headers: session })).status).toBe(401)
    // Its token was revoked with it.
    const apps = (await m.call('GET', '/apps')).body.data as Array<{
      name: string
      client_id: string
    }>
    const dashboard = apps.find((a) => a.name === 'Understudy dashboard')
    expect(
      ((await m.call('GET', '/tokens')).body.data as Array<{ client_id: string }>).filter(
        (t) => t.client_id === dashboard?.client_id,
      ),
    ).toEqual([])
  })
})

// Defect: GET /signin/oauth/authorize answered the consent page itself (200) where the product
// answers 302 toward it.
describe('GET /signin/oauth/authorize redirects to the consent page', () => {
  it('answers 302 keeping client_id, redirect_uri, scope and state; the page posts back to the authorize URL', async () => {
    const m = await startMonitorPlatform()
    const callback = 'https://ci.example.com/callback'
    const res = await fetch(
      `${m.url}/signin/oauth/authorize?response_type=code&client_id=${m.clientId}&redirect_uri=${encodeURIComponent(callback)}&scope=${encodeURIComponent('api:read test:write')}&state=xyz`,
      { redirect: 'manual' },
    )
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get('location') ?? '', m.url)
    expect(location.origin).toBe(m.url)
    expect(location.searchParams.get('client_id')).toBe(m.clientId)
    expect(location.searchParams.get('redirect_uri')).toBe(callback)
    expect(location.searchParams.get('scope')).toBe('api:read test:write')
    expect(location.searchParams.get('state')).toBe('xyz')
    const page = await fetch(location)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('action="/signin/oauth/authorize"')
    expect(html).toContain('value="xyz"')
    // A wrong client is still refused on the spot (never redirected).
    expect(
      (
        await fetch(`${m.url}/signin/oauth/authorize?response_type=code&client_id=nope`, {
          redirect: 'manual',
        })
      ).status,
    ).toBe(400)
    expect(
      (await fetch(`${m.url}/signin/oauth/consent?client_id=${m.clientId}&scope=nope`)).status,
    ).toBe(400)
  })
})
