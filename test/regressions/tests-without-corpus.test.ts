import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve as resolvePath } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: a clone without ../shared failed `npm test`: test/e2e/monitor/runs.test.ts read
// ../shared/realworld/runscope itself, without a skip and ignoring UNDERSTUDY_REALWORLD. Every
// test now reaches the corpus through test/helpers/realworld.ts; these checks keep it so.

const root = resolvePath(import.meta.dirname, '../..')
const helper = 'test/helpers/realworld.ts'
/** The helper's own check, which asks whether the corpus was found. */
const corpusCheck = 'test/unit/realworld-corpus.test.ts'
const thisFile = relative(root, import.meta.filename)

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|js|mjs)$/.test(d.name))
    .map((d) => relative(root, join(d.parentPath, d.name)))
    .sort()
}

/** Test files that read the corpus: those importing the helper (never this file: it would run itself). */
function corpusReaders(): string[] {
  const importsHelper = /from '(\.\.\/)+helpers\/realworld\.js'/
  return sourceFiles('test').filter(
    (f) =>
      f.endsWith('.test.ts') &&
      f !== corpusCheck &&
      f !== thisFile &&
      importsHelper.test(readFileSync(join(root, f), 'utf8')),
  )
}

describe('the test suite without the real-world corpus', () => {
  it('reaches the corpus only through the one helper', () => {
    // A path of its own, the variable, or the helper's raw directory would bypass the skip-with-a-reason.
    const bypass = /shared[/\\]realworld|UNDERSTUDY_REALWORLD|\brealworldDir\b|['"]realworld['"]/
    const offenders = [...sourceFiles('test'), ...sourceFiles('bench')]
      .filter((f) => f !== helper && f !== corpusCheck && f !== thisFile)
      .filter((f) => bypass.test(readFileSync(join(root, f), 'utf8')))
    expect(offenders).toEqual([])
    expect(corpusReaders()).toContain('test/e2e/monitor/runs.test.ts')
  })

  it('names every such file in the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(corpusReaders().filter((f) => !readme.includes(`\`${f}\``))).toEqual([])
  })

  it('skips every corpus test with its reason, and fails none, when the corpus is absent', async () => {
    const files = corpusReaders()
    const absent = join(tempDir('understudy-no-corpus-'), 'realworld')
    const report = join(tempDir('understudy-no-corpus-report-'), 'report.json')
    const vitest = join(root, 'node_modules/vitest/vitest.mjs')
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          [vitest, 'run', ...files, '--reporter=json', `--outputFile=${report}`],
          {
            cwd: root,
            env: { ...process.env, UNDERSTUDY_REALWORLD: absent },
            maxBuffer: 64 * 1024 * 1024,
          },
          (_err, _stdout, stderrText) => resolve({ code: child.exitCode, stderr: stderrText }),
        )
      },
    )
    const result = JSON.parse(readFileSync(report, 'utf8')) as {
      numFailedTests: number
      numFailedTestSuites: number
      testResults: Array<{
        name: string
        assertionResults: Array<{ status: string; fullName: string }>
      }>
    }
    const failed = result.testResults.flatMap((r) =>
      r.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${relative(root, r.name)}: ${a.fullName}`),
    )
    expect(failed).toEqual([])
    expect(result.numFailedTestSuites).toBe(0)
    expect(code).toBe(0)
    const skipped = result.testResults.flatMap((r) =>
      r.assertionResults.filter((a) => a.status === 'skipped' || a.status === 'pending'),
    )
    expect(skipped.length).toBeGreaterThan(0)
    // one reason line per skipped suite or test, naming the directory that was looked for
    const reasons = stderr
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('skipped "') &&
          line.includes(`UNDERSTUDY_REALWORLD=${absent} does not exist`),
      )
    expect(reasons.length).toBeGreaterThanOrEqual(files.length)
    expect(reasons.some((line) => line.includes('replays the real test exports'))).toBe(true)
    expect(
      reasons.some((line) => line.includes('the real test exports, run against a local target')),
    ).toBe(true)
  }, 240_000)
})
