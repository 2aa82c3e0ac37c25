import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempDir } from './temp-dir.js'

const root = resolve(import.meta.dirname, '../..')

/** The package's optionalDependencies: the platform's libraries, which `serve` never needs. */
export const optionalDependencies: readonly string[] = Object.keys(
  (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>
    }
  ).optionalDependencies ?? {},
)

/**
 * The optional dependencies the platform needs (src/cli/optional-packages.ts); the others are
 * loaded only by a feature asked for by a flag (`--scenario-store`, `--store postgres://`, the Kubernetes driver).
 */
export const platformOptionalDependencies: readonly string[] = optionalDependencies.filter(
  (name) => !['@kubernetes/client-node', '@redis/client', 'pg'].includes(name),
)

/**
 * Lays out `pkgDir/node_modules` as an install would, without the network: each package of the
 * repository's node_modules linked in, except the optional dependencies when `omitOptional` (what
 * `npm i --omit=optional` leaves out). Packages only the optional ones need stay: they are
 * harmless, and what matters is that the package's own imports of the optional ones fail.
 */
export function linkDependencies(
  pkgDir: string,
  { omitOptional }: { omitOptional: boolean },
): void {
  const modules = join(pkgDir, 'node_modules')
  mkdirSync(modules, { recursive: true })
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.')) continue
    if (omitOptional && optionalDependencies.includes(name)) continue
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir')
  }
}

/**
 * A copy of the built package (dist/, package.json) in a temporary directory, with its
 * dependencies laid out by linkDependencies; returns the path of its command. A copy, not a link:
 * Node resolves a module's imports from its real path, which would find the repository's
 * node_modules again.
 */
export function installedCopy({ omitOptional }: { omitOptional: boolean }): {
  pkgDir: string
  bin: string
} {
  const pkgDir = join(tempDir('understudy-installed-'), 'package')
  mkdirSync(pkgDir)
  cpSync(join(root, 'package.json'), join(pkgDir, 'package.json'))
  for (const dir of ['dist/src', 'dist/importers', 'dist/ui']) {
    cpSync(join(root, dir), join(pkgDir, dir), {
      recursive: true,
      filter: (source) => !source.endsWith('.map'),
    })
  }
  linkDependencies(pkgDir, { omitOptional })
  return { pkgDir, bin: join(pkgDir, 'dist/src/cli/main.js') }
}
