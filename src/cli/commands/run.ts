import { createLogger, LogRing, resolveLogFormat } from '../../log/index.js'
import { loadRunDocument, runRequestCheck } from '../run-document.js'
import { runtimeFlagHelp, runtimeFlagSpec, runtimeOptionsFromFlags } from '../runtime-flags.js'
import { exitOnSignals, startServing, wiremockFilesDirs } from '../lifecycle.js'
import { replicasOf, startReplicated } from '../replicas.js'
import { runClusterReplica } from '../../serve/index.js'
import { UsageError } from '../usage-error.js'
import { settleYoungGeneration } from '../young-generation.js'
import { parseFlags } from '../flags.js'
import type { CommandIo } from './io.js'
import type { MockServiceDocument } from '../../dsl/index.js'
import type { Logger } from '../../log/index.js'
import type { RequestCheck } from '../../serve/index.js'

export const runHelp = `Usage: understudy run --mock <file-or-dir> [flags]

Runs exactly one mock service, as in a container or when the platform deploys it. The file is a
mock-service document (a record with its resolved transactions) or anything serve reads:
transaction files, HAR, OpenAPI 2/3, WireMock, Postman, request/response pairs; JSON or YAML
whatever the extension, or a directory of them. With --admin-port, the platform (or you) can swap
the configuration, read inspection data and logs.

Flags:
  --mock FILE                  what to serve (required)
  --replicas N                 worker processes sharing the ports (default 1; at most 64)
${runtimeFlagHelp}
`

/**
 * `understudy run --mock <doc.json>`: one mock service. Resolves when the runtime is up; the
 * process then lives until a signal drains it.
 */
export async function runRunCommand(args: string[], io: CommandIo): Promise<number | 'running'> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      ...runtimeFlagSpec,
      mock: { type: 'string', short: 'm' },
      replicas: { type: 'string' },
    },
    allowPositionals: true,
  })
  if (values.help === true) {
    io.stdout.write(runHelp)
    return 0
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument "${positionals[0] ?? ''}" (the document is given with --mock)`,
    )
  }
  if (values.mock === undefined) throw new UsageError('--mock <mock-service.json> is required')
  const options = runtimeOptionsFromFlags(values)
  const replicas = replicasOf(values.replicas)
  // One replica is the plain runtime below, without any cluster machinery.
  if (replicas > 1) {
    const { default: cluster } = await import('node:cluster')
    if (cluster.isWorker) {
      const logRing = new LogRing(10_000)
      const log = createLogger({
        level: options.logLevel,
        format: resolveLogFormat(options.logFormat, process.stderr),
        ring: logRing,
      })
      const mock = values.mock
      // Each replica builds its own validation from the same file (the primary sends only the document).
      runClusterReplica({
        options,
        log,
        logRing,
        requestCheck: async (document) =>
          await requestCheckFor(mock, document, options.validateRequests, log),
        onListening: (transactions) => settleYoungGeneration(transactions, log),
        onSwap: (transactions) => settleYoungGeneration(transactions, log),
      })
      return 'running'
    }
  }
  const document = await loadRunDocument(values.mock)
  const logRing = new LogRing(10_000)
  if (replicas > 1) {
    const log = createLogger({
      level: options.logLevel,
      format: resolveLogFormat(options.logFormat, process.stderr),
      ring: logRing,
      base: { serviceMockId: document.id ?? 0, replica: 'primary' },
    })
    const serving = await startReplicated({
      document,
      options,
      replicas,
      log,
      logRing,
      args: ['run', ...args],
      out: io.stdout,
      wiremockFiles: wiremockFilesDirs([values.mock]),
    })
    exitOnSignals(serving.stop, log)
    return 'running'
  }
  const log = createLogger({
    level: options.logLevel,
    format: resolveLogFormat(options.logFormat, process.stderr),
    ring: logRing,
    base: { serviceMockId: document.id ?? 0 },
  })
  const requestCheck = await requestCheckFor(values.mock, document, options.validateRequests, log)
  const serving = await startServing({
    document,
    options,
    log,
    logRing,
    out: io.stdout,
    requestCheck,
    wiremockFiles: wiremockFilesDirs([values.mock]),
  })
  exitOnSignals(serving.stop, log)
  return 'running'
}

/**
 * Request validation when `--validate-requests` or the document's `validateRequests: true` asks
 * for it: built from the OpenAPI descriptions of the file (or directory); null otherwise, with a
 * warning when asked for and the file holds none.
 */
async function requestCheckFor(
  file: string,
  document: MockServiceDocument,
  flag: boolean,
  log: Logger,
): Promise<RequestCheck | null> {
  if (!flag && document.validateRequests !== true) return null
  const check = await runRequestCheck(file)
  if (check === null) {
    log.warn(
      'request validation: the file holds no OpenAPI description, so requests are not checked',
    )
  }
  return check
}
