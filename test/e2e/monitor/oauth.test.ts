import { describe, expect, it } from 'vitest'
import { hashSecret } from '../../../src/api/index.js'
import { expectMonitorError, startMonitorPlatform, type MonitorPlatform } from './helpers.js'

const CALLBACK = 'https://ci.example.com/callback'

async function authorize(
  m: MonitorPlatform,
  decision: 'allow' | 'deny',
  scope: string,
  state = 'st4te',
): Promise<URL> {
  const start = await fetch(
    `${m.url}/signin/oauth/authorize?client_id=${m.clientId}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=${encodeURIComponent(scope)}&state=${state}`,
    { redirect: 'manual' },
  )
  expect(start.status).toBe(302)
  const consent = new URL(start.headers.get('location') ?? '', m.url)
  expect(consent.pathname).toBe('/signin/oauth/consent')
  expect(Object.fromEntries(consent.searchParams)).toMatchObject({
    client_id: m.clientId,
    redirect_uri: CALLBACK,
    state,
    scope: ['api:read', ...scope.split(' ')].filter((s, i, all) => all.indexOf(s) === i).join(' '),
  })
  const page = await fetch(consent)
  expect(page.status).toBe(200)
  expect(page.headers.get('content-type')).toContain('text/html')
  const html = await page.text()
  expect(html).toContain('Authorize CI')
  const [id, secret] = Buffer.from(m.basic.slice(6), 'base64').toString().split(':')
  const res = await fetch(`${m.url}/signin/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: m.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope,
      state,
      decision,
      api_key_id: id ?? '',
      api_key_secret: secret ?? '',
    }).toString(),
  })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location') ?? '')
}

async function exchange(
  m: MonitorPlatform,
  code: string,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${m.url}/signin/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: m.clientId,
      client_secret: m.clientSecret,
      code,
      grant_type: 'authorization_code',
      redirect_uri: CALLBACK,
    }).toString(),
  })
  return { status: res.status, body: (await res.json()) as Record<string, string> }
}

describe('monitoring OAuth provider', () => {
  it('runs the web flow: consent page, code and state at the callback, token with the scopes granted', async () => {
    const m = await startMonitorPlatform()
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const callback = await authorize(m, 'allow', 'api:read test:read')
    expect(callback.origin + callback.pathname).toBe(CALLBACK)
    expect(callback.searchParams.get('state')).toBe('st4te')
    const code = callback.searchParams.get('code') ?? ''
    const token = await exchange(m, code)
    expect(token.status).toBe(200)
    expect(token.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer' })
    const access = token.body['access_token'] ?? ''
    const read = await m.call('GET', `/buckets/${key}/tests/${test.id}`, { token: access })
    expect(read.status).toBe(200)
    // Without test:write a token cannot change a test.
    expect(
      expectMonitorError(
        await m.call('PUT', `/buckets/${key}/tests/${test.id}`, {
          token: access,
          json: { name: 'x' },
        }),
        403,
      ),
    ).toContain('test:write')
    expectMonitorError(
      await m.call('POST', `/buckets?name=x&team_uuid=${m.teamId}`, { token: access }),
      403,
    )
    expectMonitorError(await m.call('GET', `/teams/${m.teamId}/people`, { token: access }), 403)
    // account:email not granted: the account shows no address.
    expect((await m.call('GET', '/account', { token: access })).body.data.email).toBeNull()
    // The code is single-use.
    const again = await exchange(m, code)
    expect(again.status).toBe(400)
    expect(again.body['error']).toBe('invalid_grant')
  })

  it('refuses a code exchanged after 60 seconds', async () => {
    const m = await startMonitorPlatform()
    const code = (await authorize(m, 'allow', 'api:read')).searchParams.get('code') ?? ''
    m.advance(61_000)
    const late = await exchange(m, code)
    expect(late.status).toBe(400)
    expect(late.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('expired'),
    })
  })

  it('sends error=access_denied when the user declines, and refuses a wrong client secret or redirect', async () => {
    const m = await startMonitorPlatform()
    const denied = await authorize(m, 'deny', 'api:read', 'abc')
    expect(denied.searchParams.get('error')).toBe('access_denied')
    expect(denied.searchParams.get('state')).toBe('abc')
    expect(denied.searchParams.get('code')).toBeNull()
    const wrong = await fetch(`${m.url}/signin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: m.clientId,
        client_secret: 'nope',
        code: 'x',
        grant_type: 'authorization_code',
      }).toString(),
    })
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client')
    const evil = await fetch(
      `${m.url}/signin/oauth/authorize?client_id=${m.clientId}&redirect_uri=${encodeURIComponent('https://evil.example.com/')}&response_type=code`,
      { redirect: 'manual' },
    )
    expect(evil.status).toBe(400)
  })

  it('revokes a token: it then answers 401', async () => {
    const m = await startMonitorPlatform()
    const code = (await authorize(m, 'allow', 'api:read test:read')).searchParams.get('code') ?? ''
    const token = (await exchange(m, code)).body['access_token'] ?? ''
    expect((await m.call('GET', '/buckets', { token })).status).toBe(200)
    const tokens = await m.call('GET', '/tokens', { token })
    expect(tokens.body.data.some((t: { current: boolean }) => t.current)).toBe(true)
    expect((await m.call('DELETE', '/tokens/current', { token })).status).toBe(204)
    expectMonitorError(await m.call('GET', '/buckets', { token }), 401)
    // The personal token of the application is untouched.
    expect((await m.call('GET', '/buckets')).status).toBe(200)
  })

  it("creates applications only with a platform API key, and hides another account's buckets (404)", async () => {
    const m = await startMonitorPlatform()
    expectMonitorError(
      await m.call('POST', '/apps', {
        json: { name: 'x', website_url: 'https://a', callback_url: 'https://a' },
      }),
      401,
    )
    expect(
      expectMonitorError(
        await m.call('POST', '/apps', {
          token: null,
          headers: { authorization: m.basic },
          json: { name: 'x', website_url: 'nope', callback_url: 'https://a' },
        }),
        400,
      ),
    ).toContain('/website_url')
    const key = await m.bucket()
    const test = (await m.call('POST', `/buckets/${key}/tests`, { json: { name: 't' } })).body.data
    const store = m.platform.store
    const account = await store.accounts.create({ name: 'Other' })
    const user = await store.users.create({
      email: 'eve@other.example',
      firstName: 'Eve',
      lastName: 'Other',
      enabled: true,
      accountRoles: ['owner'],
      accountId: account.id,
    })
    await store.workspaces.create({
      accountId: account.id,
      name: 'Other workspace',
      enabled: true,
      dedicatedIpsEnabled: false,
      privateLocationsEnabled: false,
      userId: user.id,
    })
    await store.apiKeys.create({
      id: 'other-key',
      userId: user.id,
      name: 'k',
      secretHash: await hashSecret('other-secret'),
    })
    const app = await m.call('POST', '/apps', {
      token: null,
      headers: {
        authorization: `Basic ${Buffer.from('other-key:other-secret').toString('base64')}`,
      },
      json: { name: 'Eve', website_url: 'https://e.example', callback_url: 'https://e.example/cb' },
    })
    expect(app.status).toBe(201)
    const eve = app.body.data.access_token as string
    expect((await m.call('GET', '/buckets', { token: eve })).body.data).toEqual([])
    expectMonitorError(await m.call('GET', `/buckets/${key}`, { token: eve }), 404)
    expectMonitorError(await m.call('GET', `/buckets/${key}/tests/${test.id}`, { token: eve }), 404)
    expectMonitorError(
      await m.call('DELETE', `/buckets/${key}/tests/${test.id}`, { token: eve }),
      404,
    )
    expectMonitorError(
      await m.call('POST', `/buckets?name=x&team_uuid=${m.teamId}`, { token: eve }),
      404,
    )
    // A token limited at creation lacks test:write.
    const narrow = await m.call('POST', '/apps', {
      token: null,
      headers: { authorization: m.basic },
      json: {
        name: 'RO',
        website_url: 'https://a.example',
        callback_url: 'https://a.example/cb',
        scope: 'test:read',
      },
    })
    expect(narrow.body.data.scope).toBe('api:read test:read')
    expectMonitorError(
      await m.call('DELETE', `/buckets/${key}/tests/${test.id}`, {
        token: narrow.body.data.access_token,
      }),
      403,
    )
  })
})
