import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'
import { closedPort, startUpstream } from '../helpers/upstream.js'

/*
 * The egress setting of `serve`, `run` and `platform` (docs/security.md "Egress"): the default
 * keeps the README's local examples working (a proxyUrl to a service on localhost), never reaches
 * link-local addresses (cloud metadata) or the runtime's own admin API, and an operator can
 * tighten it to public addresses only, with exceptions.
 */

function mockFile(yaml: string): string {
  const file = join(tempDir(), 'mock.yaml')
  writeFileSync(file, yaml)
  return file
}

function proxying(target: string): string {
  return `- dsl: { requestDsl: { path: /up }, responseDsl: { proxyUrl: "${target}" } }\n`
}

async function problemOf(res: Response): Promise<{ code: string; detail: string }> {
  expect(res.status).toBe(502)
  expect(res.headers.get('content-type')).toContain('application/problem+json')
  return (await res.json()) as { code: string; detail: string }
}

describe('the egress setting', () => {
  it(
    "by default forwards to a service on loopback, and refuses cloud metadata and the runtime's own admin API",
    { timeout: 30_000 },
    async () => {
      const upstream = await startUpstream()
      const served = await startCli([
        'serve',
        mockFile(proxying(upstream.url)),
        '--port',
        '0',
        '--admin-port',
        '0',
      ])
      expect((await fetch(`${served.url}/up`)).status).toBe(200)
      expect(upstream.requests).toHaveLength(1)

      const metadata = await startCli([
        'serve',
        mockFile(proxying('http://169.254.169.254')),
        '--port',
        '0',
      ])
      const refused = await problemOf(await fetch(`${metadata.url}/up`))
      expect(refused.code).toBe('ERR_NET_EGRESS_REFUSED')
      expect(refused.detail).toBe(
        'Refused by the egress policy "loopback": 169.254.169.254 is a link-local address (cloud metadata lives there)',
      )

      const adminPort = String(await closedPort())
      const loop = await startCli([
        'serve',
        mockFile(proxying(`http://127.0.0.1:${adminPort}`)),
        '--port',
        '0',
        '--admin-port',
        adminPort,
      ])
      const loopRefused = await problemOf(await fetch(`${loop.url}/up`))
      expect(loopRefused.code).toBe('ERR_NET_EGRESS_REFUSED')
      expect(loopRefused.detail).toContain(
        `127.0.0.1:${adminPort} is the platform's own port or a runtime's admin API`,
      )
    },
  )

  it(
    '--egress public refuses loopback targets, naming the policy, and --egress-allow lets a network through',
    { timeout: 30_000 },
    async () => {
      const upstream = await startUpstream()
      const strict = await startCli([
        'serve',
        mockFile(proxying(upstream.url.replace('127.0.0.1', 'localhost'))),
        '--port',
        '0',
        '--egress',
        'public',
      ])
      const refused = await problemOf(await fetch(`${strict.url}/up`))
      expect(refused.code).toBe('ERR_NET_EGRESS_REFUSED')
      expect(refused.detail).toMatch(
        /^Refused by the egress policy "public": localhost resolves to (127\.0\.0\.1|::1) is a loopback address$/,
      )
      expect(upstream.requests).toHaveLength(0)

      const allowed = await startCli([
        'run',
        '--mock',
        mockFile(proxying(upstream.url)),
        '--port',
        '0',
        '--egress',
        'public',
        '--egress-allow',
        '127.0.0.0/8, ::1',
      ])
      expect((await fetch(`${allowed.url}/up`)).status).toBe(200)
      expect(upstream.requests).toHaveLength(1)
    },
  )

  it(
    'refuses a bad --egress or --egress-allow in one line with a non-zero exit',
    { timeout: 30_000 },
    async () => {
      const file = mockFile(proxying('http://127.0.0.1:1'))
      for (const [args, flag] of [
        [
          ['serve', file, '--egress', 'everything'],
          '--egress must be one of loopback, private, public',
        ],
        [['run', '--mock', file, '--egress-allow', '10.0.0.0/99'], '--egress-allow'],
        [
          ['platform', '--port', '0', '--data-dir', tempDir(), '--egress', 'none'],
          '--egress must be one of',
        ],
      ] as const) {
        const result = await runCli([...args])
        expect(result.code, result.stderr).not.toBe(0)
        expect(result.stderr).toContain(flag)
        expect(result.stderr.trim().split('\n')).toHaveLength(1)
      }
    },
  )
})
