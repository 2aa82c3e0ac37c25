import { describe, expect, it } from 'vitest'
import { mergeEnvironments, resolveEnvironment } from '../../../src/monitor/index.js'

describe('environment inheritance', () => {
  it('merges variables and headers key by key, runs scripts parent first, lets the child override settings', () => {
    const resolved = resolveEnvironment([
      {
        id: 'root',
        name: 'Shared',
        initial_variables: { base: 'http://a', token: 't1' },
        headers: { Accept: ['application/json'], 'X-Env': 'root' },
        script: "variables.set('a', 1)",
        verify_ssl: false,
        webhooks: ['http://hook'],
        emails: {
          notify_on: 'failures',
          notify_threshold: 2,
          recipients: [{ email: 'a@example.com' }],
        },
      },
      {
        id: 'child',
        name: 'Prod',
        parent_environment_id: 'root',
        initial_variables: { token: 't2' },
        headers: { 'X-Env': ['child'] },
        script: "variables.set('b', 2)",
        verify_ssl: null,
        webhooks: null,
        emails: { notify_on: 'threshold' },
      },
    ])
    expect(resolved).toEqual({
      id: 'child',
      name: 'Prod',
      initial_variables: { base: 'http://a', token: 't2' },
      headers: { Accept: ['application/json'], 'X-Env': ['child'] },
      scripts: ["variables.set('a', 1)", "variables.set('b', 2)"],
      verify_ssl: false,
      preserve_cookies: false,
      stop_on_failure: false,
      client_certificate: null,
      http_version_support: 'h1_1',
      force_h2c: false,
      webhooks: ['http://hook'],
      emails: {
        notify_all: false,
        notify_on: 'threshold',
        notify_threshold: 2,
        recipients: [{ email: 'a@example.com' }],
      },
    })
  })

  it('starts from safe defaults', () => {
    const empty = resolveEnvironment([])
    expect(empty).toMatchObject({
      verify_ssl: true,
      webhooks: [],
      scripts: [],
      emails: { notify_on: 'all', recipients: [] },
    })
    expect(
      mergeEnvironments(empty, {
        webhooks: ['x', 3 as unknown as string],
        emails: { notify_on: 'sometimes', notify_threshold: -1 },
      }),
    ).toMatchObject({ webhooks: ['x'], emails: { notify_on: 'all', notify_threshold: 1 } })
  })
})

describe('authorizationUrl (PKCE)', () => {
  it('adds an S256 challenge by default and a plain one on request', async () => {
    const { authorizationUrl } = await import('../../../src/monitor/index.js')
    const base = {
      auth_type: 'oauth_2' as const,
      auth_url: 'https://auth.example/authorize',
      client_id: 'c1',
      scope: 'read',
      state: 's1',
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    }
    const s256 = new URL(
      await authorizationUrl(
        { ...base, grant_type: 'authorization_code_pkce' },
        'https://app.example/cb',
      ),
    )
    // The RFC 7636 appendix B example.
    expect(Object.fromEntries(s256.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'c1',
      redirect_uri: 'https://app.example/cb',
      scope: 'read',
      state: 's1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })
    const plain = new URL(
      await authorizationUrl(
        { ...base, grant_type: 'authorization_code_pkce', code_challenge_method: 'plain' },
        'https://app.example/cb',
      ),
    )
    expect(plain.searchParams.get('code_challenge')).toBe(base.code_verifier)
    const code = new URL(
      await authorizationUrl(
        { ...base, grant_type: 'authorization_code' },
        'https://app.example/cb',
      ),
    )
    expect(code.searchParams.has('code_challenge')).toBe(false)
  })
})
