import { describe, expect, it } from 'vitest'
import { startMonitorPlatform } from '../e2e/monitor/helpers.js'

// Defect: redirect_uri was compared as a prefix of the registered callback, so for a registered
// https://ci.example.com/callback the consent page (and then a code) went to `.../callbackevil`
// or to a path under it.

const CALLBACK = 'https://ci.example.com/callback'

describe('OAuth redirect_uri must equal the registered callback exactly', () => {
  it('refuses near misses with 400 before the consent page, on GET and on the form POST', async () => {
    const m = await startMonitorPlatform()
    const [keyId = '', secret = ''] = Buffer.from(m.basic.slice('Basic '.length), 'base64')
      .toString()
      .split(':')
    const nearMisses = [
      `${CALLBACK}evil`,
      `${CALLBACK}-evil/x`,
      `${CALLBACK}/x`,
      `${CALLBACK}/../evil`,
      `${CALLBACK}?next=https://evil.example`,
      'https://ci.example.com.evil.example/callback',
      'http://ci.example.com/callback',
    ]
    for (const uri of nearMisses) {
      const page = await fetch(
        `${m.url}/signin/oauth/authorize?client_id=${m.clientId}&redirect_uri=${encodeURIComponent(uri)}&response_type=code&state=s`,
        { redirect: 'manual' },
      )
      expect(page.status, uri).toBe(400)
      expect(page.headers.get('location')).toBeNull()
      const body = (await page.json()) as {
        error: { message: string; details?: Array<{ path: string }> }
      }
      expect(body.error.details?.[0]?.path ?? body.error.message).toContain('/redirect_uri')
      const post = await fetch(`${m.url}/signin/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: m.clientId,
          redirect_uri: uri,
          response_type: 'code',
          state: 's',
          decision: 'allow',
          api_key_id: keyId,
          api_key_secret: secret,
        }).toString(),
      })
      expect(post.status, uri).toBe(400)
      expect(post.headers.get('location')).toBeNull()
    }
    // The registered callback itself (or none: it is the default) still shows the consent page.
    for (const query of [`&redirect_uri=${encodeURIComponent(CALLBACK)}`, '']) {
      const page = await fetch(
        `${m.url}/signin/oauth/authorize?client_id=${m.clientId}${query}&response_type=code&state=s`,
      )
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('Authorize CI')
    }
  })
})
