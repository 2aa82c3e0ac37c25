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
export function defaultRuntimeCommand (): RuntimeCommand {
  return { executable: process.execPath, args: [join(packageRoot(), 'dist', 'src', 'cli', 'main.js')] }
}

let root: string | null = null

/** The nearest folder above this file whose package.json names `understudy`. */
function packageRoot (): string {
  if (root !== null) return root
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'understudy') {
      root = dir
      return dir
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('cannot find the understudy package root above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
}
