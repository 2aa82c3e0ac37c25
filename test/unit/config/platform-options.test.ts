import { describe, expect, it } from 'vitest'
import { loadPlatformOptions } from '../../../src/config/index.js'
import { runCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

/* The platform's flags, checked by the options schema as a runtime's are (config/options.ts). */

describe('platform options', () => {
  it('fills the defaults from the schema and freezes the result', () => {
    const options = loadPlatformOptions({ port: 0 })
    expect(options).toEqual({
      host: '127.0.0.1',
      port: 0,
      dataDir: './data',
      uploadLimit: 64 * 1024 * 1024,
      logLevel: 'info',
      logFormat: 'auto',
      resultRetention: 100,
    })
    expect(Object.isFrozen(options)).toBe(true)
  })

  it('refuses every bad option with ERR_CONFIG_INVALID naming it', () => {
    expect(() => loadPlatformOptions({ port: 70000, resultRetention: 0 })).toThrow(
      expect.objectContaining({
        code: 'ERR_CONFIG_INVALID',
        details: [
          { path: '/port', message: 'must be <= 65535' },
          { path: '/resultRetention', message: 'must be >= 1' },
        ],
      }),
    )
  })

  it(
    'answers a bad flag of `understudy platform` with one line naming it, exit code 2, and no data dir',
    { timeout: 30_000 },
    async () => {
      const dir = `${tempDir('understudy-platform-flags-')}/data`
      const cases: Array<[string[], string]> = [
        [['--port', '70000'], '--port must be <= 65535, not "70000"'],
        [['--port', 'x'], '--port must be a non-negative integer, not "x"'],
        [
          ['--log-level', 'loud'],
          '--log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
        ],
        [
          ['--smtp-url', 'mail.example.com'],
          '--smtp-url must be an smtp:// or smtps:// URL, not "mail.example.com"',
        ],
        [['--result-retention', '0'], '--result-retention must be >= 1, not "0"'],
      ]
      for (const [flags, message] of cases) {
        const result = await runCli(['platform', '--data-dir', dir, ...flags])
        expect(result.stderr).toBe(`understudy platform: ${message}\n`)
        expect(result.code).toBe(2)
      }
    },
  )
})
