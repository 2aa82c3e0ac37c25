import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { UsageError } from './usage-error.js'

/**
 * Makes sure `--data-dir` exists and is writable before anything opens it, creating the missing
 * folders one level at a time: a recursive mkdir never returns for some paths (under /proc), and
 * a path through a file or a read-only folder should fail at once, in one line, not deep in
 * SQLite. Throws UsageError naming the flag and the reason.
 *
 * @example
 * prepareDataDir('/var/lib/understudy') // creates it if needed, or throws
 */
export function prepareDataDir(dir: string): void {
  const target = resolve(dir)
  const missing: string[] = []
  let existing = target
  while (!existsSync(existing)) {
    missing.unshift(existing)
    const parent = dirname(existing)
    if (parent === existing) break
    existing = parent
  }
  if (!statSync(existing).isDirectory()) throw refused(dir, `${existing} is not a directory`)
  try {
    accessSync(existing, constants.W_OK)
    for (const folder of missing) mkdirSync(folder)
    accessSync(target, constants.W_OK)
  } catch (err) {
    throw refused(
      dir,
      (err as NodeJS.ErrnoException).code === 'EACCES'
        ? `${existing} is not writable`
        : (err as Error).message,
    )
  }
}

function refused(dir: string, reason: string): UsageError {
  return new UsageError(`--data-dir ${dir} cannot be used: ${reason}`)
}
