import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** How to start `understudy`: an executable and the arguments before the command (`run ...`). */
export interface RuntimeCommand {
  executable: string
  args: readonly string[]
}

/**
 * `node <package root>/dist/src/cli/main.js`: the built command line, found from this file both
 * when it runs from `dist/` and when tests run the sources (which need `npm run build` first).
 *
 * @example
 * const { executable, args } = defaultRuntimeCommand() // process.execPath, ['/app/dist/src/cli/main.js']
 */
export function defaultRuntimeCommand(): RuntimeCommand {
  return {
    executable: process.execPath,
    args: [join(packageRoot(), 'dist', 'src', 'cli', 'main.js')],
  }
}

let root: string | null = null

/**
 * The nearest folder above this file whose package.json has the `understudy` command (the package
 * is published as `@understudy-mock/understudy`; its name is not relied upon).
 */
function packageRoot(): string {
  if (root !== null) return root
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (
      existsSync(manifest) &&
      hasCommand(JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: unknown })
    ) {
      root = dir
      return dir
    }
    const parent = dirname(dir)
    if (parent === dir) {
      throw new Error(
        'cannot find the understudy package root above ' + fileURLToPath(import.meta.url),
      )
    }
    dir = parent
  }
}

function hasCommand(manifest: { bin?: unknown }): boolean {
  const bin = manifest.bin
  return typeof bin === 'object' && bin !== null && 'understudy' in bin
}
