import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMockServer } from '../../src/index.js'
import { runCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: createMockServer({ files: 'bad.yaml' }) rejected with "Invalid mock definition: 2 errors",
// the file, line and column only in `details`; and a bad regex printed its file name twice
// ("re.yaml: 1 error: re.yaml:4:100 ..."), unlike every other error.

const twoMistakes = [
  'transactions:',
  '  - name: a',
  '    dsl:',
  '      requestDsl: { method: GET, path: /x, metod: GET }',
  '      responseDsl: { status: abc }',
  '',
].join('\n')

const badRegex = [
  'transactions:',
  '  - name: a',
  '    dsl:',
  "      requestDsl: { method: GET, path: /x, headers: [{ key: a, matcherName: matches, matchingValue: '([' }] }",
  '      responseDsl: { status: 200 }',
  '',
].join('\n')

function write(name: string, text: string): string {
  const file = join(tempDir('understudy-errors-'), name)
  writeFileSync(file, text)
  return file
}

async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; details?: unknown[] }> {
  try {
    await promise
  } catch (err) {
    return err as Error & { code?: string; details?: unknown[] }
  }
  throw new Error('expected a rejection')
}

describe('an invalid definition says where, in the library as on the command line', () => {
  it('puts the first problems with file:line:column into the library error message', async () => {
    const file = write('bad.yaml', twoMistakes)
    const err = await rejection(createMockServer({ files: file }))
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.details).toHaveLength(2)
    expect(err.message).toMatch(
      /^Invalid mock definition: 2 errors: \S*bad\.yaml:4:\d+ \/transactions\/0\/dsl\/requestDsl\/metod: is not a known property[^;]*; \S*bad\.yaml:5:\d+ \/transactions\/0\/dsl\/responseDsl\/status: must be integer$/,
    )
  })

  it('says the same for a bad regex, found when the matchers compile, and for inline transactions', async () => {
    const file = write('re.yaml', badRegex)
    const err = await rejection(createMockServer({ files: file }))
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.message).toMatch(
      /^Invalid mock definition: 1 error: \S*re\.yaml:4:\d+ \/transactions\/0\/dsl\/requestDsl\/headers\/0\/matchingValue: is not a valid regular expression/,
    )
    const inline = await rejection(
      createMockServer({
        transactions: [
          { dsl: { requestDsl: { path: '/x', methd: 'GET' }, responseDsl: {} } } as never,
        ],
      }),
    )
    expect(inline.message).toContain('/0/dsl/requestDsl/methd: is not a known property')
  })

  it('names the file once on the command line, for a bad regex as for a schema error', async () => {
    const dir = tempDir('understudy-errors-cli-')
    writeFileSync(join(dir, 're.yaml'), badRegex)
    writeFileSync(join(dir, 'bad.yaml'), twoMistakes)
    const regex = await runCli(['serve', 're.yaml', '--port', '0'], { cwd: dir })
    expect(regex.code).toBe(1)
    expect(regex.stderr).toMatch(
      /^understudy serve: Invalid mock definition: 1 error: re\.yaml:4:\d+ \/transactions\/0\/dsl\/requestDsl\/headers\/0\/matchingValue: is not a valid regular expression[^\n]*\n$/,
    )
    expect(regex.stderr.split('re.yaml')).toHaveLength(2)
    const schema = await runCli(['serve', 'bad.yaml', '--port', '0'], { cwd: dir })
    expect(schema.stderr).toMatch(
      /^understudy serve: Invalid mock definition: 2 errors: bad\.yaml:4:\d+ /,
    )
  })
})
