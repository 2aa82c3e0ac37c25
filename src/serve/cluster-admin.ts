import type { Dispatcher } from 'undici'
import type { MockServiceDocument } from '../dsl/index.js'
import {
  mergeVerifications,
  newestFirst,
  type InspectionDetail,
  type UnmatchedEntry,
  type VerificationResult,
} from '../inspect/index.js'
import type { LogRing } from '../log/index.js'
import type {
  AdminSearch,
  AdminTarget,
  InspectionPage,
  ReconfigureResult,
  RecordingAdmin,
  RuntimeHealth,
  ScenarioAdmin,
} from './admin-target.js'
import type { ReplicaCall } from './cluster-protocol.js'
import type { PostServeStats } from './post-serve.js'
import { ReplicaGoneError, type ReplicaSet, type ReplicaState } from './cluster-primary.js'
import { compileMock, type CompiledMock } from './compile-mock.js'
import { closePools } from './proxy.js'
import type { LoadHarImporter } from './record/recorded-requests.js'

/** A replica in the primary's `GET /health`. */
interface ReplicaHealth {
  replica: number
  status: ReplicaState
  pid: number | null
  restarts: number
  /** Transactions of the configuration it serves. */
  transactions: number | null
  inFlight: number
  inspection: { records: number; bytes: number } | null
  uptimeSeconds: number | null
  /** Values its regex matchers refused for being past the input bound (docs/regex.md). */
  oversizeRegexInputs: number
}

/** `GET /health` of a cluster primary: the sums, and each replica. */
interface ClusterHealth extends RuntimeHealth {
  replicas: number
  workers: ReplicaHealth[]
}

/** How long the primary waits for a replica's answer to a read (health, inspection, log). */
const READ_TIMEOUT_MS = 3_000
/** A verification query decodes a replica's whole journal: it gets longer. */
const SEARCH_TIMEOUT_MS = 15_000
/** How long it waits for every replica to compile and swap a configuration. */
const RECONFIGURE_TIMEOUT_MS = 60_000

/**
 * The admin API of a cluster primary, over its replicas: `/health` sums them and lists each,
 * `PUT /config` compiles once here (a 400 changes nothing anywhere) and answers after every
 * replica swapped, `/inspection` merges the replicas newest first, `/inspection/{id}` asks the
 * replica the id belongs to (replica k of N numbers k, k + N...), `/log` gathers every replica's
 * lines (each carries its `replica`) with the primary's own, `/recordings` reads the recording the
 * primary merged from every replica (given the HAR importer's loader that converts it).
 *
 * @example
 * await startAdmin({ target: clusterAdminTarget(set, logRing), host: '127.0.0.1', port: 0, log })
 */
export function clusterAdminTarget(
  set: ReplicaSet,
  logRing: LogRing | null,
  loadHarImporter?: LoadHarImporter,
): AdminTarget {
  const up = (): number[] =>
    set
      .views()
      .filter((v) => v.state === 'UP')
      .map((v) => v.replica)
  return {
    ...(loadHarImporter === undefined
      ? {}
      : { recordings: clusterRecordings(set, up, loadHarImporter) }),
    health: async (): Promise<ClusterHealth> => {
      const workers = await Promise.all(
        set.views().map(async (view): Promise<ReplicaHealth> => {
          const health: ReplicaHealth = {
            replica: view.replica,
            status: view.state,
            pid: view.pid,
            restarts: view.restarts,
            transactions: null,
            inFlight: 0,
            inspection: null,
            uptimeSeconds: null,
            oversizeRegexInputs: 0,
          }
          if (view.state !== 'UP') return health
          try {
            const answer = (await set.call(
              view.replica,
              { op: 'health' },
              READ_TIMEOUT_MS,
            )) as RuntimeHealth
            return {
              ...health,
              transactions: answer.transactions,
              inFlight: answer.inFlight,
              inspection: answer.inspection,
              uptimeSeconds: answer.uptimeSeconds,
              oversizeRegexInputs: answer.oversizeRegexInputs ?? 0,
            }
          } catch {
            return { ...health, status: 'DOWN' }
          }
        }),
      )
      const serving = workers.filter((w) => w.status === 'UP')
      const inspection = set.options.inspection.enabled
        ? {
            records: sum(serving.map((w) => w.inspection?.records ?? 0)),
            bytes: sum(serving.map((w) => w.inspection?.bytes ?? 0)),
          }
        : null
      return {
        status: serving.length === workers.length ? 'UP' : serving.length > 0 ? 'DEGRADED' : 'DOWN',
        serviceMockId: set.document.id ?? 0,
        transactions: serving[0]?.transactions ?? 0,
        inFlight: sum(serving.map((w) => w.inFlight)),
        uptimeSeconds: Math.round((Date.now() - set.startedAt) / 1000),
        inspection,
        urls: set.urls,
        pid: process.pid,
        // The replicas match; a stopped one's count is lost with it.
        oversizeRegexInputs: sum(serving.map((w) => w.oversizeRegexInputs)),
        replicas: set.replicas,
        workers,
      }
    },
    config: async () => set.document,
    serviceMockId: () => set.document.id ?? 0,
    reconfigure: async (document: MockServiceDocument): Promise<ReconfigureResult> =>
      await set.serialize(async () => {
        // The WireMock API's stubs stay layered over the new document, as on a single runtime.
        const served = set.layered(document)
        // Compiled here once, only to reject what the replicas could not compile: nothing changes then.
        const transactions = compileHere(set, served).matcher.active.length
        set.adopt(document, set.layer, served)
        await Promise.all(
          set.views().map(async (view) => {
            try {
              await set.call(
                view.replica,
                { op: 'reconfigure', document: served },
                RECONFIGURE_TIMEOUT_MS,
              )
            } catch (err) {
              // A replica that is not running starts on the new document.
              if (!(err instanceof ReplicaGoneError)) throw err
            }
          }),
        )
        return { transactions, serviceMockId: document.id ?? 0 }
      }),
    inspection: async (skip, limit): Promise<InspectionPage> => {
      const pages = await everyReplica<InspectionPage>(
        set,
        { op: 'inspection', skip: 0, limit: skip + limit },
        READ_TIMEOUT_MS,
      )
      return {
        entries: newestFirst(pages.flatMap((p) => p.entries)).slice(skip, skip + limit),
        total: sum(pages.map((p) => p.total)),
      }
    },
    inspectionDetail: async (id): Promise<InspectionDetail | undefined> => {
      if (id < 1) return undefined
      const replica = ((id - 1) % set.replicas) + 1
      try {
        return (
          ((await set.call(
            replica,
            { op: 'detail', id },
            READ_TIMEOUT_MS,
          )) as InspectionDetail | null) ?? undefined
        )
      } catch (err) {
        if (err instanceof ReplicaGoneError) return undefined
        throw err
      }
    },
    search: clusterSearch(set),
    scenarios: clusterScenarios(set, up),
    log: async (limit) => {
      const parts = await Promise.all(
        up().map(async (replica) => {
          try {
            return (await set.call(replica, { op: 'log', limit }, READ_TIMEOUT_MS)) as string[]
          } catch {
            return []
          }
        }),
      )
      parts.push(logRing?.snapshot(limit) ?? [])
      // Oldest first, by pino's `time`; lines of one source keep their order (the sort is stable).
      const lines = parts.flat().map((line) => ({ line, time: timeOf(line) }))
      lines.sort((a, b) => a.time - b.time)
      return lines.slice(Math.max(0, lines.length - limit)).map((l) => l.line)
    },
  }
}

/**
 * The verification queries of a cluster: the same query asked of every replica, over its own
 * journal, and the answers merged (lists newest first, counts added, verifications judged on the
 * sum). Reads fail closed (everyReplica). A reset skips a replica that is not running (it starts
 * again with an empty journal) and fails when one does not answer (so that a test never believes
 * the journal empty when it is not).
 */
function clusterSearch(set: ReplicaSet): AdminSearch {
  const read = async <T>(call: ReplicaCall): Promise<T[]> =>
    await everyReplica<T>(set, call, SEARCH_TIMEOUT_MS)
  return {
    list: async (filter, skip, limit) => {
      const pages = await read<InspectionPage>({ op: 'list', filter, limit: skip + limit })
      return {
        entries: newestFirst(pages.flatMap((p) => p.entries)).slice(skip, skip + limit),
        total: sum(pages.map((p) => p.total)),
      }
    },
    count: async (filter) => sum(await read<number>({ op: 'count', filter })),
    unmatched: async (filter, limit) => {
      const pages = await read<{ entries: UnmatchedEntry[]; total: number }>({
        op: 'unmatched',
        filter,
        limit,
      })
      return {
        entries: newestFirst(pages.flatMap((p) => p.entries)).slice(0, limit),
        total: sum(pages.map((p) => p.total)),
      }
    },
    verify: async (verification) =>
      mergeVerifications(
        verification,
        await read<VerificationResult>({ op: 'verify', verification }),
      ),
    clear: async () => {
      const deleted = await Promise.all(
        set.views().map(async (view) => {
          try {
            return (await set.call(view.replica, { op: 'clear' }, SEARCH_TIMEOUT_MS)) as number
          } catch (err) {
            if (err instanceof ReplicaGoneError) return 0
            throw err
          }
        }),
      )
      return sum(deleted)
    },
  }
}

/**
 * Asks every replica, running or not, and fails closed: a replica that is not running (dead,
 * restarting: the records it held ended with it) or that does not answer in time fails the whole
 * read with 503 ERR_API_UNAVAILABLE naming it, so that a verification never counts part of the
 * traffic as if it were all of it.
 */
async function everyReplica<T>(
  set: ReplicaSet,
  call: ReplicaCall,
  timeoutMs: number,
): Promise<T[]> {
  return await Promise.all(
    set.views().map(async (view) => (await set.call(view.replica, call, timeoutMs)) as T),
  )
}

/** `/scenarios` of a cluster: the states are the primary's; the webhook counters are summed over the replicas. */
function clusterScenarios(set: ReplicaSet, up: () => number[]): ScenarioAdmin {
  return {
    list: async () => set.scenarios.list(),
    set: async (name, instance, state) => set.scenarios.set(name, instance, state, null),
    reset: async (name, instance) => set.scenarios.reset(name, instance),
    postServe: async () => {
      const stats = await Promise.all(
        up().map(async (replica) => {
          try {
            return (await set.call(
              replica,
              { op: 'postServe' },
              READ_TIMEOUT_MS,
            )) as PostServeStats | null
          } catch {
            return null
          }
        }),
      )
      const known = stats.filter((s): s is PostServeStats => s !== null)
      if (known.length === 0) return null
      return {
        sent: sum(known.map((s) => s.sent)),
        failed: sum(known.map((s) => s.failed)),
        dropped: sum(known.map((s) => s.dropped)),
        queued: sum(known.map((s) => s.queued)),
      }
    },
  }
}

/**
 * `/recordings` of a cluster: the merged recording is the primary's (ReplicaSet.recording). A read
 * first has every running replica send what it has queued (its reply comes after those messages),
 * so that it sees every request answered before it, as on a single runtime; a replica that does
 * not answer in time is left out of that read. A reset has every replica forget its queue, then
 * forgets the merged recording; a replica that does not answer fails it, as `DELETE /inspection`.
 */
function clusterRecordings(
  set: ReplicaSet,
  up: () => number[],
  loadHarImporter: LoadHarImporter,
): RecordingAdmin {
  return {
    list: async (keepLatency) => {
      await Promise.all(
        up().map(async (replica) => {
          try {
            await set.call(replica, { op: 'flushRecording' }, READ_TIMEOUT_MS)
          } catch {
            // Read what the primary holds; the replica's queue comes with its next batch.
          }
        }),
      )
      if (set.recording.size === 0) return { count: 0, transactions: [] }
      const transactions = set.recording.transactions(await loadHarImporter(), keepLatency)
      return { count: transactions.length, transactions }
    },
    clear: async () => {
      await Promise.all(
        up().map(async (replica) => {
          try {
            await set.call(replica, { op: 'dropRecording' }, READ_TIMEOUT_MS)
          } catch (err) {
            if (!(err instanceof ReplicaGoneError)) throw err
          }
        }),
      )
      return set.recording.clear()
    },
  }
}

/**
 * Compiles a document in the primary, as the replicas will: to refuse (ERR_DSL_INVALID) what they
 * could not compile before anything changes, and for the matcher's diagnosis of near misses. Its
 * upstream pools are closed at once: this copy never forwards.
 *
 * @example
 * compileHere(set, document).matcher.active.length // 12
 */
export function compileHere(set: ReplicaSet, document: MockServiceDocument): CompiledMock {
  const pools = new Map<string, Dispatcher>()
  try {
    return compileMock(document, {
      proxyTimeout: set.options.proxyTimeout,
      journalBodyBytes: set.options.inspection.maxBodyBytes,
      pools,
      scenarios: set.scenarios,
    })
  } finally {
    closePools(pools.values()).catch(() => {})
  }
}

function sum(values: number[]): number {
  let total = 0
  for (const v of values) total += v
  return total
}

/** The `time` field of a pino line (epoch ms), 0 when absent. */
function timeOf(line: string): number {
  const match = /"time":(\d+)/.exec(line)
  return match === null ? 0 : Number(match[1])
}
