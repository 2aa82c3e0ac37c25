import { cpSync, existsSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { installedCopy, platformOptionalDependencies } from '../helpers/installed-package.js'

// The platform's libraries are optional dependencies (README, "Install"): an install that left
// them out, or whose better-sqlite3 build failed, must still explain itself when the platform is
// asked for, in one line naming what is missing and how to get it, instead of a module-resolution
// stack trace.

const root = resolve(import.meta.dirname, '../..')

function expectOneLine(stderr: string, prefix: string): string {
  const lines = stderr.trimEnd().split('\n')
  expect(lines, stderr).toHaveLength(1)
  const [line = ''] = lines
  expect(line.startsWith(`${prefix}: needs optional packages that are not installed: `), line).toBe(
    true,
  )
  expect(line).toContain('npm i -g @understudy-mock/understudy --include=optional')
  return line
}

describe('the platform without its optional packages', () => {
  it('platform and admin exit 1 with one line naming every missing package and the install command', async () => {
    const { pkgDir, bin } = installedCopy({ omitOptional: true })
    const dataDir = join(pkgDir, 'data')

    const platform = await runCli(['platform', '--port', '0', '--data-dir', dataDir], {
      bin,
      cwd: pkgDir,
    })
    expect(platform.code).toBe(1)
    const line = expectOneLine(platform.stderr, 'understudy platform')
    for (const name of platformOptionalDependencies) expect(line).toContain(name)
    expect(line).toContain('better-sqlite3 (the store)')
    expect(existsSync(dataDir)).toBe(false)

    const admin = await runCli(
      ['admin', 'create-account', '--name', 'A', '--email', 'a@example.com', '--data-dir', dataDir],
      { bin, cwd: pkgDir },
    )
    expect(admin.code).toBe(1)
    expectOneLine(admin.stderr, 'understudy admin')

    // What does not need them still works.
    const version = await runCli(['--version'], { bin, cwd: pkgDir })
    expect(version.code).toBe(0)
  }, 60_000)

  it('names better-sqlite3 alone when it is installed without its native binding (--ignore-scripts, a failed build)', async () => {
    const { pkgDir, bin } = installedCopy({ omitOptional: false })
    const linked = join(pkgDir, 'node_modules/better-sqlite3')
    rmSync(linked)
    cpSync(join(root, 'node_modules/better-sqlite3'), linked, {
      recursive: true,
      filter: (source) => !source.includes('/build'),
    })

    const platform = await runCli(['platform', '--port', '0', '--data-dir', join(pkgDir, 'data')], {
      bin,
      cwd: pkgDir,
    })
    expect(platform.code).toBe(1)
    const line = expectOneLine(platform.stderr, 'understudy platform')
    expect(line).toContain('installed: better-sqlite3 (the store);')
  }, 60_000)
})
