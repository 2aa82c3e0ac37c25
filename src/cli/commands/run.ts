import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createLogger, LogRing } from '../../log/index.js'
import { loadDefinitionText } from '../../dsl/index.js'
import { createError } from '../../errors/index.js'
import { runtimeFlagHelp, runtimeFlagSpec, runtimeOptionsFromFlags } from '../runtime-flags.js'
import { exitOnSignals, startServing } from '../lifecycle.js'
import { UsageError } from '../usage-error.js'
import type { CommandIo } from './io.js'

export const runHelp = `Usage: understudy run --mock <mock-service.json> [flags]

Runs exactly one mock service, as in a container or when the platform deploys it. The document is
a mock-service record with its resolved transactions (JSON or YAML). With --admin-port, the
platform (or you) can swap the configuration, read inspection data and logs.

Flags:
  --mock FILE                  the mock-service document (required)
${runtimeFlagHelp}
`

/**
 * `understudy run --mock <doc.json>`: one mock service. Resolves when the runtime is up; the
 * process then lives until a signal drains it.
 */
export async function runRunCommand (args: string[], io: CommandIo): Promise<number | 'running'> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...runtimeFlagSpec, mock: { type: 'string', short: 'm' } },
    allowPositionals: true,
    strict: true,
  })
  if (values.help === true) {
    io.stdout.write(runHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}" (the document is given with --mock)`)
  if (values.mock === undefined) throw new UsageError('--mock <mock-service.json> is required')
  const options = runtimeOptionsFromFlags(values)
  let text: string
  try {
    text = readFileSync(values.mock, 'utf8')
  } catch (err) {
    throw createError('ERR_CONFIG_FILE', [values.mock, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message])
  }
  const document = loadDefinitionText(text, values.mock)
  const logRing = new LogRing(10_000)
  const log = createLogger({ level: options.logLevel, ring: logRing, base: { serviceMockId: document.id ?? 0 } })
  const serving = await startServing({ document, options, log, logRing, out: io.stdout })
  exitOnSignals(serving.stop, log)
  return 'running'
}
