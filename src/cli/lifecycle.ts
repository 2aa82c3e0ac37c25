import type { RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger, LogRing } from '../log/index.js'
import { startAdmin, startRuntime, type AdminServer, type Runtime } from '../serve/index.js'

/** A runtime with its optional admin listener, as `serve` and `run` start it. */
export interface Serving {
  runtime: Runtime
  admin: AdminServer | null
  /** Drains and closes everything; idempotent. */
  stop: () => Promise<void>
}

export interface StartServingParams {
  document: MockServiceDocument
  options: Readonly<RuntimeOptions>
  log: Logger
  logRing: LogRing | null
  /** Where the `listening on` lines go. */
  out: NodeJS.WritableStream
}

/**
 * Starts the runtime and, with `adminPort`, its admin listener; then writes the ready lines. The
 * first line is exactly `listening on http://HOST:PORT` (DESIGN.md section 1); the others name
 * their listener without repeating that phrase, so that a client looking for it finds the main
 * port.
 */
export async function startServing (params: StartServingParams): Promise<Serving> {
  const { options, log } = params
  const runtime = await startRuntime({ document: params.document, options, log })
  let admin: AdminServer | null = null
  if (options.adminPort !== undefined && options.adminPort !== null) {
    try {
      admin = await startAdmin({ runtime, host: options.adminHost, port: options.adminPort, log, logRing: params.logRing })
    } catch (err) {
      await runtime.close()
      throw err
    }
  }
  // One write, so that a client that sees the first line sees the others too.
  let ready = `listening on ${runtime.urls.http}\n`
  if (runtime.urls.https !== null) ready += `https (h2, http/1.1) on ${runtime.urls.https}\n`
  if (runtime.urls.h2c !== null) ready += `h2c on ${runtime.urls.h2c}\n`
  if (admin !== null) ready += `admin on ${admin.url}\n`
  params.out.write(ready)
  log.info({ urls: runtime.urls, admin: admin?.url ?? null, transactions: runtime.current().matcher.active.length }, 'listening')
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
 * SIGTERM and SIGINT drain in-flight requests, then exit 0 (DESIGN.md section 1); a second
 * signal exits at once with 1.
 */
export function exitOnSignals (stop: () => Promise<void>, log: Logger): void {
  let signalled = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      process.exit(1)
    }
    signalled = true
    log.info({ signal }, 'draining')
    stop().then(() => {
      log.info('stopped')
      process.exit(0)
    }, (err: unknown) => {
      log.error({ err }, 'stop failed')
      process.exit(1)
    })
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}
