import {
  DEFAULT_EGRESS_LEVEL,
  EgressPolicy,
  egressLevels,
  type EgressLevel,
  type EgressSettings,
} from '../net/index.js'
import { UsageError } from './usage-error.js'

/**
 * `--egress LEVEL` and `--egress-allow CIDR,CIDR` (of `platform`, `serve` and `run`), checked:
 * a bad value is a one-line usage error naming the flag.
 *
 * @example
 * egressFromFlags('public', '10.1.0.0/16') // { level: 'public', allow: ['10.1.0.0/16'] }
 */
export function egressFromFlags(
  level: string | boolean | undefined,
  allow: string | boolean | undefined,
): Pick<EgressSettings, 'level' | 'allow'> {
  const chosen = typeof level === 'string' ? level : DEFAULT_EGRESS_LEVEL
  if (!(egressLevels as readonly string[]).includes(chosen)) {
    throw new UsageError(`--egress must be one of ${egressLevels.join(', ')}, not "${chosen}"`)
  }
  const networks =
    typeof allow === 'string'
      ? allow
          .split(',')
          .map((n) => n.trim())
          .filter((n) => n !== '')
      : []
  let checked: EgressPolicy
  try {
    // Compiles the networks once, to refuse a bad one at start rather than on the first request.
    checked = new EgressPolicy({
      level: chosen as EgressLevel,
      allow: networks,
      protectedPorts: [],
      protectedPortsFile: null,
    })
  } catch (err) {
    throw new UsageError(
      `--egress-allow: ${err instanceof Error ? err.message.replace(/^Invalid options: /, '') : String(err)}`,
    )
  }
  return { level: checked.settings.level, allow: [...checked.settings.allow] }
}
