import type { RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger, LogRing } from '../log/index.js'
import { localAdminTarget, type AdminTarget } from './admin-target.js'
import { allRecords } from '../inspect/index.js'
import {
  isMessage,
  recordToWire,
  toWireError,
  type PrimaryMessage,
  type ReplicaCall,
  type ReplicaMessage,
  type StartMessage,
  type WireRecord,
} from './cluster-protocol.js'
import { CaptureQueue } from './record/capture.js'
import { startRuntime, type Runtime } from './runtime.js'
import { forwardingWireMock, type WireMockAnswer, type WireMockCall } from './wiremock/index.js'
import type { RequestCheck } from './request-check.js'
import { SharedScenarios, type ScenarioCommitter } from './scenario/shared.js'
import type { ScenarioRead } from './scenario/store.js'

export interface ClusterReplicaParams {
  /** The runtime options of the command line; the primary's `start` message gives the ports. */
  options: Readonly<RuntimeOptions>
  /** The replica's logger; its lines get `replica` and `serviceMockId` fields. */
  log: Logger
  /** Where the replica keeps its log lines, which the primary's `GET /log` gathers. */
  logRing: LogRing | null
  /**
   * The request validation this replica applies (`--validate-requests`, or the document's
   * `validateRequests`), built from the document the primary sends; none when absent.
   */
  requestCheck?: (document: MockServiceDocument) => Promise<RequestCheck | null>
  /** Called once the replica listens, with the number of transactions it serves. */
  onListening?: (transactions: number) => void
  /** Called after each swap of the replica's configuration, with the number of transactions compiled. */
  onSwap?: (transactions: number) => void
}

/** Captured requests per `recorded` message: a large batch goes as several messages of bounded size. */
const RECORDED_PER_MESSAGE = 100
/** How long a replica waits for the primary to commit a scenario transition. */
const SCENARIO_TIMEOUT_MS = 5_000
/**
 * How long a replica waits for the primary's answer to a WireMock admin call: longer than the
 * primary waits for every replica to swap a configuration (60 s), so that its own refusal arrives.
 */
const WIREMOCK_TIMEOUT_MS = 75_000

/**
 * Runs this process as one replica of a cluster (`understudy run --replicas N`): waits for the
 * primary's `start`, serves on the shared ports (in a cluster, a listener on port 0 gets the port
 * every replica shares), answers the primary's admin calls, and drains then exits on `stop` or on
 * SIGTERM/SIGINT. Returns at once; the process lives on its IPC channel and listeners.
 *
 * @example
 * if (cluster.isWorker) runClusterReplica({ options, log, logRing })
 */
export function runClusterReplica(params: ClusterReplicaParams): void {
  const send = (message: ReplicaMessage, sent?: () => void): void => {
    // The channel is gone when the primary has died; Node's cluster then ends this process.
    if (process.connected) process.send?.(message, undefined, undefined, sent)
    else sent?.()
  }
  let runtime: Runtime | null = null
  let target: AdminTarget | null = null
  let journal: () => WireRecord[] = () => []
  let started: Promise<void> | null = null
  let stopping = false
  let failed = false
  let log = params.log
  // Scenario commits waiting for the primary's answer, by request id.
  const commits = new Map<
    number,
    {
      resolve: (value: { ok: boolean; states: ScenarioRead[] }) => void
      reject: (err: Error) => void
      timer: NodeJS.Timeout
    }
  >()
  let nextCommit = 0
  const committer: ScenarioCommitter = async (reads, writes) =>
    await new Promise((resolve, reject) => {
      if (!process.connected) {
        reject(new Error('the primary is gone'))
        return
      }
      const requestId = ++nextCommit
      const timer = setTimeout(() => {
        commits.delete(requestId)
        reject(new Error(`the primary did not answer within ${SCENARIO_TIMEOUT_MS} ms`))
      }, SCENARIO_TIMEOUT_MS)
      commits.set(requestId, { resolve, reject, timer })
      send({ kind: 'scenario', requestId, reads, writes })
    })

  // What `record` forwards is captured here as in a single runtime, and sent to the primary
  // (which merges every replica's) off the request path: coalesced, every 200 ms.
  const capture = new CaptureQueue({
    onDue: () => {
      sendRecorded()
    },
    onSkipped: (url, reason) => log.warn({ url }, reason),
  })
  /**
   * Sends what is queued to the primary; `sent` is called once the channel took the last of it.
   * Returns how many distinct requests were sent.
   */
  const sendRecorded = (sent?: () => void): number => {
    const { requests } = capture.take()
    if (requests.length === 0) sent?.()
    for (let i = 0; i < requests.length; i += RECORDED_PER_MESSAGE) {
      const last = i + RECORDED_PER_MESSAGE >= requests.length
      send(
        { kind: 'recorded', requests: requests.slice(i, i + RECORDED_PER_MESSAGE) },
        last ? sent : undefined,
      )
    }
    return requests.length
  }
  const recording: RecordingCalls = { flush: () => sendRecorded(), drop: () => capture.drop() }

  // WireMock admin calls received on the shared mock port, waiting for the primary's answer.
  const wiremockCalls = new Map<
    number,
    {
      resolve: (answer: WireMockAnswer) => void
      reject: (err: Error) => void
      timer: NodeJS.Timeout
    }
  >()
  let nextWireMockCall = 0
  const toPrimary = async (call: WireMockCall): Promise<WireMockAnswer> =>
    await new Promise((resolve, reject) => {
      if (!process.connected) {
        reject(new Error('the primary is gone'))
        return
      }
      const requestId = ++nextWireMockCall
      const timer = setTimeout(() => {
        wiremockCalls.delete(requestId)
        reject(new Error(`the primary did not answer within ${WIREMOCK_TIMEOUT_MS} ms`))
      }, WIREMOCK_TIMEOUT_MS)
      wiremockCalls.set(requestId, { resolve, reject, timer })
      send({ kind: 'wiremock', requestId, call })
    })

  const start = async (message: StartMessage): Promise<void> => {
    log = params.log.child({ replica: message.replica, serviceMockId: message.document.id ?? 0 })
    const options: Readonly<RuntimeOptions> = { ...params.options, ...message.ports }
    try {
      const requestCheck =
        params.requestCheck === undefined ? null : await params.requestCheck(message.document)
      runtime = await startRuntime({
        document: message.document,
        options,
        log,
        requestCheck,
        // A shared store (Redis) replaces the primary as the keeper of the states.
        ...(options.scenarioStore === undefined || options.scenarioStore === null
          ? { scenarios: new SharedScenarios(committer) }
          : {}),
        recorder: capture,
        ids: message.ids,
        ...(message.tls === null ? {} : { tls: message.tls }),
        ...(params.onSwap === undefined ? {} : { onSwap: params.onSwap }),
      })
    } catch (err) {
      failed = true
      log.error({ err }, 'replica failed to start')
      send({ kind: 'failed', error: toWireError(err) })
      // Leave it to the primary, which kills a replica that failed; exit anyway if it does not.
      setTimeout(() => process.exit(1), 2000).unref()
      throw err
    }
    target = localAdminTarget(runtime, params.logRing)
    const ring = runtime.ring
    journal = () => allRecords(ring).map(recordToWire)
    // The primary owns the stubs and gathers every replica's journal: calls go there.
    if (options.wiremockAdmin) {
      runtime.setPortAdmin(
        forwardingWireMock({
          listen: options.host,
          token: options.adminToken ?? null,
          forward: toPrimary,
        }),
      )
    }
    log.info({ urls: runtime.urls, pid: process.pid }, 'replica listening')
    params.onListening?.(message.document.transactions.length)
    send({ kind: 'listening', urls: runtime.urls })
    if (stopping) await stop()
  }

  const answer = async (callId: number, call: ReplicaCall): Promise<void> => {
    try {
      await started
      if (target === null) throw new Error('replica not started')
      send({ kind: 'reply', callId, value: await perform(target, call, recording, journal) })
    } catch (err) {
      send({ kind: 'reply', callId, error: toWireError(err) })
    }
  }

  const stop = async (): Promise<void> => {
    stopping = true
    if (runtime === null) {
      if (started === null || failed) process.exit(0)
      return // start() stops once it listens
    }
    const current = runtime
    runtime = null
    log.info({ pid: process.pid }, 'replica draining')
    await current.close().catch((err: unknown) => log.error({ err }, 'replica drain failed'))
    // What the drained requests recorded reaches the primary before this process ends.
    capture.stop()
    await new Promise<void>((resolve) => {
      // Bounded: a primary that stopped reading does not hold the exit.
      const timer = setTimeout(resolve, 2000)
      sendRecorded(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    process.exit(0)
  }

  process.on('message', (message: unknown) => {
    if (!isMessage<PrimaryMessage>(message)) return
    switch (message.kind) {
      case 'start':
        started ??= start(message).catch(() => {})
        break
      case 'call':
        answer(message.callId, message.call).catch(() => {})
        break
      case 'stop':
        stop().catch(() => {})
        break
      case 'wiremock-result': {
        const pending = wiremockCalls.get(message.requestId)
        if (pending === undefined) return
        wiremockCalls.delete(message.requestId)
        clearTimeout(pending.timer)
        pending.resolve(message.answer)
        break
      }
      case 'scenario-result': {
        const pending = commits.get(message.requestId)
        if (pending === undefined) return
        commits.delete(message.requestId)
        clearTimeout(pending.timer)
        pending.resolve({ ok: message.ok, states: message.states })
        break
      }
    }
  })
  // A signal to the whole process group (Ctrl-C) reaches replicas too: drain, as a single runtime does.
  const onSignal = (): void => {
    stop().catch(() => {})
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  send({ kind: 'hello' })
}

/** The primary's calls about the recording, which the replica's capture queue answers. */
interface RecordingCalls {
  /** Sends what is queued now (the `recorded` messages go before the reply); how many requests. */
  flush: () => number
  /** Forgets what is queued; how many exchanges. */
  drop: () => number
}

async function perform(
  target: AdminTarget,
  call: ReplicaCall,
  recording: RecordingCalls,
  journal: () => WireRecord[],
): Promise<unknown> {
  switch (call.op) {
    case 'health':
      return await target.health()
    case 'reconfigure':
      return await target.reconfigure(call.document)
    case 'inspection':
      return await target.inspection(call.skip, call.limit)
    case 'detail':
      return (await target.inspectionDetail(call.id)) ?? null
    case 'log':
      return await target.log(call.limit)
    case 'list':
      return await target.search.list(call.filter, 0, call.limit)
    case 'count':
      return await target.search.count(call.filter)
    case 'unmatched':
      return await target.search.unmatched(call.filter, call.limit)
    case 'verify':
      return await target.search.verify(call.verification)
    case 'clear':
      return await target.search.clear()
    case 'postServe':
      return (await target.scenarios?.postServe()) ?? null
    case 'flushRecording':
      return recording.flush()
    case 'dropRecording':
      return recording.drop()
    case 'journal':
      return journal()
  }
}
