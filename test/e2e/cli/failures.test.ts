import { createServer } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

/** One line on stderr, no stack trace. */
function expectOneLine(stderr: string): void {
  const lines = stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at /)
}

describe('command-line failures', () => {
  it('exits 2 with one line for an unknown flag', async () => {
    const result = await runCli(['serve', '.', '--prot', '8080'])
    expect(result.code).toBe(2)
    expectOneLine(result.stderr)
    expect(result.stderr).toMatch(/^understudy serve: .*--prot/)
  })

  it('exits 2 with one line for a port that is not a number', async () => {
    const result = await runCli(['serve', '.', '--port', 'eighty'])
    expect(result.code).toBe(2)
    expectOneLine(result.stderr)
    expect(result.stderr).toContain('--port must be a non-negative integer')
  })

  it('exits 2 for a port out of range and names the flag', async () => {
    const result = await runCli(['run', '--mock', 'x.json', '--port', '70000'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--port must be <= 65535')
  })

  it('exits 2 for an unknown command and for serve without paths', async () => {
    expect((await runCli(['sevre'])).code).toBe(2)
    const result = await runCli(['serve'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('give at least one file or directory')
  })

  it('exits 1 with one line naming the file, line and field for a bad file', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'bad.yaml'),
      'transactions:\n  - dsl:\n      requestDsl: { method: GET, heders: [] }\n      responseDsl: { status: 700 }\n',
    )
    const result = await runCli(['serve', join(dir, 'bad.yaml'), '--port', '0'])
    expect(result.code).toBe(1)
    expectOneLine(result.stderr)
    expect(result.stderr).toMatch(
      /bad\.yaml:3:\d+ \/transactions\/0\/dsl\/requestDsl\/heders: is not a known property/,
    )
    expect(result.stderr).toContain('/transactions/0/dsl/responseDsl/status: must be <= 599')
    expect(result.stdout).toBe('')
  })

  it('exits 1 with one line for a file that does not exist', async () => {
    const result = await runCli(['serve', '/nonexistent/mocks', '--port', '0'])
    expect(result.code).toBe(1)
    expectOneLine(result.stderr)
    expect(result.stderr).toContain('/nonexistent/mocks')
  })

  it('exits 1 with one line when the port is in use', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    try {
      const dir = tempDir()
      writeFileSync(
        join(dir, 'a.yaml'),
        '- dsl: { requestDsl: { path: /a }, responseDsl: { text: a } }\n',
      )
      const result = await runCli(['serve', dir, '--port', String(port)])
      expect(result.code).toBe(1)
      expectOneLine(result.stderr)
      expect(result.stderr).toContain(`127.0.0.1:${port}`)
      expect(result.stderr).toContain('the port is in use')
    } finally {
      blocker.close()
    }
  })

  it('exits 1 for a mock document that does not exist, and 2 without --mock', async () => {
    const missing = await runCli(['run', '--mock', '/nonexistent/mock.json', '--port', '0'])
    expect(missing.code).toBe(1)
    expectOneLine(missing.stderr)
    expect(missing.stderr).toContain('/nonexistent/mock.json')
    const withoutMock = await runCli(['run', '--port', '0'])
    expect(withoutMock.code).toBe(2)
    expect(withoutMock.stderr).toContain('--mock')
  })

  it('prints help with exit 0, and the version', async () => {
    const help = await runCli(['serve', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: understudy serve')
    const version = await runCli(['--version'])
    expect(version.code).toBe(0)
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('prints the help of every command through `understudy help <command>` and `<command> --help` alike', async () => {
    for (const command of ['serve', 'run', 'import', 'platform']) {
      const viaHelp = await runCli(['help', command])
      const viaFlag = await runCli([command, '--help'])
      expect(viaHelp.code).toBe(0)
      expect(viaHelp.stdout).toContain(`Usage: understudy ${command}`)
      expect(viaFlag.stdout).toBe(viaHelp.stdout)
    }
  })

  it('reports a usage mistake of import in the same one-line form as the other commands (exit 2)', async () => {
    const result = await runCli(['import', '--nope'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('understudy import: unknown flag --nope (see --help)\n')
  })
})
