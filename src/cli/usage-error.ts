/**
 * A mistake on the command line: reported as one line, exit code 2. Kept apart from
 * UnderstudyError so that the CLI can tell usage problems (2) from run-time failures (1).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** Exit codes of every command (docs/architecture.md#start-up-contract: non-zero with a one-line reason). */
export const exitCodes = {
  ok: 0,
  /** A bad file, a port in use, an unreadable certificate: the command could not do its job. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
} as const
