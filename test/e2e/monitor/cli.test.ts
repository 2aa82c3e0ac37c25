import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

describe('understudy platform: monitoring flags', () => {
  it('refuses a malformed --smtp-url or --result-retention with one line and a non-zero exit', async () => {
    const bad = await runCli([
      'platform',
      '--port',
      '0',
      '--data-dir',
      tempDir(),
      '--smtp-url',
      'http://mail',
    ])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).toContain('--smtp-url')
    const zero = await runCli([
      'platform',
      '--port',
      '0',
      '--data-dir',
      tempDir(),
      '--result-retention',
      '0',
    ])
    expect(zero.code).not.toBe(0)
    expect(zero.stderr).toContain('--result-retention')
  })

  it('serves the monitoring API on the platform port, started from the command line', async () => {
    const server = await startCli(
      [
        'platform',
        '--port',
        '0',
        '--data-dir',
        tempDir(),
        '--smtp-url',
        'smtp://127.0.0.1:2525',
        '--log-level',
        'silent',
      ],
      {
        env: { UNDERSTUDY_API_KEY_ID: 'cli-key', UNDERSTUDY_API_KEY_SECRET: 'cli-secret-123' },
      },
    )
    const basic = `Basic ${Buffer.from('cli-key:cli-secret-123').toString('base64')}`
    const app = await fetch(`${server.url}/apps`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'cli',
        website_url: 'https://x.example',
        callback_url: 'https://x.example/cb',
      }),
    })
    expect(app.status).toBe(201)
    const token = ((await app.json()) as { data: { access_token: string } }).data.access_token
    const root = await fetch(`${server.url}//v1/`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(root.status).toBe(200)
    expect(
      ((await root.json()) as { data: { bucket_list_url: string } }).data.bucket_list_url,
    ).toBe(`${server.url}/buckets`)
    expect((await server.stop()).code).toBe(0)
  })
})
