import type { Dispatcher } from 'undici'
import type { RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import { InspectionRing, type RingIds } from '../inspect/index.js'
import type { Logger } from '../log/index.js'
import { CapacityGate } from './capacity.js'
import { compileMock, compileMockSliced, type CompiledMock } from './compile-mock.js'
import { createRequestHandler } from './handler.js'
import { PendingBodies } from './pending-bodies.js'
import {
  closeAll,
  closeIdle,
  openListener,
  stopAccepting,
  type Listener,
  type OpenListener,
} from './listen.js'
import { closePools, UpstreamPools } from './proxy.js'
import { EgressPolicy } from '../net/index.js'
import { problemAnswer } from './problem.js'
import { createError } from '../errors/index.js'
import type { LiveListener, PortAdmin, RuntimeState } from './runtime-state.js'
import type { RequestCheck } from './request-check.js'
import { loadTlsMaterial, type TlsMaterial } from './tls.js'
import { ScenarioStore, type ScenarioStates } from './scenario/store.js'
import { connectRedisScenarios } from './scenario/redis.js'
import { connectPostgresScenarios } from './scenario/postgres.js'
import { PostServeQueue } from './post-serve.js'
import { Recording, type LoadHarImporter } from './record/recording.js'
import type { LiveRecorder } from './record/capture.js'
import { timeSlicer } from '../net/index.js'
import { storedDocument } from './stored-document.js'

/** A running mock service: its listeners, its current configuration and its journal. */
export interface Runtime {
  readonly urls: {
    readonly http: string
    readonly https: string | null
    readonly h2c: string | null
  }
  readonly ring: InspectionRing | null
  /** The configuration serving requests now. */
  current: () => CompiledMock
  /**
   * Compiles a new document and swaps it in atomically; requests in flight finish on the old one.
   * Throws ERR_DSL_INVALID (and keeps serving the old one) when the document is invalid.
   */
  reload: (document: MockServiceDocument) => CompiledMock
  /**
   * reload for a swap while serving (`PUT /config`): compiles in time slices so that requests
   * keep being answered, then swaps. Swaps apply in the order they were asked for.
   */
  reloadSliced: (document: MockServiceDocument) => Promise<CompiledMock>
  /** Requests being served now. */
  inFlight: () => number
  /**
   * The egress policy of what this runtime sends (`proxyUrl`, `bypasslive`, webhooks); its
   * admin listener's port is added to the ports it refuses once that listens.
   */
  readonly egress: EgressPolicy
  /**
   * Sets (or with null, removes) a rewrite applied to every document before it is compiled, and
   * swaps in the result at once: the WireMock admin API layers its stubs over the files' (or
   * `PUT /config`'s) document this way, so that either can change without losing the other.
   * Throws ERR_DSL_INVALID (and keeps serving the old one) when the result is invalid.
   */
  setDocumentLayer: (layer: DocumentLayer | null) => CompiledMock
  /** Sets (or with null, removes) the listener of `/__admin/...` paths on the mock port. */
  setPortAdmin: (admin: PortAdmin | null) => void
  /** Sets (or with null, removes) the request validation run before matching. */
  setRequestCheck: (check: RequestCheck | null) => void
  /**
   * What `noMatchingRequestPreference: record` captured, across configuration swaps, and
   * the loader of the HAR importer that converts it; null when started without one: a cluster
   * replica (which hands its captures to the primary through `recorder`), or a runtime that
   * records nothing (`record` then forwards like `bypasslive`).
   */
  readonly recording: {
    readonly requests: Recording
    readonly loadHarImporter: LoadHarImporter
  } | null
  /** Stops accepting, lets requests in flight finish (up to `drainTimeout`), then closes. */
  close: () => Promise<void>
}

/** A rewrite of the document before it is compiled (see `Runtime.setDocumentLayer`). */
export type DocumentLayer = (base: MockServiceDocument) => MockServiceDocument

interface StartRuntimeParams {
  document: MockServiceDocument
  options: Readonly<RuntimeOptions>
  log: Logger
  /** How inspection ids are numbered (default 1, 2, 3...); a cluster replica gets its own residue. */
  ids?: RingIds
  /** The egress policy (default: from `options.egress`). */
  egress?: EgressPolicy
  /** Request validation before matching (`serve --validate-requests`); default none. */
  requestCheck?: RequestCheck | null
  /** Certificate for `tlsPort`, already loaded (a cluster primary makes one for every replica). */
  tls?: TlsMaterial
  /** Told about every exchange forwarded to the live system (`understudy record`). */
  onLive?: LiveListener
  /** Where scenario states live: this process by default; a cluster replica's view of the primary's. */
  scenarios?: ScenarioStates
  /**
   * Loads the HAR importer (importers/har, which this area may not import) when the
   * recording of `noMatchingRequestPreference: record` is read; without it nothing is recorded
   * (`record` forwards like `bypasslive`) and GET /recordings answers 422.
   */
  loadHarImporter?: LoadHarImporter
  /**
   * Where a cluster replica hands what `record` forwarded (its queue to the primary,
   * cluster-worker.ts), instead of a Recording of its own; takes precedence over `loadHarImporter`.
   */
  recorder?: LiveRecorder
  /**
   * Called after each swap of the configuration (reload, reloadSliced, setDocumentLayer; not the
   * first compile), with the number of transactions compiled: the command line gives back, on
   * timers, the memory a large swap grew.
   */
  onSwap?: (transactions: number) => void
}

/**
 * Compiles the document and starts the listeners the options ask for: HTTP/1.1 always, HTTPS
 * (h2 + http/1.1) with `tlsPort`, h2c with `h2cPort`.
 *
 * @example
 * const runtime = await startRuntime({ document, options: loadRuntimeOptions({ port: 0 }), log })
 * await fetch(runtime.urls.http + '/pets')
 * await runtime.close()
 */
export async function startRuntime({
  document,
  options,
  log,
  ids,
  tls: givenTls,
  requestCheck,
  onLive,
  scenarios,
  loadHarImporter,
  recorder,
  egress: givenEgress,
  onSwap,
}: StartRuntimeParams): Promise<Runtime> {
  const egress = givenEgress ?? egressPolicyOf(options)
  // One pool per upstream origin for the runtime's lifetime, closed when it closes: requests begun
  // before a swap may forward after it (body still arriving), on the old configuration's targets.
  const pools = new UpstreamPools(egress)
  // Scenario states and the webhook sender outlive configuration swaps.
  const postServe = new PostServeQueue(log, egress)
  const compileOptions = {
    proxyTimeout: options.proxyTimeout,
    journalBodyBytes: options.inspection.maxBodyBytes,
    pools,
    scenarios: scenarios ?? (await scenarioStatesOf(options)),
    postServe,
    matchHost: options.matchHost,
  }
  const mock = compileMock(document, compileOptions)
  const own =
    recorder === undefined && loadHarImporter !== undefined
      ? new Recording({ onSkipped: (url, reason) => log.warn({ url }, reason) })
      : null
  const state: RuntimeState = {
    mock,
    ring: options.inspection.enabled ? new InspectionRing(options.inspection, ids) : null,
    gate: new CapacityGate(mock.capacity),
    log,
    bodyLimit: options.bodyLimit,
    bodyTimeout: options.bodyTimeout,
    pendingBodies: new PendingBodies(),
    logRequests: options.logRequests,
    draining: false,
    requestCheck: requestCheck ?? null,
    onLive: onLive ?? null,
    recording: recorder ?? own,
    portAdmin: null,
  }
  const handler = safely(createRequestHandler(state), log) as Listener
  const sweeper = startBodySweep(state)
  const listeners: OpenListener[] = []
  try {
    listeners.push(
      await openListener('http', options.host, options.port, handler, null, options.maxHeaderSize),
    )
    if (options.tlsPort !== undefined && options.tlsPort !== null) {
      const tls = givenTls ?? (await loadTlsMaterial(options.tlsCert, options.tlsKey))
      if (tls.selfSigned && givenTls === undefined) {
        log.info('using a self-signed certificate for localhost')
      }
      listeners.push(
        await openListener(
          'https',
          options.host,
          options.tlsPort,
          handler,
          tls,
          options.maxHeaderSize,
        ),
      )
    }
    if (options.h2cPort !== undefined && options.h2cPort !== null) {
      listeners.push(
        await openListener(
          'h2c',
          options.host,
          options.h2cPort,
          handler,
          null,
          options.maxHeaderSize,
        ),
      )
    }
  } catch (err) {
    for (const open of listeners) closeAll(open)
    await Promise.all(listeners.map(stopAccepting))
    clearInterval(sweeper)
    await closePools(pools.values())
    throw err
  }
  const urlOf = (kind: OpenListener['kind']): string | null =>
    listeners.find((l) => l.kind === kind)?.url ?? null

  // The document before the layer, kept as the served one is (storedDocument).
  let base = storedDocument(document)
  let layer: DocumentLayer | null = null
  let closing: Promise<void> | null = null
  let swaps: Promise<unknown> = Promise.resolve()
  const swapIn = (compiled: CompiledMock): CompiledMock => {
    state.mock = compiled
    state.gate.limit = compiled.capacity
    onSwap?.(compiled.matcher.transactions.length)
    return compiled
  }
  return {
    urls: { http: urlOf('http') as string, https: urlOf('https'), h2c: urlOf('h2c') },
    ring: state.ring,
    current: () => state.mock,
    reload(next) {
      const compiled = swapIn(compileMock(layer === null ? next : layer(next), compileOptions))
      base = storedDocument(next)
      return compiled
    },
    reloadSliced(next) {
      // One swap compiles at a time: a later one must not be overtaken by an earlier, slower one.
      // The WireMock layer in force when it starts compiling is applied to it.
      const compiled = swaps.then(async () => {
        const swapped = swapIn(
          await compileMockSliced(
            layer === null ? next : layer(next),
            compileOptions,
            timeSlicer(),
          ),
        )
        base = storedDocument(next)
        return swapped
      })
      swaps = compiled.catch(() => undefined)
      return compiled
    },
    setDocumentLayer(next) {
      const compiled = swapIn(
        compileMock(next === null ? base.now() : next(base.now()), compileOptions),
      )
      layer = next
      return compiled
    },
    setPortAdmin: (admin) => {
      state.portAdmin = admin
    },
    // Requests being served plus those whose body is still arriving (which hold no capacity place).
    inFlight: () => state.gate.current + state.pendingBodies.size,
    egress,
    setRequestCheck: (check) => {
      state.requestCheck = check
    },
    recording:
      own === null || loadHarImporter === undefined ? null : { requests: own, loadHarImporter },
    close() {
      closing ??= drain(state, listeners, options.drainTimeout, pools).finally(async () => {
        clearInterval(sweeper)
        own?.stop()
        await postServe.close()
        await compileOptions.scenarios.close?.()
      })
      return closing
    },
  }
}

/** Where scenario states live: a shared store the options name, or this process. */
async function scenarioStatesOf(options: Readonly<RuntimeOptions>): Promise<ScenarioStates> {
  const url = options.scenarioStore ?? null
  if (url === null) return new ScenarioStore()
  return /^postgres(ql)?:/.test(url)
    ? await connectPostgresScenarios(url)
    : await connectRedisScenarios(url)
}

/**
 * The egress policy of runtime options.
 *
 * @example
 * egressPolicyOf(loadRuntimeOptions({})).settings.level // 'loopback'
 */
function egressPolicyOf(options: Readonly<RuntimeOptions>): EgressPolicy {
  return new EgressPolicy({
    level: options.egress.level,
    allow: options.egress.allow,
    protectedPorts: [],
    protectedPortsFile: options.egress.protectedPortsFile ?? null,
  })
}

async function drain(
  state: RuntimeState,
  listeners: OpenListener[],
  timeoutMs: number,
  pools: Map<string, Dispatcher>,
): Promise<void> {
  state.draining = true
  const stopped = Promise.all(listeners.map(stopAccepting))
  const deadline = Date.now() + timeoutMs
  while ((state.gate.current > 0 || state.pendingBodies.size > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    for (const open of listeners) closeIdle(open)
  }
  for (const open of listeners) closeAll(open)
  await stopped
  await closePools(pools.values())
}

/**
 * Answers 408 to requests whose body has not arrived within `bodyTimeout`, and closes the records
 * of those whose client went away mid-body (499). One sweep over the requests still receiving a
 * body, rather than a timer or listener per request: requests without a body (the common case)
 * cost nothing, and the deadline is kept within a tenth of the timeout (at most 1 s).
 */
function startBodySweep(state: RuntimeState): NodeJS.Timeout {
  const every = Math.max(20, Math.min(1000, Math.floor(state.bodyTimeout / 10)))
  const timer = setInterval(() => {
    if (state.pendingBodies.size === 0) return
    const now = Date.now()
    state.pendingBodies.forEach((exchange) => {
      const abandoned = exchange.abandoned
      if (!abandoned && now - exchange.arrivedAt < state.bodyTimeout) return
      try {
        if (abandoned) exchange.abortBody()
        else exchange.bodyTimedOut()
      } catch (err) {
        exchange.fail(err)
      }
    })
  }, every)
  timer.unref()
  return timer
}

/**
 * Guards the request listener: an unexpected throw answers 500 ERR_INTERNAL and is logged, and
 * never takes the process down.
 */
function safely(
  handler: (req: never, res: never) => void,
  log: Logger,
): (req: never, res: never) => void {
  return function guarded(req, res) {
    try {
      handler(req, res)
    } catch (err) {
      log.error({ err }, 'request handler failed')
      const response = res as unknown as {
        headersSent: boolean
        writeHead: (s: number, h: string[]) => void
        end: (b: Buffer) => void
        destroy: () => void
      }
      try {
        if (response.headersSent) {
          response.destroy()
        } else {
          const answer = problemAnswer(createError('ERR_INTERNAL'), null)
          response.writeHead(answer.status, answer.headers2)
          response.end(answer.body)
        }
      } catch {
        // The connection is beyond saving; the error is logged above.
      }
    }
  }
}
