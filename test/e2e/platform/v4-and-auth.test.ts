import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'

describe('platform authentication and /api/v4', () => {
  it('answers 401 with a v1 envelope without credentials, with a bad secret, and with an unknown key', async () => {
    const platform = await startTestPlatform()
    const path = `/api/v1/workspaces/${platform.workspaceId}/services`
    for (const authorization of [
      '',
      'Basic bm9wZQ==',
      `Basic ${Buffer.from('unknown:secret').toString('base64')}`,
      platform.auth.slice(0, -4) + 'AAAA',
    ]) {
      const res = await platform.request('/api/v4/user', { headers: { authorization } })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toContain('Basic')
      expect(await res.json()).toMatchObject({
        api_version: 4,
        result: null,
        error: { code: 'ERR_API_UNAUTHORIZED', status: 401 },
      })
    }
    const v1 = await platform.request(path, { headers: { authorization: '' } })
    expect(v1.status).toBe(401)
    expect(await v1.json()).toMatchObject({
      apiVersion: 1,
      result: null,
      error: { code: 'ERR_API_UNAUTHORIZED' },
    })
  })

  it('tells the key holder who they are', async () => {
    const platform = await startTestPlatform()
    const res = await platform.request('/api/v4/user')
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      api_version: number
      error: null
      request_id: string
      result: Record<string, unknown>
    }
    expect(body).toMatchObject({
      api_version: 4,
      error: null,
      result: {
        id: platform.userId,
        email: 'admin@understudy.local',
        enabled: true,
        accountId: platform.accountId,
      },
    })
    expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('lists the account workspaces with total, and creates one', async () => {
    const platform = await startTestPlatform()
    const created = await platform.request('/api/v4/workspaces', {
      method: 'POST',
      json: { name: 'ci', accountId: platform.accountId },
    })
    expect(created.status).toBe(201)
    const body = (await created.json()) as {
      result: { id: number; name: string; accountId: number; plan: unknown }
    }
    expect(body.result).toMatchObject({ name: 'ci', accountId: platform.accountId })
    expect(body.result.plan).toBeDefined()
    const list = await platform.request(
      `/api/v4/workspaces?accountId=${platform.accountId}&limit=0&sort[]=-name`,
    )
    const page = (await list.json()) as {
      result: Array<{ name: string }>
      total: number
      limit: number
      skip: number
    }
    expect(page.total).toBe(2)
    // names sort without regard to case: 'Default workspace' after 'ci', so first when descending
    expect(page.result.map((w) => w.name)).toEqual(['Default workspace', 'ci'])
  })

  it('refuses another account, a missing accountId and a bad body with the failing field named', async () => {
    const platform = await startTestPlatform()
    expect((await platform.request('/api/v4/workspaces?accountId=999')).status).toBe(404)
    const missing = await platform.request('/api/v4/workspaces')
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({
      error: { code: 'ERR_API_VALIDATION', details: [{ path: '/accountId' }] },
    })
    const bad = await platform.request('/api/v4/workspaces', { method: 'POST', json: { name: '' } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { details: [{ path: '/name' }] } })
    const notJson = await platform.request('/api/v4/workspaces', {
      method: 'POST',
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(notJson.status).toBe(415)
    const malformed = await platform.request('/api/v4/workspaces', {
      method: 'POST',
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
  })

  it('answers unknown paths 404 and wrong methods 405, in the envelope', async () => {
    const platform = await startTestPlatform()
    const unknown = await platform.request('/api/v1/nothing')
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({
      apiVersion: 1,
      error: { code: 'ERR_API_NOT_FOUND' },
    })
    const wrong = await platform.request('/api/v4/user', { method: 'DELETE' })
    expect(wrong.status).toBe(405)
  })

  it('tolerates doubled and trailing slashes', async () => {
    const platform = await startTestPlatform()
    expect((await platform.request('//api//v4/user/')).status).toBe(200)
  })
})
