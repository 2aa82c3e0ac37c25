import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './usage-error.js'

/**
 * `parseArgs` with strict flags, whose unknown flag is answered as a person would want it:
 * `unknown flag --prot (did you mean --port?)`.
 *
 * @example
 * const { values } = parseFlags({ args, options: { port: { type: 'string' } }, allowPositionals: true })
 */
export function parseFlags<T extends ParseArgsConfig> (config: T): ReturnType<typeof parseArgs<T>> {
  try {
    // strict by default: unknown flags throw
    return parseArgs(config)
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /Unknown option '([^']+)'/.exec((err as Error).message)?.[1] ?? ''
      throw new UsageError(unknownFlagMessage(flag, Object.keys(config.options ?? {})))
    }
    throw err
  }
}

/**
 * The message of an unknown flag, with the nearest known flag when one is close.
 *
 * @example
 * unknownFlagMessage('--prot', ['port', 'host']) // 'unknown flag --prot (did you mean --port?)'
 */
export function unknownFlagMessage (flag: string, known: readonly string[]): string {
  const name = flag.replace(/^-+/, '').split('=')[0] ?? ''
  let best: string | null = null
  let bestDistance = Infinity
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  const close = best !== null && (bestDistance <= Math.max(2, Math.floor(best.length / 3)) || best.startsWith(name) || name.startsWith(best))
  const shown = flag.startsWith('-') ? flag.split('=')[0] : `--${name}`
  return close ? `unknown flag ${shown} (did you mean --${best}?)` : `unknown flag ${shown} (see --help)`
}

function editDistance (a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1), (previous[j] as number) + 1, (current[j - 1] as number) + 1)
    }
    previous = current
  }
  return previous[b.length] as number
}
