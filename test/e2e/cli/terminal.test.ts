import { execFileSync, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { cliPath, runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { unknownFlagMessage } from '../../../src/cli/flags.js'
import { resolveLogFormat } from '../../../src/log/index.js'

/* A person at a terminal: readable logs, helpful flag errors, and a summary after import. */

const hasScript = ((): boolean => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

function mockFile(): string {
  const file = join(tempDir(), 'mock.yaml')
  writeFileSync(file, '- dsl: { requestDsl: { path: /a }, responseDsl: { text: a } }\n')
  return file
}

describe('log format', () => {
  it('is JSON lines when standard error is not a terminal', async () => {
    const server = await startCli(['serve', mockFile(), '--port', '0'])
    await server.waitFor('stderr', '"msg":"listening"')
    const first = server.stderr().split('\n')[0] ?? ''
    expect(() => JSON.parse(first) as unknown).not.toThrow()
  })

  it('is readable lines with --log-format pretty', async () => {
    const server = await startCli(['serve', mockFile(), '--port', '0', '--log-format', 'pretty'])
    await server.waitFor('stderr', 'listening')
    expect(server.stderr()).toMatch(/INFO.*listening/)
    expect(server.stderr()).not.toContain('"msg":')
  })

  it.skipIf(!hasScript)(
    'is readable lines when standard error is a terminal (under script(1)), JSON with --log-format json',
    async () => {
      const inTerminal = async (extra: string[]): Promise<string> => {
        const command = [
          process.execPath,
          cliPath,
          'serve',
          mockFile(),
          '--port',
          '0',
          ...extra,
        ].join(' ')
        const child = spawn('script', ['-qec', command, '/dev/null'], {
          stdio: ['ignore', 'pipe', 'ignore'],
        })
        onTestFinished(() => {
          if (child.exitCode === null) child.kill('SIGKILL')
        })
        let output = ''
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no listening log line: ${output}`)),
            15_000,
          )
          child.stdout.on('data', (c: Buffer) => {
            output += c.toString()
            // the log line comes after the `listening on` line
            if (/INFO.*listening|"msg":"listening"/.test(output)) {
              clearTimeout(timer)
              resolve()
            }
          })
        })
        // closing the terminal hangs the server up
        child.kill('SIGTERM')
        return output
      }
      const pretty = await inTerminal([])
      expect(pretty).toMatch(/INFO.*listening/)
      expect(pretty).not.toContain('"msg":"listening"')
      const json = await inTerminal(['--log-format', 'json'])
      expect(json).toContain('"msg":"listening"')
    },
  )

  it('resolves auto by whether the stream is a terminal', () => {
    expect(resolveLogFormat('auto', { isTTY: true })).toBe('pretty')
    expect(resolveLogFormat('auto', {})).toBe('json')
    expect(resolveLogFormat('json', { isTTY: true })).toBe('json')
  })

  it('refuses an unknown format naming the flag', async () => {
    const result = await runCli(['serve', mockFile(), '--log-format', 'xml'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--log-format')
  })
})

describe('unknown flags', () => {
  it('answer with the nearest known flag, for every command', async () => {
    for (const [args, expected] of [
      [['serve', 'x', '--prot', '1'], 'unknown flag --prot (did you mean --port?)'],
      [['run', '--mokc', 'x'], 'unknown flag --mokc (did you mean --mock?)'],
      [['import', 'x', '--fromat', 'har'], 'unknown flag --fromat (did you mean --format?)'],
      [['platform', '--data-dri', 'x'], 'unknown flag --data-dri (did you mean --data-dir?)'],
    ] as const) {
      const result = await runCli([...args])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(expected)
    }
  })

  it('say to see --help when nothing is close', () => {
    expect(unknownFlagMessage('--zzzzzzzz', ['port', 'host'])).toBe(
      'unknown flag --zzzzzzzz (see --help)',
    )
    expect(unknownFlagMessage('--watc', ['watch', 'port'])).toBe(
      'unknown flag --watc (did you mean --watch?)',
    )
  })
})

describe('understudy import', () => {
  it('ends with a one-line summary on standard error', async () => {
    const file = mockFile()
    const printed = await runCli(['import', file])
    expect(printed.code).toBe(0)
    expect(printed.stderr.trim().split('\n').at(-1)).toMatch(
      /^imported 1 transaction \(\w+\) from .*mock\.yaml to standard output, 0 warnings$/,
    )
    const out = join(tempDir(), 'out.yaml')
    const written = await runCli(['import', file, '-o', out])
    expect(written.stderr.trim()).toMatch(
      /^imported 1 transaction \(\w+\) from .* into .*out\.yaml, 0 warnings$/,
    )
  })
})
