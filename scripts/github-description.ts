import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/*
 * GitHub's REST API description (13 MB, from the @octokit/openapi package) is the largest real
 * OpenAPI file the importer is measured on. The package unpacks to 385 MB for this one file, so
 * it is not a dependency: `npm run bench:import` fetches the file once into this cache, and the
 * tests that read it run when it is there (or at UNDERSTUDY_GITHUB_OPENAPI) and skip otherwise.
 */

/** The package version the figures in bench/README.md were measured with. */
const PACKAGE = '@octokit/openapi@23.0.2'
const ENTRY = 'package/generated/api.github.com.json'

/** Where the description is looked for: UNDERSTUDY_GITHUB_OPENAPI, else the cache in node_modules. */
export const githubDescriptionFile =
  process.env['UNDERSTUDY_GITHUB_OPENAPI'] ??
  resolve(import.meta.dirname, '../node_modules/.cache/understudy/api.github.com.json')

/**
 * The description's path, fetched with `npm pack` (the npm registry) and unpacked with `tar` when
 * it is not there yet.
 *
 * @example
 * const file = fetchGithubDescription() // .../node_modules/.cache/understudy/api.github.com.json
 */
export function fetchGithubDescription(): string {
  if (existsSync(githubDescriptionFile)) return githubDescriptionFile
  const work = mkdtempSync(join(tmpdir(), 'understudy-octokit-'))
  try {
    execFileSync('npm', ['pack', PACKAGE, '--pack-destination', work, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))
    if (tarball === undefined) throw new Error(`npm pack ${PACKAGE} wrote no tarball`)
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, ENTRY])
    mkdirSync(resolve(githubDescriptionFile, '..'), { recursive: true })
    renameSync(join(work, ENTRY), githubDescriptionFile)
    return githubDescriptionFile
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
