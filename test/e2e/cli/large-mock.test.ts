import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

// `run --mock` with a large-ish mock: it starts and serves, gives back the young generation that
// start-up grew once it has been quiet, loads handlebars only for templates, and a bad file still
// gives a one-line error.

/**
 * Loaded into the runtime with NODE_OPTIONS: at exit (SIGTERM drains, then exits) it writes the
 * young generation's size and whether handlebars was loaded, on one line of stderr.
 */
const PROBE = `
const v8 = require('node:v8')
process.on('exit', () => {
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
  const handlebars = Object.keys(require.cache).some((k) => k.includes('/node_modules/handlebars/'))
  process.stderr.write('probe ' + JSON.stringify({ young, handlebars }) + '\\n')
})
`

interface Probe {
  young: number
  handlebars: boolean
}

function probeOf(stderr: string): Probe {
  const line = /^probe (.*)$/m.exec(stderr)?.[1]
  if (line === undefined) throw new Error(`no probe line in: ${stderr}`)
  return JSON.parse(line) as Probe
}

function writeMock(dir: string, count: number, template = false): string {
  const transactions = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `item ${i}`,
    dsl: {
      requestDsl: { method: 'GET', path: `/items/${i}` },
      responseDsl:
        template && i === 0
          ? { template: true, content: Buffer.from('{{request.path}}').toString('base64') }
          : { status: 200, json: { id: i, name: `item ${i}`, tags: ['a', 'b'] } },
    },
  }))
  const file = join(dir, 'mock.json')
  writeFileSync(file, JSON.stringify({ id: 7, name: 'large', transactions }))
  return file
}

function probeEnv(dir: string): Record<string, string> {
  const probe = join(dir, 'probe.cjs')
  writeFileSync(probe, PROBE)
  return { NODE_OPTIONS: `--require ${probe}` }
}

describe('run --mock, a large mock', () => {
  it('starts 6,000 transactions, serves them, and gives back the young generation once quiet', async () => {
    const dir = tempDir()
    const server = await startCli(['run', '--mock', writeMock(dir, 6_000), '--port', '0'], {
      env: probeEnv(dir),
      timeoutMs: 30_000,
    })
    for (const i of [0, 2_999, 5_999]) {
      const res = await fetch(`${server.url}/items/${i}`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ id: i, name: `item ${i}`, tags: ['a', 'b'] })
    }
    expect((await fetch(`${server.url}/items/6000`)).status).toBe(404)
    // V8 shrinks the young generation only after about five quiet seconds; the requests above
    // keep it from agreeing at the first look (6 s after listening), the next look finds it quiet.
    await new Promise((resolve) => setTimeout(resolve, 13_000))
    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    const probe = probeOf(server.stderr())
    // Start-up grew it to two 16 MiB semi-spaces; a quiet runtime holds at most a small one's.
    expect(probe.young).toBeLessThanOrEqual(16 * 1024 * 1024)
  }, 45_000)

  it('keeps the young generation the user sized at launch', async () => {
    const dir = tempDir()
    const env = probeEnv(dir)
    const server = await startCli(['run', '--mock', writeMock(dir, 6_000), '--port', '0'], {
      env: { NODE_OPTIONS: `${env['NODE_OPTIONS'] ?? ''} --max-semi-space-size=32` },
      timeoutMs: 30_000,
    })
    await new Promise((resolve) => setTimeout(resolve, 7_500))
    await server.stop('SIGTERM')
    expect(probeOf(server.stderr()).young).toBeGreaterThan(16 * 1024 * 1024)
  }, 40_000)

  it('loads handlebars with the first template, not before', async () => {
    const plain = tempDir()
    const withoutTemplates = await startCli(['run', '--mock', writeMock(plain, 3), '--port', '0'], {
      env: probeEnv(plain),
    })
    expect((await fetch(`${withoutTemplates.url}/items/1`)).status).toBe(200)
    await withoutTemplates.stop('SIGTERM')
    expect(probeOf(withoutTemplates.stderr()).handlebars).toBe(false)

    const templated = tempDir()
    const server = await startCli(['run', '--mock', writeMock(templated, 3, true), '--port', '0'], {
      env: probeEnv(templated),
    })
    expect(await (await fetch(`${server.url}/items/0`)).text()).toBe('/items/0')
    await server.stop('SIGTERM')
    expect(probeOf(server.stderr()).handlebars).toBe(true)
  })
})

describe('run --mock, a bad file', () => {
  it('that is not UTF-8 gives one line naming the first bad byte', async () => {
    const file = join(tempDir(), 'latin1.json')
    // "café" written in Latin-1: é is the single byte 0xE9.
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"transactions": [{"dsl": {"requestDsl": {"path": "/caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}, "responseDsl": {"status": 200}}}]}'),
      ]),
    )
    const result = await runCli(['run', '--mock', file, '--port', '0'])
    expect(result.code).not.toBe(0)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('is not UTF-8 text: byte 0xE9 at line 1, column 56')
  })

  it('with a JSON syntax error gives one line with its line and column', async () => {
    const file = join(tempDir(), 'broken.json')
    writeFileSync(file, '{"transactions": [\n  {"dsl": }\n]}')
    const result = await runCli(['run', '--mock', file, '--port', '0'])
    expect(result.code).not.toBe(0)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/broken\.json/)
  })
})
