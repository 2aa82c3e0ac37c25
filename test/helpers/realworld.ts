import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it, type TestFunction } from 'vitest'
import { githubDescriptionFile } from '../../scripts/github-description.js'

/**
 * The real-world inputs written by others (`../shared/realworld/` next to the repository, or
 * `UNDERSTUDY_REALWORLD`), and the one way tests reach them: every test that reads the corpus
 * imports this module (test/unit/realworld-corpus.test.ts checks it). Without the corpus, its
 * suites skip and say so in one line; with it, a missing file fails the test that needs it,
 * naming the file, instead of skipping.
 */

/** Where the corpus is looked for when UNDERSTUDY_REALWORLD is not set. */
export const conventionalRealworldDir = resolve(import.meta.dirname, '../../../shared/realworld')

const configuredDir = process.env['UNDERSTUDY_REALWORLD']

export const realworldDir: string | null = (() => {
  const dir = configuredDir ?? conventionalRealworldDir
  return existsSync(dir) ? dir : null
})()

/** Why the corpus suites skip, said once per suite. */
const absentReason =
  configuredDir === undefined
    ? 'it needs the real-world corpus (../shared/realworld next to the repository, or UNDERSTUDY_REALWORLD=<dir>)'
    : `it needs the real-world corpus, and UNDERSTUDY_REALWORLD=${configuredDir} does not exist`

/** Names of the files of one category folder (`har`, `openapi`, ...), sorted; [] when absent. */
export function realworldFiles(category: string): string[] {
  if (realworldDir === null) return []
  const dir = join(realworldDir, category)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name)
    .sort()
}

/**
 * The path of one real-world file. Throws, naming it, when the corpus is present without it: an
 * incomplete corpus is a failure, never a silent skip.
 */
export function realworldPath(category: string, name: string): string {
  if (realworldDir === null) {
    throw new Error(`real-world file ${category}/${name} wanted, but ${absentReason}`)
  }
  const path = join(realworldDir, category, name)
  if (!existsSync(path)) {
    throw new Error(`the real-world corpus at ${realworldDir} lacks ${category}/${name}`)
  }
  return path
}

/** Bytes of one real-world file (see realworldPath for a missing one). */
export function readRealworld(category: string, name: string): Buffer {
  return readFileSync(realworldPath(category, name))
}

function sayAbsent(name: string): void {
  process.stderr.write(`skipped "${name}": ${absentReason}\n`)
}

/**
 * `describe` for a suite that replays the real-world corpus: without it, the suite skips and says
 * so in one line on stderr (which suite, and how to run it), instead of skipping silently.
 *
 * @example
 * describeRealworld('importHar on real-world captures', () => { ... })
 */
export function describeRealworld(name: string, body: () => void): void {
  if (realworldDir === null) sayAbsent(name)
  describe.skipIf(realworldDir === null)(name, body)
}

/**
 * `it` for one test, inside a suite that otherwise runs without the corpus, that needs it: skips
 * with the same one-line reason when it is absent.
 *
 * @example
 * itRealworld('replays the real exports', async () => { ... }, 60_000)
 */
export function itRealworld(name: string, fn: TestFunction, timeout?: number): void {
  if (realworldDir === null) sayAbsent(name)
  it.skipIf(realworldDir === null)(name, fn, timeout)
}

/**
 * `describe` for a suite that reads GitHub's REST API description, which is not a dependency
 * (scripts/github-description.ts): without it the suite skips and says how to fetch it.
 *
 * @example
 * describeGithubDescription('serving GitHub', () => { ... })
 */
export function describeGithubDescription(name: string, body: () => void): void {
  const present = existsSync(githubDescriptionFile)
  if (!present) {
    process.stderr.write(
      `skipped "${name}": it needs GitHub's REST API description (npm run bench:import fetches it into ${githubDescriptionFile}, or set UNDERSTUDY_GITHUB_OPENAPI=<file>)\n`,
    )
  }
  describe.skipIf(!present)(name, body)
}
