import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe } from 'vitest'
import { githubDescriptionFile } from '../../scripts/github-description.js'

/**
 * The real-world inputs written by others (`../shared/realworld/` next to the repository, or
 * `UNDERSTUDY_REALWORLD`). Tests that use them skip cleanly when the folder is absent.
 */
export const realworldDir: string | null = (() => {
  const dir = process.env['UNDERSTUDY_REALWORLD'] ?? resolve(import.meta.dirname, '../../../shared/realworld')
  return existsSync(dir) ? dir : null
})()

/** Names of the files of one category folder (`har`, `openapi`, ...), sorted; [] when absent. */
export function realworldFiles (category: string): string[] {
  if (realworldDir === null) return []
  const dir = join(realworldDir, category)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name).sort()
}

/** Bytes of one real-world file. */
export function readRealworld (category: string, name: string): Buffer {
  if (realworldDir === null) throw new Error('realworld folder is absent')
  return readFileSync(join(realworldDir, category, name))
}

/** Where the corpus is looked for when UNDERSTUDY_REALWORLD is not set. */
export const conventionalRealworldDir = resolve(import.meta.dirname, '../../../shared/realworld')

/**
 * `describe` for a suite that replays the real-world corpus: without it, the suite skips and says
 * so in one line on stderr (which suite, and how to run it), instead of skipping silently.
 *
 * @example
 * describeRealworld('importHar on real-world captures', () => { ... })
 */
export function describeRealworld (name: string, body: () => void): void {
  if (realworldDir === null) {
    process.stderr.write(`skipped "${name}": it needs the real-world corpus (../shared/realworld next to the repository, or UNDERSTUDY_REALWORLD=<dir>)\n`)
  }
  describe.skipIf(realworldDir === null)(name, body)
}

/**
 * `describe` for a suite that reads GitHub's REST API description, which is not a dependency
 * (scripts/github-description.ts): without it the suite skips and says how to fetch it.
 *
 * @example
 * describeGithubDescription('serving GitHub', () => { ... })
 */
export function describeGithubDescription (name: string, body: () => void): void {
  const present = existsSync(githubDescriptionFile)
  if (!present) {
    process.stderr.write(`skipped "${name}": it needs GitHub's REST API description (npm run bench:import fetches it into ${githubDescriptionFile}, or set UNDERSTUDY_GITHUB_OPENAPI=<file>)\n`)
  }
  describe.skipIf(!present)(name, body)
}
