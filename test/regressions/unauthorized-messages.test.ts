import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

// Defect: every refusal of the v1 and v4 APIs said "Missing or invalid credentials", so a client
// could not tell a wrong key from a header its library wrote wrongly, or from a Bearer token sent
// to an API that takes HTTP Basic.

const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`

describe('401 answers of the Basic APIs say which credential problem it is', () => {
  it('gives distinct messages for a wrong key, a malformed Basic header, a Bearer token and none, in each envelope', async () => {
    const platform = await startTestPlatform()
    const paths = { v1: `/api/v1/workspaces/${platform.workspaceId}/services`, v4: '/api/v4/user' }
    for (const [family, path] of Object.entries(paths)) {
      const messages: Record<string, string> = {}
      const cases: Record<string, string | null> = {
        wrongKey: basic('no-such-key:wrong-secret'),
        malformed: basic('no-colon-here'),
        notBase64: 'Basic !!!not-base64!!!',
        bearer: 'Bearer some-oauth-token',
        missing: null,
      }
      for (const [name, authorization] of Object.entries(cases)) {
        const res = await fetch(platform.url + path, {
          headers: authorization === null ? {} : { authorization },
        })
        expect(res.status, `${family} ${name}`).toBe(401)
        expect(res.headers.get('www-authenticate')).toContain('Basic')
        const body = (await res.json()) as Record<string, unknown> & {
          error: { code: string; message: string }
        }
        expect(body.error.code).toBe('ERR_API_UNAUTHORIZED')
        expect(body['result']).toBeNull()
        expect(family === 'v4' ? body['request_id'] : body['requestId']).toEqual(expect.any(String))
        messages[name] = body.error.message
      }
      expect(messages['malformed']).toBe(messages['notBase64'])
      expect(messages['wrongKey']).toMatch(/API key/)
      expect(messages['malformed']).toMatch(/not valid HTTP Basic/)
      expect(messages['bearer']).toMatch(/not a Bearer token/)
      expect(
        new Set([
          messages['wrongKey'],
          messages['malformed'],
          messages['bearer'],
          messages['missing'],
        ]).size,
      ).toBe(4)
    }
  })

  it('answers an unknown key id and a wrong secret of a known id alike', async () => {
    const platform = await startTestPlatform()
    const keyId = (await platform.store.tenancy.apiKeysOf(platform.userId))[0]?.id ?? ''
    const unknown = await platform.request('/api/v4/user', {
      headers: { authorization: basic('no-such-key:x') },
    })
    const wrong = await platform.request('/api/v4/user', {
      headers: { authorization: basic(`${keyId}:x`) },
    })
    const [a, b] = [
      (await unknown.json()) as { error: unknown },
      (await wrong.json()) as { error: unknown },
    ]
    expect(unknown.status).toBe(wrong.status)
    expect(a.error).toEqual(b.error)
  })
})
