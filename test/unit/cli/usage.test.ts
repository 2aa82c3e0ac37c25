import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

// Every command's usage mistakes, in process: exit code 2 and one line on standard error naming
// the command and what is wrong; a file that cannot be read is exit code 1; help goes to standard
// output (exit 0 when asked for, 2 when the command was left out).
async function cli(
  argv: string[],
): Promise<{ code: number | 'running'; out: string; err: string }> {
  let out = ''
  let err = ''
  const stdout = new PassThrough()
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  const stderr = new PassThrough()
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  const code = await main(argv, { stdout, stderr })
  return { code, out, err }
}

describe('command-line usage', () => {
  it.each([
    [
      ['nope'],
      'understudy nope: unknown command "nope"; expected serve, run, import, record, platform, agent or admin',
    ],
    [
      ['admin', 'delete'],
      'understudy admin: unknown admin command "delete"; expected create-account or migrate',
    ],
    [['admin', 'create-account', 'x'], 'understudy admin: unexpected argument "x"'],
    [
      ['admin', 'create-account', '--name', ' '],
      'understudy admin: --name is required (1 to 200 characters)',
    ],
    [
      ['admin', 'create-account', '--name', 'a', '--email', 'nope'],
      'understudy admin: --email must be an e-mail address',
    ],
    [['serve'], 'understudy serve: give at least one file or directory to serve'],
    [['run'], 'understudy run: --mock <mock-service.json> is required'],
    [
      ['run', '--mock', 'a.json', '--replicas', '0'],
      'understudy run: --replicas must be an integer from 1 to 64, not "0"',
    ],
    [['import'], 'understudy import: expected a file or directory to import'],
    [
      ['import', '--format', 'xyz', 'a.json'],
      'understudy import: unknown format "xyz"; expected one of dsl, transactions, har, openapi, rr, wiremock, postman, mockoon',
    ],
    [['record'], 'understudy record: --target URL is required'],
    [['record', '--target', 'http://127.0.0.1:9'], 'understudy record: -o DIR is required'],
    [
      ['platform', '--port', 'abc'],
      'understudy platform: --port must be a non-negative integer, not "abc"',
    ],
    [['platform', 'extra'], 'understudy platform: unexpected argument "extra"'],
    [
      ['platform', '--run-lease', '0'],
      'understudy platform: --run-lease must be a number of seconds from 1 to 3600, not "0"',
    ],
    [
      ['platform', '--run-wait', '5m'],
      'understudy platform: --run-wait must be a number of seconds from 1 to 86400, not "5m"',
    ],
  ])('%j is a usage error', async (argv, message) => {
    const { code, out, err } = await cli(argv)
    expect(code).toBe(2)
    expect(err).toBe(`${message}\n`)
    expect(out).toBe('')
  })

  it.each([
    [
      ['serve', '/no/such/file.yaml'],
      'understudy serve: Cannot read /no/such/file.yaml: no such file or directory',
    ],
    [['run', '--mock', '/no/such.json'], 'understudy run: Cannot read /no/such.json: no such file'],
    [
      ['import', '/no/such.json'],
      'understudy import: Cannot read /no/such.json: no such file or directory',
    ],
  ])('%j fails on the missing file, exit code 1', async (argv, message) => {
    const { code, err } = await cli(argv)
    expect(code).toBe(1)
    expect(err).toBe(`${message}\n`)
  })

  it.each(['serve', 'run', 'import', 'admin', 'record', 'platform'])(
    'prints the help of %s, asked for either way',
    async (command) => {
      const asked = await cli(['help', command])
      expect(asked.code).toBe(0)
      expect(asked.out).toMatch(new RegExp(`^Usage: understudy ${command}`))
      const flag = await cli(
        command === 'admin' ? ['admin', 'create-account', '--help'] : [command, '--help'],
      )
      expect(flag.code).toBe(0)
      expect(flag.out).toBe(asked.out)
    },
  )

  it('prints the overview, exit 2 without a command and 0 when asked', async () => {
    const none = await cli([])
    expect(none.code).toBe(2)
    expect(none.out).toMatch(/^Understudy: service virtualization\./)
    const asked = await cli(['help', 'unknown-command'])
    expect(asked.code).toBe(0)
    expect(asked.out).toBe(none.out)
    const admin = await cli(['admin'])
    expect(admin.code).toBe(2)
    expect(admin.out).toMatch(/^Usage: understudy admin/)
  })

  it('creates an account and prints its API key once', async () => {
    const dataDir = join(tempDir('understudy-admin-'), 'data')
    const { code, out, err } = await cli([
      'admin',
      'create-account',
      '--name',
      'Acme',
      '--email',
      'ops@acme.test',
      '--data-dir',
      dataDir,
    ])
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toMatch(/^account \d+ "Acme": owner ops@acme\.test \(user \d+\), workspace \d+\n/)
    expect(out).toMatch(/api key: \S+:\S+/)
  })
})
