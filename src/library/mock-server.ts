import { loadRuntimeOptions, type RuntimeOptionsInput } from '../config/index.js'
import { UnderstudyError, createError, describeError, isUnderstudyError } from '../errors/index.js'
import {
  enableRegexFallback,
  readDefinition,
  type DocumentInput,
  type DslInput,
  type MockServiceDocument,
  type TransactionInput,
} from '../dsl/index.js'
import {
  inspectionSearch,
  type InspectionFilter,
  type InspectionListEntry,
  type UnmatchedEntry,
  type Verification,
  type VerificationResult,
} from '../inspect/index.js'
import { createLogger, createSilentLogger, type LogLevel, type Logger } from '../log/index.js'
import {
  startAdmin,
  startRuntime,
  type AdminServer,
  type Runtime,
  type ScenarioView,
} from '../serve/index.js'
import { collectFiles, givenFiles, loadSources } from '../cli/sources.js'
import { importFile, importHar, supportedExtensions } from '../../importers/index.js'

/**
 * What a mock server serves: exactly one of
 * - `files`: paths of files or directories, in any format `understudy serve` reads (DSL, HAR,
 *   OpenAPI, WireMock, Postman, request/response pairs);
 * - `transactions`: DSL transactions (or bare `{requestDsl, responseDsl}` dsls), as in a file;
 * - `mock`: a whole mock-service document (or anything a DSL file may hold).
 */
export type MockSource =
  | { files: string | readonly string[]; transactions?: never; mock?: never }
  | { transactions: ReadonlyArray<TransactionInput | DslInput>; files?: never; mock?: never }
  | { mock: DocumentInput | MockServiceDocument; files?: never; transactions?: never }

/** Options of `createMockServer`: a source, and where and how to listen. */
export type MockServerOptions = MockSource & {
  /** Port of the mock (default 0: a free one, read it from `url`). */
  port?: number
  /** Interface (default 127.0.0.1). */
  host?: string
  /** Also start the admin API on this port (0: a free one); default none. */
  adminPort?: number
  /** Log level (default `silent`); logs go to standard error. */
  logLevel?: LogLevel
  /** Any other runtime option (`bodyLimit`, `inspection`, `drainTimeout`...; docs/runtime.md). */
  options?: RuntimeOptionsInput
}

/** Queries over the requests the mock received (the admin API's verification, in process). */
export interface MockInspection {
  /** Received requests matching a filter, newest first. */
  list: (filter?: InspectionFilter) => InspectionListEntry[]
  count: (filter?: InspectionFilter) => number
  /** Requests no transaction matched, each with its near-miss diagnosis. */
  unmatched: (filter?: InspectionFilter) => UnmatchedEntry[]
  /** `{ request, count | atLeast | atMost }`: whether it held, what matched and what did not. */
  verify: (verification: Verification) => VerificationResult
  /** Like `verify`, but throws an Error describing the mismatch: for test assertions. */
  assert: (verification: Verification) => void
  /** Forgets every recorded request (between tests). */
  clear: () => void
}

/** The scenario states of a mock server. */
export interface MockScenarios {
  /** Every instance not in `Started`, by name then instance. */
  list: () => ScenarioView[]
  /** Puts one scenario instance (without `instance`: the default one) in a state. */
  set: (name: string, state: string, instance?: string) => void
  /** Back to `Started`: every scenario, one, or one instance; answers how many were reset. */
  reset: (name?: string, instance?: string) => number
}

/** A running mock server. */
export interface MockServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  readonly urls: Runtime['urls']
  /** The admin API's URL when `adminPort` was given, else null. */
  readonly adminUrl: string | null
  readonly inspection: MockInspection
  /** Scenario states (docs/dsl.md, "Stateful scenarios"): read, set and reset them between tests. */
  readonly scenarios: MockScenarios
  /** The underlying runtime, for what the API does not cover. */
  readonly runtime: Runtime
  /**
   * Loads the source again (files are re-read) or a new source, and swaps it in atomically;
   * answers the number of transactions. A bad source throws and the old one keeps serving.
   */
  reload: (source?: MockSource) => Promise<number>
  /** Drains and stops the listeners. */
  close: () => Promise<void>
}

/**
 * Starts a mock server in this process.
 *
 * @example
 * const mock = await createMockServer({ transactions: [{ dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [] } } }] })
 * await fetch(`${mock.url}/pets`)
 * mock.inspection.assert({ request: { method: 'GET', path: '/pets' }, count: 1 })
 * await mock.close()
 */
export async function createMockServer(options: MockServerOptions): Promise<MockServer> {
  enableRegexFallback()
  let source: MockSource = options
  const runtimeOptions = loadRuntimeOptions({
    ...options.options,
    port: options.port ?? options.options?.port ?? 0,
    host: options.host ?? options.options?.host ?? '127.0.0.1',
    logLevel: options.logLevel ?? 'silent',
  })
  // The library's scenario calls answer synchronously, from this process's states.
  if ((runtimeOptions.scenarioStore ?? null) !== null) {
    throw describedError(
      createError('ERR_CONFIG_INVALID', [
        'scenarioStore is an option of `understudy run`/`serve`, not of the library',
      ]),
    )
  }
  const log: Logger =
    runtimeOptions.logLevel === 'silent'
      ? createSilentLogger()
      : createLogger({ level: runtimeOptions.logLevel })
  // `noMatchingRequestPreference: record` converts its recording with the HAR importer (loaded already)
  const runtime = await startRuntime({
    document: described(() => documentOf(source)),
    options: runtimeOptions,
    log,
    loadHarImporter: async () => (input) => importHar(input),
  }).catch((err: unknown) => {
    throw describedError(err)
  })
  let admin: AdminServer | null = null
  if (options.adminPort !== undefined) {
    try {
      admin = await startAdmin({
        runtime,
        host: runtimeOptions.adminHost,
        port: options.adminPort,
        token: runtimeOptions.adminToken ?? null,
        log,
        logRing: null,
      })
      runtime.egress.protect(Number(new URL(admin.url).port))
    } catch (err) {
      await runtime.close()
      throw err
    }
  }
  const search = inspectionSearch(
    () => runtime.ring,
    () => runtime.current().serviceMockId,
  )
  const inspection: MockInspection = {
    list: (filter = {}) => search.list(filter, 0, Number.MAX_SAFE_INTEGER).entries,
    count: (filter = {}) => search.count(filter),
    unmatched: (filter = {}) => search.unmatched(filter, Number.MAX_SAFE_INTEGER).entries,
    verify: (verification) => search.verify(verification),
    assert: (verification) => {
      const result = search.verify(verification)
      if (!result.verified) throw new Error(describeFailure(verification, result))
    },
    clear: () => {
      search.clear()
    },
  }
  let closing: Promise<void> | null = null
  return {
    url: runtime.urls.http,
    urls: runtime.urls,
    adminUrl: admin?.url ?? null,
    inspection,
    scenarios: {
      list: () => runtime.current().scenarios.list() as ScenarioView[],
      set: (name, state, instance) =>
        runtime.current().scenarios.set(name, instance ?? null, state, null),
      reset: (name, instance) => runtime.current().scenarios.reset(name, instance) as number,
    },
    runtime,
    reload: async (next) => {
      const document = described(() => documentOf(next ?? source))
      const compiled = described(() => runtime.reload(document))
      if (next !== undefined) source = next
      return compiled.matcher.active.length
    },
    close: () => {
      closing ??= Promise.all([runtime.close(), admin?.close()]).then(() => undefined)
      return closing
    },
  }
}

/**
 * An error whose message says what the command line would print: the first problems with their
 * file:line:column, not only "2 errors" (a test's failure output shows the message, rarely
 * `details`). Code, details and cause are kept.
 *
 * @example
 * describedError(err).message // 'Invalid mock definition: 2 errors: bad.yaml:4:51 /transactions/0/...: ...'
 */
function describedError(err: unknown): unknown {
  if (!isUnderstudyError(err)) return err
  const message = describeError(err)
  if (message === err.message) return err
  const out = new UnderstudyError(err.code, message, err.details, err.cause)
  out.stack = `${out.name}: ${message}\n${(err.stack ?? '').split('\n').slice(1).join('\n')}`
  return out
}

function described<T>(load: () => T): T {
  try {
    return load()
  } catch (err) {
    throw describedError(err)
  }
}

/** The mock-service document of a source; throws the DSL's or the importers' errors. */
function documentOf(source: MockSource): MockServiceDocument {
  if (source.files !== undefined) {
    const paths = typeof source.files === 'string' ? [source.files] : [...source.files]
    const files = collectFiles({ paths, include: [], exclude: [], extensions: supportedExtensions })
    return loadSources(files, (input, ctx) => importFile(input, ctx), { named: givenFiles(paths) })
      .document
  }
  if (source.transactions !== undefined) return readDefinition([...source.transactions])
  if (source.mock !== undefined) return readDefinition(source.mock)
  throw new TypeError('createMockServer needs one of files, transactions or mock')
}

function describeFailure(verification: Verification, result: VerificationResult): string {
  const lines = [
    `expected ${result.expected} request(s) matching ${JSON.stringify(verification.request)}, received ${result.actual}`,
  ]
  for (const miss of result.nearest.slice(0, 5)) {
    lines.push(
      `  ${miss.method} ${miss.url} -> ${miss.statusCode} (differs in ${miss.failed.join(', ')})`,
    )
  }
  return lines.join('\n')
}
