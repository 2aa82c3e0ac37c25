import { createLogger, LogRing, resolveLogFormat, type Logger } from '../../log/index.js'
import { describeError, formatDetail, isUnderstudyError } from '../../errors/index.js'
import { runtimeFlagHelp, runtimeFlagSpec, runtimeOptionsFromFlags } from '../runtime-flags.js'
import { exitOnSignals, startServing, wiremockFilesDirs } from '../lifecycle.js'
import {
  collectFiles,
  givenFiles,
  loadSources,
  type FileLoader,
  type LoadedSources,
  type SourceSelection,
} from '../sources.js'
import { watchSources } from '../watch.js'
import { shadowedWarnings } from '../shadow-warnings.js'
import { logStartupWarnings, routeLines, type StartupWarning } from '../startup-report.js'
import { UsageError } from '../usage-error.js'
import { parseFlags } from '../flags.js'
import type { CommandIo } from './io.js'
import { withHostMatching, type RequestCheck } from '../../serve/index.js'

export const serveHelp = `Usage: understudy serve <file-or-dir>... [flags]

Serves transactions from files: Understudy's DSL (JSON or YAML: one transaction, an array,
{transactions: [...]}, or a mock-service document), HAR, OpenAPI 2/3, WireMock mappings, Postman
collections, request/response pairs and exported transactions. Directories are read recursively.

Flags:
  --watch, -w                  reload when files change; a bad file is reported and the last
                               good set keeps serving
  --include GLOB               only files matching GLOB (repeatable; relative to the directory)
  --exclude GLOB               skip files matching GLOB (repeatable)
  --verbose                    every start-up warning, instead of one line per kind with a count
  --max-file-mib N             largest file read, in MiB (default 100); larger ones are refused
${runtimeFlagHelp}
`

/** What `serve` needs from the importers (injected by main.ts). */
interface ServeImporters {
  loadFile: FileLoader
  extensions: readonly string[]
  /** Builds request validation from the OpenAPI descriptions among the files. */
  requestValidator?: (files: readonly string[]) => { check: RequestCheck; operations: number }
}

/**
 * `understudy serve <file-or-dir>...`: the local dev mock server. Resolves once listening; the
 * process then lives until a signal drains it.
 */
export async function runServeCommand(
  args: string[],
  io: CommandIo,
  importers: ServeImporters,
): Promise<number | 'running'> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      ...runtimeFlagSpec,
      watch: { type: 'boolean', short: 'w' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      verbose: { type: 'boolean' },
      'max-file-mib': { type: 'string' },
    },
    allowPositionals: true,
  })
  if (values.help === true) {
    io.stdout.write(serveHelp)
    return 0
  }
  if (positionals.length === 0) throw new UsageError('give at least one file or directory to serve')
  const options = runtimeOptionsFromFlags(values, {
    watch: values.watch === true,
    include: values.include ?? [],
    exclude: values.exclude ?? [],
  })
  const selection: SourceSelection = {
    paths: positionals,
    include: options.include,
    exclude: options.exclude,
    extensions: importers.extensions,
  }
  const logRing = new LogRing(10_000)
  const logFormat = resolveLogFormat(options.logFormat, process.stderr)
  const log = createLogger({ level: options.logLevel, format: logFormat, ring: logRing })
  const verbose = values.verbose === true
  const named = givenFiles(selection.paths)
  const maxBytes = maxFileBytes(values['max-file-mib'])
  const loadFile: FileLoader =
    maxBytes === undefined
      ? importers.loadFile
      : (input, ctx) => importers.loadFile(input, { ...ctx, maxBytes })
  const loaded = loadSources(collectFiles(selection), loadFile, { named })
  reportWarnings(loaded, log, options.matchHost, verbose)
  // The flag turns validation on; so does the document's `validateRequests: true`.
  const validation = (set: LoadedSources): RequestCheck | null => {
    if (
      (!options.validateRequests && set.document.validateRequests !== true) ||
      importers.requestValidator === undefined
    ) {
      return null
    }
    const built = importers.requestValidator(set.files)
    if (built.operations === 0) {
      log.warn(
        'request validation: no OpenAPI description among the files, so requests are not checked',
      )
    } else {
      log.info(
        { operations: built.operations },
        'validating requests against the OpenAPI operations',
      )
    }
    return built.check
  }
  const serving = await startServing({
    document: loaded.document,
    options,
    log,
    logRing,
    out: io.stdout,
    requestCheck: validation(loaded),
    wiremockFiles: wiremockFilesDirs(positionals),
  })
  log.info(
    { files: loaded.files.length, transactions: loaded.document.transactions.length },
    'loaded',
  )
  // What is served, for the person at the terminal (as Prism does); log collectors get the count.
  if (logFormat === 'pretty' && loaded.document.transactions.length > 0) {
    log.info(`serving:\n${routeLines(loaded.document).join('\n')}`)
  }
  let stopWatching = async (): Promise<void> => {}
  if (options.watch) {
    const watcher = watchSources(
      positionals,
      () => {
        try {
          const next = loadSources(collectFiles(selection), loadFile, { named })
          const compiled = serving.runtime.reload(next.document)
          serving.runtime.setRequestCheck(validation(next))
          reportWarnings(next, log, options.matchHost, verbose)
          log.info(
            { transactions: compiled.matcher.active.length, files: next.files.length },
            'reloaded',
          )
        } catch (err) {
          // The last good set keeps serving.
          if (isUnderstudyError(err)) {
            log.error(
              { code: err.code, errors: (err.details ?? []).map(formatDetail) },
              `reload failed, still serving the previous set: ${describeError(err)}`,
            )
          } else {
            log.error({ err }, 'reload failed, still serving the previous set')
          }
        }
      },
      log,
    )
    stopWatching = watcher.close
  }
  exitOnSignals(async () => {
    await stopWatching()
    await serving.stop()
  }, log)
  return 'running'
}

/** `--max-file-mib N` in bytes; undefined leaves the importers' default (100 MiB). */
function maxFileBytes(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined
  const mib = Number(flag)
  if (flag.trim() === '' || !Number.isFinite(mib) || mib <= 0) {
    throw new UsageError(`--max-file-mib must be a positive number of MiB, not "${flag}"`)
  }
  return Math.floor(mib * 1024 * 1024)
}

function reportWarnings(
  loaded: LoadedSources,
  log: Logger,
  matchHost: boolean,
  verbose: boolean,
): void {
  const warnings: StartupWarning[] = loaded.warnings.map((w) => ({
    message: w.message,
    fields: { file: w.file, at: w.at },
  }))
  const served =
    matchHost || loaded.document.matchHost === true
      ? withHostMatching(loaded.document)
      : loaded.document
  warnings.push(...shadowedWarnings(served, loaded.document))
  logStartupWarnings(warnings, log, verbose)
  if (loaded.files.length === 0) log.warn('no supported files found: every request will get 404')
}
