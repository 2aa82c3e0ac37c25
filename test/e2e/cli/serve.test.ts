import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

// the mock examples (examples/kubernetes/ holds manifests, not mocks)
const examples = resolve(import.meta.dirname, '../../../examples/payments-api.yaml')

describe('understudy serve', () => {
  it('prints exactly "listening on http://HOST:PORT" first and serves the examples', async () => {
    const server = await startCli(['serve', examples, '--port', '0'])
    const firstLine = server.stdout().split('\n')[0]
    expect(firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:(?!0$)\d+$/)
    const res = await fetch(`${server.url}/health`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'UP' })
  })

  it('logs JSON lines to stderr, never to stdout', async () => {
    const server = await startCli(['serve', examples, '--port', '0'])
    await server.waitFor('stderr', '"msg":"listening"')
    for (const line of server.stdout().trim().split('\n')) expect(line).not.toMatch(/^\{/)
    const logLine =
      server
        .stderr()
        .split('\n')
        .find((l) => l.includes('"msg":"listening"')) ?? ''
    expect(JSON.parse(logLine)).toMatchObject({ level: 30, msg: 'listening' })
  })

  it('answers from several files and formats at once, later files winning ties', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'a.yaml'),
      '- name: first\n  dsl: { requestDsl: { path: /same }, responseDsl: { text: from-a } }\n',
    )
    writeFileSync(
      join(dir, 'b.json'),
      JSON.stringify([
        { name: 'second', dsl: { requestDsl: { path: '/same' }, responseDsl: { text: 'from-b' } } },
      ]),
    )
    const server = await startCli(['serve', dir, '--port', '0'])
    expect(await (await fetch(`${server.url}/same`)).text()).toBe('from-b')
  })

  it('serves HTTPS (h2 and http/1.1) and the admin API on their own ports when asked', async () => {
    const server = await startCli([
      'serve',
      examples,
      '--port',
      '0',
      '--tls-port',
      '0',
      '--admin-port',
      '0',
    ])
    const https = /https \(h2, http\/1\.1\) on (https:\/\/\S+)/.exec(server.stdout())?.[1]
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1]
    expect(https).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.stdout().match(/listening on/g)).toHaveLength(1)
    const health = (await (await fetch(`${admin ?? ''}/health`)).json()) as {
      result: { status: string; transactions: number }
    }
    expect(health.result.status).toBe('UP')
    expect(health.result.transactions).toBeGreaterThan(10)
  })

  it('includes and excludes files by glob', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'keep.yaml'),
      '- dsl: { requestDsl: { path: /keep }, responseDsl: { text: kept } }\n',
    )
    writeFileSync(
      join(dir, 'draft-skip.yaml'),
      '- dsl: { requestDsl: { path: /skip }, responseDsl: { text: skipped } }\n',
    )
    const server = await startCli(['serve', dir, '--port', '0', '--exclude', 'draft-*'])
    expect((await fetch(`${server.url}/keep`)).status).toBe(200)
    expect((await fetch(`${server.url}/skip`)).status).toBe(404)
  })
})
