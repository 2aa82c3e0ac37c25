import type { Cluster, Worker } from 'node:cluster'
import { RestartSupervisor, type RestartPolicy, type RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import { createError, UnderstudyError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import {
  fromWireError,
  isMessage,
  type ListenPorts,
  type PrimaryMessage,
  type ReplicaCall,
  type ReplicaMessage,
} from './cluster-protocol.js'
import type { DocumentLayer, Runtime } from './runtime.js'
import { RecordedRequests } from './record/recorded-requests.js'
import { commitScenarios, ScenarioStore } from './scenario/store.js'
import { loadTlsMaterial, type TlsMaterial } from './tls.js'
import type { WireMockAnswer, WireMockCall } from './wiremock/index.js'

/** A replica's state as the primary sees it. */
export type ReplicaState = 'STARTING' | 'UP' | 'DOWN'

/** One replica, read-only, for health and routing. */
interface ReplicaView {
  /** 1..replicas. */
  readonly replica: number
  readonly state: ReplicaState
  /** Its process id; null between a death and the restart. */
  readonly pid: number | null
  /** How many times it was restarted after dying. */
  readonly restarts: number
}

interface ReplicaSetParams {
  document: MockServiceDocument
  options: Readonly<RuntimeOptions>
  /** How many replicas: at least 2 (one replica is a plain runtime, without a cluster). */
  replicas: number
  log: Logger
  /** The command line the replicas run (the same as the primary's: Node's cluster tells them apart). */
  args: readonly string[]
  /**
   * Called after each change of what is served (`PUT /config`, the WireMock admin API's stubs),
   * with the number of transactions served: the primary read and compiled that document too.
   */
  onSwap?: (transactions: number) => void
}

/** Thrown by `call` when the replica is not running (dead, restarting): it will start on the current document. */
export class ReplicaGoneError extends UnderstudyError {
  constructor(replica: number) {
    super('ERR_API_UNAVAILABLE', `Replica ${replica} is not running`)
  }
}

interface PendingCall {
  resolve: (value: unknown) => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

interface Slot {
  readonly replica: number
  worker: Worker | null
  state: ReplicaState
  /** `start` was sent: the replica serves (or is about to serve) a document. */
  startSent: boolean
  ports: ListenPorts | null
  restarts: number
  /** Deaths in a row, each soon after its start: the restart backoff grows with it. */
  readonly backoff: RestartSupervisor
  startedAt: number
  calls: Map<number, PendingCall>
}

/**
 * A replica that dies is restarted at once; one that keeps dying young (within 10 s of its start)
 * waits 250 ms, then twice as long each time, up to 5 s. A replica is never given up: the
 * runtime's other replicas serve meanwhile, and the deployer watches the runtime as a whole.
 */
const REPLICA_RESTARTS: RestartPolicy = {
  attempts: Infinity,
  immediate: 1,
  initialDelayMs: 250,
  maxDelayMs: 5_000,
  healthyAfterMs: 10_000,
}
/** A replica handles far fewer requests than this per millisecond: restarted replicas start their ids past any the previous one can have used. */
const MAX_REQUESTS_PER_MS = 1_000

/**
 * The primary of `understudy run --replicas N`: forks N replicas (node:cluster) that share the
 * mock service's ports, gives each its document and inspection-id residue, restarts a replica that
 * dies (logged; immediately, then with a backoff up to 5 s while it keeps dying young), talks
 * to them over IPC for the admin API (cluster-admin.ts), and keeps the scenario states they share
 * and the recording they make.
 *
 * @example
 * const set = new ReplicaSet({ document, options, replicas: 4, log, args: ['run', '--mock', 'm.json'] })
 * await set.start()
 * set.urls.http // http://127.0.0.1:8080
 */
export class ReplicaSet {
  readonly replicas: number
  readonly startedAt = Date.now()
  /**
   * The scenario states of the mock service, shared by its replicas: each replica commits its
   * scenario matches here (one synchronous check-and-set per message, so atomic), and the admin
   * `/scenarios` routes read and change them here. They outlive replica restarts and reconfigurations.
   */
  readonly scenarios = new ScenarioStore()
  /**
   * The recording of `noMatchingRequestPreference: record` over every replica: each replica sends
   * what it captured (coalesced, every 200 ms) and it is merged here, one entry per distinct
   * request whichever replica forwarded it. It outlives replica restarts and reconfigurations.
   */
  readonly recording: RecordedRequests
  /** The document as configured (the file, `PUT /config`), before the WireMock layer. */
  #base: MockServiceDocument
  /** The WireMock admin API's stubs over the base; null: none. */
  #layer: DocumentLayer | null = null
  /** What the replicas serve: the base through the layer. */
  #document: MockServiceDocument
  /** Changes of what is served, one at a time (a configuration, the WireMock stubs). */
  #changes: Promise<unknown> = Promise.resolve()
  /** Answers the WireMock admin calls the replicas forward; null: the API is off. */
  #wiremock: ((call: WireMockCall) => Promise<WireMockAnswer>) | null = null
  readonly #params: ReplicaSetParams
  readonly #log: Logger
  readonly #slots: Slot[]
  #urls: Runtime['urls'] | null = null
  #actualPorts: ListenPorts | null = null
  #tls: TlsMaterial | null = null
  #nextCallId = 0
  /** node:cluster, loaded by `start`: a process that never replicates never loads it. */
  #cluster: Cluster | null = null
  #stopping: Promise<void> | null = null
  /** Set while the first start is under way: settles `start()`. */
  #initial: { resolve: () => void; reject: (err: Error) => void } | null = null

  constructor(params: ReplicaSetParams) {
    if (!Number.isInteger(params.replicas) || params.replicas < 2) {
      throw new RangeError('a replica set needs at least 2 replicas')
    }
    this.replicas = params.replicas
    this.#params = params
    this.#base = params.document
    this.#document = params.document
    this.#log = params.log
    this.recording = new RecordedRequests((url, reason) => this.#log.warn({ url }, reason))
    this.#slots = Array.from({ length: params.replicas }, (_, i): Slot => ({
      replica: i + 1,
      worker: null,
      state: 'DOWN',
      startSent: false,
      ports: null,
      restarts: 0,
      backoff: new RestartSupervisor(REPLICA_RESTARTS),
      startedAt: 0,
      calls: new Map(),
    }))
  }

  /** The shared listeners' URLs (known once started). */
  get urls(): Runtime['urls'] {
    if (this.#urls === null) throw new Error('the replica set has not started')
    return this.#urls
  }

  /** What the replicas serve: the configured document with the WireMock API's stubs. */
  get document(): MockServiceDocument {
    return this.#document
  }

  /** The configured document, before the WireMock API's stubs. */
  get base(): MockServiceDocument {
    return this.#base
  }

  /** The WireMock API's stubs over the base; null: none. */
  get layer(): DocumentLayer | null {
    return this.#layer
  }

  /** What the replicas would serve for this base document, with the current WireMock layer. */
  layered(base: MockServiceDocument): MockServiceDocument {
    return this.#layer === null ? base : this.#layer(base)
  }

  /**
   * Replicas started from now on serve `served`, made from `base` and `layer` (a change sends it
   * to the running ones).
   */
  adopt(base: MockServiceDocument, layer: DocumentLayer | null, served: MockServiceDocument): void {
    this.#base = base
    this.#layer = layer
    this.#document = served
    this.#params.onSwap?.(served.transactions.length)
  }

  /** Runs changes of what is served one after the other, so that none is based on a stale one. */
  async serialize<T>(change: () => Promise<T>): Promise<T> {
    const done = this.#changes.then(change)
    this.#changes = done.catch(() => undefined)
    return await done
  }

  /** Who answers the WireMock admin calls forwarded by the replicas. */
  answerWireMock(answer: (call: WireMockCall) => Promise<WireMockAnswer>): void {
    this.#wiremock = answer
  }

  get options(): Readonly<RuntimeOptions> {
    return this.#params.options
  }

  views(): ReplicaView[] {
    return this.#slots.map((s) => ({
      replica: s.replica,
      state: s.state,
      pid: s.worker?.process.pid ?? null,
      restarts: s.restarts,
    }))
  }

  /**
   * Forks every replica and resolves once all listen. Rejects with the first replica's failure
   * (a port in use, a bad certificate) after ending the others.
   */
  async start(): Promise<void> {
    const { options } = this.#params
    if (options.tlsPort !== undefined && options.tlsPort !== null) {
      // One certificate for all: replicas that each made their own would answer with different ones.
      this.#tls = await loadTlsMaterial(options.tlsCert, options.tlsKey)
    }
    const cluster = (await import('node:cluster')).default
    this.#cluster = cluster
    cluster.setupPrimary({ args: [...this.#params.args], silent: false })
    const ready = new Promise<void>((resolve, reject) => {
      this.#initial = { resolve, reject }
    })
    for (const slot of this.#slots) this.#fork(slot)
    try {
      await ready
    } catch (err) {
      await this.stop()
      throw err
    } finally {
      this.#initial = null
    }
  }

  /**
   * Asks one replica to do admin work. Rejects with ReplicaGoneError when it is not running, with
   * ERR_API_UNAVAILABLE when it does not answer in time, and with the replica's own error otherwise.
   */
  async call(replica: number, call: ReplicaCall, timeoutMs = 10_000): Promise<unknown> {
    const slot = this.#slots[replica - 1]
    const worker = slot?.worker
    if (slot === undefined || worker === null || worker === undefined || !slot.startSent) {
      throw new ReplicaGoneError(replica)
    }
    const callId = ++this.#nextCallId
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        slot.calls.delete(callId)
        reject(
          createError('ERR_API_UNAVAILABLE', [
            `Replica ${replica} did not answer within ${timeoutMs} ms`,
          ]),
        )
      }, timeoutMs)
      slot.calls.set(callId, { resolve, reject, timer })
      this.#send(worker, { kind: 'call', callId, call })
    })
  }

  /** Drains every replica (each lets its requests in flight finish), then resolves; idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const deadline = this.#params.options.drainTimeout + 5_000
      const exits: Array<Promise<void>> = []
      for (const slot of this.#slots) {
        slot.backoff.cancel()
        const worker = slot.worker
        if (worker === null) continue
        exits.push(
          new Promise<void>((resolve) => {
            if (worker.process.exitCode !== null || worker.process.signalCode !== null) {
              resolve()
              return
            }
            const killer = setTimeout(() => worker.process.kill('SIGKILL'), deadline)
            worker.process.once('exit', () => {
              clearTimeout(killer)
              resolve()
            })
          }),
        )
        if (slot.startSent) this.#send(worker, { kind: 'stop' })
        else worker.process.kill('SIGKILL')
      }
      await Promise.all(exits)
    })()
    return this.#stopping
  }

  #fork(slot: Slot): void {
    if (this.#cluster === null) throw new Error('the replica set has not started')
    const worker = this.#cluster.fork()
    slot.worker = worker
    slot.state = 'STARTING'
    slot.startSent = false
    slot.startedAt = Date.now()
    worker.on('message', (message: unknown) => {
      if (isMessage<ReplicaMessage>(message)) this.#onMessage(slot, worker, message)
    })
    // Sending to a replica that just died fails asynchronously; its exit is handled below.
    worker.on('error', () => {})
    worker.process.once('exit', (code, signal) => this.#onExit(slot, worker, code, signal))
  }

  #onMessage(slot: Slot, worker: Worker, message: ReplicaMessage): void {
    if (slot.worker !== worker) return
    switch (message.kind) {
      case 'hello': {
        // Replicas sharing a port must ask for it the same way: a replica started while others
        // listen asks as they did; one started alone asks for the port already known, so that
        // the mock service keeps its port even when every replica died.
        const peer = this.#slots.find((s) => s !== slot && s.state === 'UP' && s.ports !== null)
        slot.ports = peer?.ports ?? this.#actualPorts ?? requestedPorts(this.#params.options)
        const firstStart = slot.restarts === 0
        const base = firstStart ? 0 : (Date.now() - this.startedAt + 1) * MAX_REQUESTS_PER_MS
        slot.startSent = true
        this.#send(worker, {
          kind: 'start',
          replica: slot.replica,
          replicas: this.replicas,
          ids: { start: slot.replica + this.replicas * base, step: this.replicas },
          document: this.#document,
          tls: this.#tls,
          ports: slot.ports,
        })
        break
      }
      case 'listening':
        this.#onListening(slot, worker, message.urls)
        break
      case 'failed':
        this.#log.error(
          { worker: slot.replica, pid: worker.process.pid, error: message.error },
          'replica failed to start',
        )
        if (this.#initial !== null) this.#initial.reject(fromWireError(message.error))
        worker.process.kill('SIGKILL')
        break
      case 'scenario': {
        const result = commitScenarios(this.scenarios, message.reads, message.writes)
        this.#send(worker, {
          kind: 'scenario-result',
          requestId: message.requestId,
          ok: result.ok,
          states: result.states,
        })
        break
      }
      case 'recorded':
        this.recording.merge(message.requests)
        break
      case 'wiremock':
        this.#onWireMock(worker, message.requestId, message.call)
        break
      case 'reply': {
        const pending = slot.calls.get(message.callId)
        if (pending === undefined) return
        slot.calls.delete(message.callId)
        clearTimeout(pending.timer)
        if ('error' in message) pending.reject(fromWireError(message.error))
        else pending.resolve(message.value)
        break
      }
    }
  }

  #onWireMock(worker: Worker, requestId: number, call: WireMockCall): void {
    const answer =
      this.#wiremock?.(call) ??
      Promise.resolve({
        status: 404,
        body: { errors: [{ code: 30, title: 'the WireMock admin API is off on this runtime' }] },
      })
    answer
      .catch((err: unknown): WireMockAnswer => ({
        status: 500,
        body: { errors: [{ code: 10, title: err instanceof Error ? err.message : 'failed' }] },
      }))
      .then((result) => this.#send(worker, { kind: 'wiremock-result', requestId, answer: result }))
      .catch(() => {})
  }

  #onListening(slot: Slot, worker: Worker, urls: Runtime['urls']): void {
    if (this.#urls === null) {
      this.#urls = urls
      this.#actualPorts = portsOf(urls)
    } else if (
      urls.http !== this.#urls.http ||
      urls.https !== this.#urls.https ||
      urls.h2c !== this.#urls.h2c
    ) {
      // Every replica that shared the port died before this one listened: it got a fresh port.
      this.#log.warn(
        { worker: slot.replica, urls, expected: this.#urls },
        'replica listens on other ports; restarting it',
      )
      worker.process.kill('SIGKILL')
      return
    }
    slot.state = 'UP'
    if (this.#initial !== null && this.#slots.every((s) => s.state === 'UP')) {
      this.#initial.resolve()
    }
  }

  #onExit(slot: Slot, worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.worker !== worker) return
    slot.worker = null
    slot.state = 'DOWN'
    slot.startSent = false
    for (const pending of slot.calls.values()) {
      clearTimeout(pending.timer)
      pending.reject(new ReplicaGoneError(slot.replica))
    }
    slot.calls.clear()
    if (this.#stopping !== null) return
    if (this.#initial !== null) {
      this.#initial.reject(
        createError('ERR_SERVE_LISTEN', [
          `replica ${slot.replica}`,
          `it exited with ${signal ?? `code ${code ?? '?'}`} before listening`,
        ]),
      )
      return
    }
    slot.backoff.ended(Date.now() - slot.startedAt)
    const restart = slot.backoff.schedule(() => {
      if (this.#stopping === null) this.#fork(slot)
    })
    slot.restarts++
    this.#log.warn(
      {
        worker: slot.replica,
        pid: worker.process.pid,
        code,
        signal,
        restartInMs: restart?.delayMs,
        restarts: slot.restarts,
      },
      'replica exited; restarting',
    )
  }

  #send(worker: Worker, message: PrimaryMessage): void {
    try {
      if (worker.isConnected()) worker.send(message)
    } catch {
      // The channel closed under us: the exit handler deals with the replica.
    }
  }
}

function requestedPorts(options: Readonly<RuntimeOptions>): ListenPorts {
  return { port: options.port, tlsPort: options.tlsPort ?? null, h2cPort: options.h2cPort ?? null }
}

function portsOf(urls: Runtime['urls']): ListenPorts {
  const port = (url: string | null): number | null =>
    url === null ? null : Number(new URL(url).port)
  return { port: port(urls.http) ?? 0, tlsPort: port(urls.https), h2cPort: port(urls.h2c) }
}
