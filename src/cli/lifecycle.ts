import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger, LogRing } from '../log/index.js'
import {
  createWireMockAdmin,
  runtimeHost,
  startAdmin,
  startRuntime,
  type AdminServer,
  type HarImporter,
  type RequestCheck,
  type Runtime,
  type WireMockAdmin,
  type WireMockConverter,
  type WireMockHost,
} from '../serve/index.js'
import { collectStartupGarbage } from './startup-garbage.js'
import { settleYoungGeneration } from './young-generation.js'

/** A runtime with its optional admin listener, as `serve` and `run` start it. */
interface Serving {
  runtime: Runtime
  admin: AdminServer | null
  /** Drains and closes everything; idempotent. */
  stop: () => Promise<void>
}

interface StartServingParams {
  document: MockServiceDocument
  options: Readonly<RuntimeOptions>
  log: Logger
  logRing: LogRing | null
  /** Where the `listening on` lines go. */
  out: NodeJS.WritableStream
  /** Request validation before matching (`--validate-requests`). */
  requestCheck?: RequestCheck | null
  /**
   * The `__files/` folders beside what is served (`wiremockFilesDirs`), where a stub's
   * `bodyFileName` sent through the WireMock admin API is read, as WireMock reads its root's.
   */
  wiremockFiles?: readonly string[]
}

/**
 * Starts the runtime and, with `adminPort`, its admin listener; then writes the ready lines. The
 * first line is exactly `listening on http://HOST:PORT` (docs/architecture.md#start-up-contract);
 * the others name their listener without repeating that phrase, so that a client looking for it
 * finds the main port.
 */
export async function startServing(params: StartServingParams): Promise<Serving> {
  // Read out of params: a closure over params would keep the whole document alive while serving.
  const { options, log } = params
  const wiremockFiles = params.wiremockFiles ?? []
  const logRing = params.logRing
  const transactions = params.document.transactions.length
  // What reading left: collected before compiling reuses its room.
  collectStartupGarbage(transactions)
  const runtime = await startRuntime({
    document: params.document,
    options,
    log,
    requestCheck: params.requestCheck ?? null,
    loadHarImporter,
    // A large document swapped in grows the young generation as start-up does. The full
    // collection of start-up garbage is not made after a swap: the runtime is serving then, and
    // that collection is one pause of the whole heap (about 0.1 s of CPU at 100,000 transactions,
    // most of a second on a loaded machine), where the swap compiled in time slices precisely so
    // that no request waits more than a slice; V8's own incremental marking takes the old
    // configuration and the swap's parse in steps instead.
    onSwap: (swapped) => settleYoungGeneration(swapped, log),
  })
  const wiremock = wireMockAdminOf(runtimeHost(runtime), options, log, wiremockFiles)
  runtime.setPortAdmin(wiremock?.onMockPort ?? null)
  let admin: AdminServer | null = null
  if (options.adminPort !== undefined && options.adminPort !== null) {
    try {
      admin = await startAdmin({
        runtime,
        host: options.adminHost,
        port: options.adminPort,
        token: options.adminToken ?? null,
        log,
        logRing,
        wiremock: wiremock?.onAdminPort ?? null,
      })
      // A transaction's proxyUrl or webhook must not reach this runtime's own admin API either.
      runtime.egress.protect(Number(new URL(admin.url).port))
    } catch (err) {
      await runtime.close()
      throw err
    }
  }
  writeReadyLines(params.out, runtime.urls, admin?.url ?? null)
  // The normalized document, dead once compiled and the caller's start-up done: collected right
  // after the ready line (which it does not delay), before requests come in earnest.
  setTimeout(() => collectStartupGarbage(transactions), 0).unref()
  settleYoungGeneration(transactions, log)
  log.info(
    {
      urls: runtime.urls,
      admin: admin?.url ?? null,
      transactions: runtime.current().matcher.active.length,
    },
    'listening',
  )
  let stopping: Promise<void> | null = null
  return {
    runtime,
    admin,
    stop: () => {
      stopping ??= (async () => {
        await Promise.all([runtime.close(), admin?.close()])
      })()
      return stopping
    },
  }
}

/**
 * The HAR importer, loaded when a recording (`noMatchingRequestPreference: record`) is first read:
 * a runtime that never records does not load the importers (about 25 MiB). A cluster primary
 * converts the recording its replicas sent with it too.
 */
export async function loadHarImporter(): Promise<HarImporter> {
  const { importHar } = await import('../../importers/index.js')
  return (input) => importHar(input)
}

/**
 * WireMock's admin API over `host` (one runtime, or a cluster primary over its replicas), or null
 * when `--no-wiremock-admin` switched it off. A stub's `bodyFileName` is read from `files`.
 */
export function wireMockAdminOf(
  host: WireMockHost,
  options: Readonly<RuntimeOptions>,
  log: Logger,
  files: readonly string[] | undefined,
): WireMockAdmin | null {
  if (!options.wiremockAdmin) return null
  return createWireMockAdmin({
    host,
    loadConverter: async () => await loadWireMockConverter(files ?? []),
    log,
    // Through the signal path, so that a shutdown drains exactly as SIGTERM does.
    shutdown: options.wiremockShutdown ? () => process.kill(process.pid, 'SIGTERM') : null,
    listen: options.host,
    token: options.adminToken ?? null,
  })
}

/**
 * The WireMock importer as the WireMock admin API converts stubs with it, loaded when the first
 * stub or pattern arrives (a runtime that is never sent one does not load the importers). A
 * `bodyFileName` is read from the first of `filesDirs` that has it; without one it is refused.
 */
async function loadWireMockConverter(
  filesDirs: readonly string[] = [],
): Promise<WireMockConverter> {
  const { importWireMock } = await import('../../importers/index.js')
  const readFile =
    filesDirs.length === 0
      ? undefined
      : (rel: string): Uint8Array | undefined => readFromFiles(filesDirs, rel)
  return (stub) => {
    const result = importWireMock(
      { bytes: Buffer.from(JSON.stringify(stub)), fileName: 'stub.json' },
      readFile === undefined ? {} : { readFile },
    )
    return {
      transactions: result.document.transactions,
      problems: result.warnings.map((w) => w.message),
    }
  }
}

/**
 * The importer asks for `__files/NAME` (or `../__files/NAME`) relative to the mapping file; a stub
 * of the API has no file, so only those lookups are answered, from the served `__files/` folders.
 * The importer has already refused names that are absolute or climb out with `..`.
 */
function readFromFiles(dirs: readonly string[], rel: string): Uint8Array | undefined {
  const name = /^(?:\.\.\/)?__files\/(.+)$/.exec(rel)?.[1]
  if (name === undefined) return undefined
  for (const dir of dirs) {
    try {
      return readFileSync(join(dir, name))
    } catch {
      // not in this folder
    }
  }
  return undefined
}

/**
 * The `__files/` folders WireMock would read bodies from for what is served: `DIR/__files` of a
 * served folder (WireMock's root), and the `__files` sibling of a `mappings` folder or of the
 * folder of a served file.
 *
 * @example
 * wiremockFilesDirs(['wiremock']) // ['/abs/wiremock/__files'] when it exists
 */
export function wiremockFilesDirs(paths: readonly string[]): string[] {
  const out: string[] = []
  for (const given of paths) {
    const path = resolve(given)
    let folder: string
    try {
      folder = statSync(path).isDirectory() ? path : dirname(path)
    } catch {
      continue
    }
    const candidates = [join(folder, '__files')]
    if (basename(folder) === 'mappings' || folder !== path) {
      candidates.push(join(dirname(folder), '__files'))
    }
    for (const dir of candidates) if (existsSync(dir) && !out.includes(dir)) out.push(dir)
  }
  return out
}

/**
 * Writes the ready lines: first exactly `listening on http://HOST:PORT`, then the other listeners,
 * in one write, so that a client that sees the first line sees the others too.
 *
 * @example
 * writeReadyLines(process.stdout, runtime.urls, admin?.url ?? null)
 */
export function writeReadyLines(
  out: NodeJS.WritableStream,
  urls: Runtime['urls'],
  adminUrl: string | null,
): void {
  let ready = `listening on ${urls.http}\n`
  if (urls.https !== null) ready += `https (h2, http/1.1) on ${urls.https}\n`
  if (urls.h2c !== null) ready += `h2c on ${urls.h2c}\n`
  if (adminUrl !== null) ready += `admin on ${adminUrl}\n`
  out.write(ready)
}

/**
 * SIGTERM and SIGINT drain in-flight requests, then exit 0
 * (docs/architecture.md#start-up-contract); a second signal exits at once with 1.
 */
export function exitOnSignals(stop: () => Promise<void>, log: Logger): void {
  let signalled = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      process.exit(1)
    }
    signalled = true
    log.info({ signal }, 'draining')
    stop().then(
      () => {
        log.info('stopped')
        process.exit(0)
      },
      (err: unknown) => {
        log.error({ err }, 'stop failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}
