import { createRequire } from 'node:module'

/*
 * The platform's own libraries are optional dependencies of the package (README, "Install"):
 * `npm i --omit=optional` gives a tool that serves, runs and imports files in seconds, without
 * compiling better-sqlite3. npm also drops an optional dependency whose install script fails (no
 * C++ compiler, no prebuilt binary) and carries on. Either way the platform would die on its
 * first import with a stack trace naming one package; commands that need these libraries check
 * for them first and say, in one line, every one that is missing and how to get them.
 */

/** The platform's optional packages with what each is for. The other optionalDependencies are loaded only by a feature that asks for them: @redis/client (`--scenario-store`), @kubernetes/client-node (the Kubernetes driver), pg (`--store postgres://`, see requireFeaturePackage). */
const optionalPackages: ReadonlyArray<{ name: string; purpose: string }> = [
  { name: 'better-sqlite3', purpose: 'the store' },
  { name: 'nodemailer', purpose: 'e-mail notifications' },
  { name: 'oauth-1.0a', purpose: 'OAuth 1.0a steps' },
  { name: 'oauth4webapi', purpose: 'OAuth 2 steps' },
  { name: 'croner', purpose: 'monitoring schedules' },
  { name: 'quickjs-emscripten', purpose: 'the script sandbox' },
  { name: 'lodash', purpose: 'the script sandbox' },
  { name: 'moment', purpose: 'the script sandbox' },
  { name: 'crypto-js', purpose: 'the script sandbox' },
  { name: 'tv4', purpose: 'the script sandbox' },
]

/** Optional packages a feature loads only when it is asked for, with what each is for. */
const featurePackages = {
  pg: 'the PostgreSQL store (--store postgres://)',
} as const

/** A command that cannot run because optional packages are not installed; the message says which. */
export class MissingPackagesError extends Error {
  override readonly name = 'MissingPackagesError'
}

/**
 * Whether a package resolves from this module, as the platform's own imports would resolve it.
 * better-sqlite3 must also load its native binding: an install with --ignore-scripts, or a build
 * that failed halfway, leaves the package without it.
 */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name)
    if (name === 'better-sqlite3') {
      const Database = createRequire(import.meta.url)(name) as new (file: string) => {
        close: () => void
      }
      new Database(':memory:').close()
    }
    return true
  } catch {
    return false
  }
}

/**
 * Throws a MissingPackagesError naming every optional package that is not installed (the CLI
 * prints it after the command's name).
 *
 * @example
 * requireOptionalPackages() // throws when the package was installed with --omit=optional
 */
export function requireOptionalPackages(): void {
  const missing = optionalPackages.filter((p) => !installed(p.name))
  if (missing.length === 0) return
  // One purpose, named once: `quickjs-emscripten, lodash (the script sandbox)`.
  const byPurpose = new Map<string, string[]>()
  for (const p of missing) byPurpose.set(p.purpose, [...(byPurpose.get(p.purpose) ?? []), p.name])
  const list = [...byPurpose]
    .map(([purpose, names]) => `${names.join(', ')} (${purpose})`)
    .join(', ')
  throw new MissingPackagesError(
    `needs optional packages that are not installed: ${list}; ` +
      'install the package with them: npm i -g @understudy-mock/understudy --include=optional (without -g in a project); ' +
      'an install with --ignore-scripts, or without a C++ compiler, leaves better-sqlite3 unbuilt (README.md, "Install")',
  )
}

/**
 * Throws a MissingPackagesError when the optional package a feature needs is not installed: a
 * platform on SQLite never needs `pg`, so only `--store postgres://` asks for it.
 *
 * @example
 * requireFeaturePackage('pg') // throws when node-postgres is not installed
 */
export function requireFeaturePackage(name: keyof typeof featurePackages): void {
  if (installed(name)) return
  throw new MissingPackagesError(
    `needs the optional package ${name} for ${featurePackages[name]}, which is not installed: npm i -g @understudy-mock/understudy --include=optional (without -g in a project), or npm install ${name}`,
  )
}
