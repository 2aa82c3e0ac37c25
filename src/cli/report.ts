import { describeError, isUnderstudyError } from '../errors/index.js'
import type { CommandIo } from './commands/io.js'
import { MissingPackagesError } from './optional-packages.js'
import { exitCodes, UsageError } from './usage-error.js'

/**
 * The one way every command reports a failure: one line on stderr, `<prefix>: <reason>`, and the
 * exit code: 2 for a usage mistake (bad flags or arguments), 1 for everything else.
 *
 * @example
 * return reportFailure(err, 'understudy import', io)
 */
export function reportFailure(err: unknown, prefix: string, io: CommandIo): number {
  if (err instanceof UsageError || isParseArgsError(err)) {
    io.stderr.write(`${prefix}: ${oneLine((err as Error).message)}\n`)
    return exitCodes.usage
  }
  if (err instanceof MissingPackagesError) {
    io.stderr.write(`${prefix}: ${err.message}\n`)
    return exitCodes.failure
  }
  if (isUnderstudyError(err)) {
    io.stderr.write(`${prefix}: ${describeError(err)}\n`)
    return exitCodes.failure
  }
  io.stderr.write(
    `${prefix}: internal error: ${oneLine(err instanceof Error ? err.message : String(err))}\n`,
  )
  return exitCodes.failure
}

/** parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes and a readable message. */
function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')
}

/**
 * The text on one line.
 *
 * @example
 * oneLine('a\n  b') // 'a b'
 */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}
