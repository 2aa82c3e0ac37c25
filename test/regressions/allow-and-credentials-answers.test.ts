import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { startMonitorPlatform } from '../e2e/monitor/helpers.js'
import { startTestPlatform } from '../helpers/platform.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defects: the platform's 405 answers carried no `Allow`; `serve --validate-requests` answered a
// request without credentials 422, naming the scheme once per alternative that wanted it.

const description = `openapi: 3.0.3
info: { title: orders, version: '1' }
components:
  securitySchemes:
    oauth: { type: oauth2, flows: { clientCredentials: { tokenUrl: 'https://auth.test/token', scopes: {} } } }
    jwt: { type: http, scheme: bearer }
security: [{ oauth: [] }, { jwt: [] }]
paths:
  /orders:
    get:
      parameters: [{ name: limit, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { example: [] } } } }
`

describe('405 carries Allow; missing credentials are 401', () => {
  it('names the allowed methods of a known path on /api/v1, /api/v4 and the monitoring API', async () => {
    const platform = await startTestPlatform()
    const v1 = await platform.request('/api/v1/trackings/1', { method: 'DELETE' })
    expect(v1.status).toBe(405)
    expect(v1.headers.get('allow')).toBe('GET')
    const v4 = await platform.request('/api/v4/accounts', { method: 'PUT' })
    expect(v4.status).toBe(405)
    expect(v4.headers.get('allow')?.split(', ')).toContain('POST')
    await platform.close()
    const m = await startMonitorPlatform()
    const res = await fetch(`${m.url}/buckets`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${m.token}` },
    })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'POST'])
  })

  it('answers a request without credentials 401 with WWW-Authenticate, saying the scheme once', async () => {
    const dir = tempDir('understudy-credentials-')
    writeFileSync(join(dir, 'orders.yaml'), description)
    const server = await startCli(['serve', 'orders.yaml', '--port', '0', '--validate-requests'], {
      cwd: dir,
    })
    const res = await fetch(`${server.url}/orders?limit=many`)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
    const problem = (await res.json()) as {
      code: string
      detail: string
      errors: Array<{ path: string; message: string }>
    }
    expect(problem.code).toBe('ERR_SERVE_CREDENTIALS_REQUIRED')
    expect(problem.detail).toBe('GET /orders needs credentials: Authorization: Bearer')
    expect(problem.errors.map((e) => e.path).sort()).toEqual(['/query/limit', '/security'])
    // with them, what else is wrong is a 422, and a good request is answered
    const withToken = await fetch(`${server.url}/orders?limit=many`, {
      headers: { authorization: 'Bearer t' },
    })
    expect(withToken.status).toBe(422)
    expect(
      (await fetch(`${server.url}/orders?limit=2`, { headers: { authorization: 'Bearer t' } }))
        .status,
    ).toBe(200)
    await server.stop()
  })
})
