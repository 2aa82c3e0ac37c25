import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

// Defect: POST /api/v4/accounts with the e-mail of an existing user of another account answered
// 201 with a new API key of that user, which then read that user's accounts.

interface V4<T = Record<string, unknown>> {
  result: T
  error: { code: string; message: string; details?: Array<{ path: string }> } | null
}

describe('creating an account never hands out a key of another existing user', () => {
  it('refuses an ownerEmail of an existing user with 409, stores nothing, and allows the caller its own', async () => {
    const platform = await startTestPlatform()
    const first = await platform.request('/api/v4/accounts', {
      method: 'POST',
      json: { name: 'Globex', ownerEmail: 'hank@globex.test' },
    })
    expect(first.status).toBe(201)
    const hank = ((await first.json()) as V4<{ owner: { id: number } }>).result.owner
    const keysBefore = (await platform.store.tenancy.apiKeysOf(hank.id)).length
    const accountsBefore = (
      (await (await platform.request('/api/v4/accounts')).json()) as { total: number }
    ).total

    const taken = await platform.request('/api/v4/accounts', {
      method: 'POST',
      json: { name: 'Evil Corp', ownerEmail: 'HANK@globex.test' },
    })
    expect(taken.status).toBe(409)
    const body = (await taken.json()) as V4<null>
    expect(body.result).toBeNull()
    expect(body.error?.code).toBe('ERR_API_CONFLICT')
    expect(body.error?.message).toMatch(/invite/)
    expect(body.error?.details?.[0]?.path).toBe('/ownerEmail')
    expect(JSON.stringify(body)).not.toMatch(/secret/i)
    expect((await platform.store.tenancy.apiKeysOf(hank.id)).length).toBe(keysBefore)
    expect((await platform.store.tenancy.membershipsOf(hank.id)).length).toBe(1)
    expect(
      ((await (await platform.request('/api/v4/accounts')).json()) as { total: number }).total,
    ).toBe(accountsBefore)

    // The caller may own a second account itself: the key it gets is its own.
    const me = (
      (await (await platform.request('/api/v4/user')).json()) as V4<{ id: number; email: string }>
    ).result
    const own = await platform.request('/api/v4/accounts', {
      method: 'POST',
      json: { name: 'Side project', ownerEmail: me.email },
    })
    expect(own.status).toBe(201)
    const made = (
      (await own.json()) as V4<{ owner: { id: number }; apiKey: { id: string; secret: string } }>
    ).result
    expect(made.owner.id).toBe(me.id)
    const withKey = await platform.request('/api/v4/user', {
      headers: {
        authorization: `Basic ${Buffer.from(`${made.apiKey.id}:${made.apiKey.secret}`).toString('base64')}`,
      },
    })
    expect(((await withKey.json()) as V4<{ id: number }>).result.id).toBe(me.id)
  })
})
