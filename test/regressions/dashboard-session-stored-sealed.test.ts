import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * Dashboard sessions lived in one platform process's memory, so a second instance behind the
 * same load balancer did not know them. They are in the store now, and what is stored must not
 * sign anybody in by itself: the session id only as a hash, the API key's secret and the CSRF
 * token only encrypted under the id the cookie carries.
 */

describe('a dashboard session in the store', () => {
  it('is stored by a hash of its id, with neither the id, the API key secret nor the CSRF token readable', async () => {
    const platform = await startTestPlatform()
    const [keyId, secret] = Buffer.from(platform.auth.slice('Basic '.length), 'base64')
      .toString()
      .split(':') as [string, string]
    const res = await fetch(`${platform.url}/ui/session`, {
      method: 'POST',
      headers: { 'x-requested-with': 'fetch', 'content-type': 'application/json' },
      body: JSON.stringify({ keyId, secret }),
    })
    expect(res.status).toBe(200)
    const { result } = (await res.json()) as { result: { csrfToken: string } }
    const id = /understudy_ui=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? ''
    expect(id).not.toBe('')

    expect(await platform.store.uiSessions.get(id)).toBeUndefined()
    const stored = await platform.store.uiSessions.get(
      createHash('sha256').update(id).digest('hex'),
    )
    expect(stored).toMatchObject({ apiKeyId: keyId })
    const row = JSON.stringify(stored)
    for (const secretPart of [id, secret, result.csrfToken, platform.auth]) {
      expect(row).not.toContain(secretPart)
    }

    // The stored session still works, and signing out removes it.
    const headers = {
      cookie: `understudy_ui=${id}`,
      'x-requested-with': 'fetch',
      'x-csrf-token': result.csrfToken,
    }
    const list = await fetch(`${platform.url}/api/v1/workspaces/${platform.workspaceId}/services`, {
      headers,
    })
    expect(list.status).toBe(200)
    await list.arrayBuffer()
    const out = await fetch(`${platform.url}/ui/session`, { method: 'DELETE', headers })
    expect(out.status).toBe(204)
    expect(await platform.store.uiSessions.get(stored?.idHash ?? '')).toBeUndefined()
  })
})
