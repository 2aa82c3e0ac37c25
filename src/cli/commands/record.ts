import { createLogger, LogRing } from '../../log/index.js'
import { readDefinition } from '../../dsl/index.js'
import { runtimeFlagHelp, runtimeFlagSpec, runtimeOptionsFromFlags } from '../runtime-flags.js'
import { exitOnSignals } from '../lifecycle.js'
import { startRuntime, type LiveExchange } from '../../serve/index.js'
import { parseFlags } from '../flags.js'
import { UsageError } from '../usage-error.js'
import { Recorder } from '../recorder.js'
import type { ImportInput, ImportResult } from '../../../importers/index.js'
import type { CommandIo } from './io.js'

export const recordHelp = `Usage: understudy record --target URL [--port 8080] -o DIR [--keep-latency]

Forwards every request to the live system at --target, answers with its response, and writes one
transaction per distinct request (method, path, query, body) to DIR/recorded.json, batched off the
request path. Recording again into the same DIR updates those transactions, never duplicates them.
Serve the result with: understudy serve DIR

Flags:
  --target URL                 the live system (required), such as https://api.example.com
  -o, --out DIR                output directory (required)
  --keep-latency               add the recorded latency as responseDelay (fixed for one sample,
                               lognormal fitted to repeated requests)
${runtimeFlagHelp}
`

/** `understudy record`: a recording proxy. */
export async function runRecordCommand(
  args: string[],
  io: CommandIo,
  importHar: (input: ImportInput) => ImportResult,
): Promise<number | 'running'> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      ...runtimeFlagSpec,
      target: { type: 'string' },
      out: { type: 'string', short: 'o' },
      'keep-latency': { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help === true) {
    io.stdout.write(recordHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  if (values.target === undefined) throw new UsageError('--target URL is required')
  if (values.out === undefined) throw new UsageError('-o DIR is required')
  let target: URL
  try {
    target = new URL(values.target)
  } catch {
    throw new UsageError(`--target "${values.target}" is not a URL`)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new UsageError('--target must be an http:// or https:// URL')
  }
  const options = runtimeOptionsFromFlags(values)
  const logRing = new LogRing(1000)
  const log = createLogger({ level: options.logLevel, ring: logRing })
  const recorder = new Recorder({
    dir: values.out,
    target: target.origin,
    keepLatency: values['keep-latency'] === true,
    log,
    importHar,
  })
  const document = readDefinition({
    name: 'recording',
    noMatchingRequestPreference: 'bypasslive',
    liveSystemHost: target.origin,
    transactions: [],
  })
  const runtime = await startRuntime({
    document,
    options,
    log,
    onLive: (x: LiveExchange) => recorder.add(x),
  })
  io.stdout.write(
    `listening on ${runtime.urls.http}\nrecording ${target.origin} into ${values.out}\n`,
  )
  exitOnSignals(async () => {
    await runtime.close()
    await recorder.flush()
  }, log)
  return 'running'
}
