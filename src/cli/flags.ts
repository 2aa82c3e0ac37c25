import { parseArgs, type ParseArgsConfig } from 'node:util'
// the module itself, not the dsl index: parsing flags must not load ajv and the schemas
import { nearestName } from '../dsl/nearest-name.js'
import { UsageError } from './usage-error.js'

/**
 * `parseArgs` with strict flags, whose unknown flag is answered as a person would want it:
 * `unknown flag --prot (did you mean --port?)`.
 *
 * @example
 * const { values } = parseFlags({ args, options: { port: { type: 'string' } }, allowPositionals: true })
 */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const known = Object.keys(config.options ?? {})
  refuseSingleDashWords(config.args ?? [], known)
  try {
    // strict by default: unknown flags throw
    return parseArgs(config)
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /Unknown option '([^']+)'/.exec((err as Error).message)?.[1] ?? ''
      throw new UsageError(unknownFlagMessage(flag, known))
    }
    throw err
  }
}

/**
 * `-port 8080` would be read as the short flags `-p ort`: a single dash before a word that names
 * a long flag (or nearly) is refused with the flag meant, before parseArgs misreads it.
 */
function refuseSingleDashWords(args: readonly string[], known: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') return
    const word = /^-([a-zA-Z][a-zA-Z-]{2,})(=.*)?$/.exec(arg)?.[1]
    if (word === undefined) continue
    const meant = known.includes(word) ? word : nearestName(word, known)
    if (meant !== null) {
      throw new UsageError(`unknown flag ${arg.split('=')[0] ?? arg} (did you mean --${meant}?)`)
    }
  }
}

/**
 * The message of an unknown flag, with the nearest known flag when one is close.
 *
 * @example
 * unknownFlagMessage('--prot', ['port', 'host']) // 'unknown flag --prot (did you mean --port?)'
 * unknownFlagMessage('--admin', ['admin-port', 'host']) // 'unknown flag --admin (did you mean --admin-port?)'
 */
export function unknownFlagMessage(flag: string, known: readonly string[]): string {
  const name = flag.replace(/^-+/, '').split('=')[0] ?? ''
  const best = nearestName(name, known)
  const shown = flag.startsWith('-') ? flag.split('=')[0] : `--${name}`
  return best !== null
    ? `unknown flag ${shown} (did you mean --${best}?)`
    : `unknown flag ${shown} (see --help)`
}
