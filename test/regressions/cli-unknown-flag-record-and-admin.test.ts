import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

// `understudy record` and `understudy admin create-account` answered a misspelt flag with Node's
// own parser message ("Unknown option '--targt'. To specify a positional argument starting with
// a '-', ...") instead of the nearest flag, as every other command does.
describe('a misspelt flag of record and admin', () => {
  it('is answered with the nearest known flag and exit code 2', async () => {
    for (const [args, expected] of [
      [
        ['record', '--targt', 'http://127.0.0.1:9'],
        'unknown flag --targt (did you mean --target?)',
      ],
      [
        ['admin', 'create-account', '--emial', 'a@b.c'],
        'unknown flag --emial (did you mean --email?)',
      ],
    ] as const) {
      const result = await runCli([...args])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(expected)
      expect(result.stderr).not.toContain('To specify a positional argument')
    }
  })
})
