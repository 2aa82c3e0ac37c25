import { writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

function mockFile(): string {
  const file = join(tempDir(), 'mock.yaml')
  writeFileSync(file, '- dsl: { requestDsl: { path: /a }, responseDsl: { text: a } }\n')
  return file
}

async function adminGet(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return await new Promise((resolve, reject) => {
    http
      .get(url + path, { headers }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      .on('error', reject)
  })
}

describe('the admin token on the command line', () => {
  it('run: --admin-token opens the admin API beyond loopback and refuses a wrong token with 401', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(),
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--admin-port',
      '0',
      '--admin-token',
      't0ken',
    ])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const adminUrl = (/admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? '').replace(
      '0.0.0.0',
      '127.0.0.1',
    )
    expect(server.stdout()).toMatch(/admin on http:\/\/0\.0\.0\.0:\d+/)
    expect(await adminGet(adminUrl, '/health', { host: 'pod-ip.internal' })).toBe(200)
    expect(await adminGet(adminUrl, '/inspection')).toBe(401)
    expect(await adminGet(adminUrl, '/inspection', { authorization: 'Bearer nope' })).toBe(401)
    expect(
      await adminGet(adminUrl, '/inspection', {
        authorization: 'Bearer t0ken',
        host: 'pod-ip.internal',
      }),
    ).toBe(200)
  })

  it('serve: UNDERSTUDY_ADMIN_TOKEN works the same, and without it a foreign Host is refused', async () => {
    const withToken = await startCli(['serve', mockFile(), '--port', '0', '--admin-port', '0'], {
      env: { UNDERSTUDY_ADMIN_TOKEN: 'env-token' },
    })
    const tokenAdmin = /admin on (http:\/\/\S+)/.exec(withToken.stdout())?.[1] ?? ''
    expect(await adminGet(tokenAdmin, '/config')).toBe(401)
    expect(await adminGet(tokenAdmin, '/config', { authorization: 'Bearer env-token' })).toBe(200)

    const plain = await startCli(['serve', mockFile(), '--port', '0', '--admin-port', '0'])
    const plainAdmin = /admin on (http:\/\/\S+)/.exec(plain.stdout())?.[1] ?? ''
    expect(await adminGet(plainAdmin, '/config')).toBe(200)
    expect(await adminGet(plainAdmin, '/config', { host: 'rebound.attacker.example' })).toBe(403)
  })

  it('refuses an admin API beyond loopback without a token, in one line', async () => {
    const result = await runCli(
      ['serve', mockFile(), '--port', '0', '--admin-port', '0', '--admin-host', '0.0.0.0'],
      { env: { UNDERSTUDY_ADMIN_TOKEN: '' } },
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('--admin-token')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })
})
