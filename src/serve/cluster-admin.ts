import type { Dispatcher } from 'undici'
import type { MockServiceDocument } from '../dsl/index.js'
import type { InspectionDetail, InspectionListEntry } from '../inspect/index.js'
import type { LogRing } from '../log/index.js'
import type { AdminTarget, InspectionPage, ReconfigureResult, RuntimeHealth } from './admin-target.js'
import { ReplicaGoneError, type ReplicaSet, type ReplicaState } from './cluster-primary.js'
import { compileMock } from './compile-mock.js'
import { closePools } from './proxy.js'

/** A replica in the primary's `GET /health`. */
export interface ReplicaHealth {
  replica: number
  status: ReplicaState
  pid: number | null
  restarts: number
  /** Transactions of the configuration it serves. */
  transactions: number | null
  inFlight: number
  inspection: { records: number; bytes: number } | null
  uptimeSeconds: number | null
}

/** `GET /health` of a cluster primary: the sums, and each replica. */
export interface ClusterHealth extends RuntimeHealth {
  replicas: number
  workers: ReplicaHealth[]
}

/** How long the primary waits for a replica's answer to a read (health, inspection, log). */
const READ_TIMEOUT_MS = 3_000
/** How long it waits for every replica to compile and swap a configuration. */
const RECONFIGURE_TIMEOUT_MS = 60_000

/**
 * The admin API of a cluster primary, over its replicas: `/health` sums them and lists each,
 * `PUT /config` compiles once here (a 400 changes nothing anywhere) and answers after every
 * replica swapped, `/inspection` merges the replicas newest first, `/inspection/{id}` asks the
 * replica the id belongs to (replica k of N numbers k, k + N...), `/log` gathers every replica's
 * lines (each carries its `replica`) with the primary's own.
 *
 * @example
 * await startAdmin({ target: clusterAdminTarget(set, logRing), host: '127.0.0.1', port: 0, log })
 */
export function clusterAdminTarget (set: ReplicaSet, logRing: LogRing | null): AdminTarget {
  const up = (): number[] => set.views().filter((v) => v.state === 'UP').map((v) => v.replica)
  return {
    health: async (): Promise<ClusterHealth> => {
      const workers = await Promise.all(set.views().map(async (view): Promise<ReplicaHealth> => {
        const health: ReplicaHealth = {
          replica: view.replica,
          status: view.state,
          pid: view.pid,
          restarts: view.restarts,
          transactions: null,
          inFlight: 0,
          inspection: null,
          uptimeSeconds: null,
        }
        if (view.state !== 'UP') return health
        try {
          const answer = await set.call(view.replica, { op: 'health' }, READ_TIMEOUT_MS) as RuntimeHealth
          return { ...health, transactions: answer.transactions, inFlight: answer.inFlight, inspection: answer.inspection, uptimeSeconds: answer.uptimeSeconds }
        } catch {
          return { ...health, status: 'DOWN' }
        }
      }))
      const serving = workers.filter((w) => w.status === 'UP')
      const inspection = set.options.inspection.enabled
        ? { records: sum(serving.map((w) => w.inspection?.records ?? 0)), bytes: sum(serving.map((w) => w.inspection?.bytes ?? 0)) }
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
        replicas: set.replicas,
        workers,
      }
    },
    config: () => set.document,
    reconfigure: async (document: MockServiceDocument): Promise<ReconfigureResult> => {
      // Compiled here once, only to reject what the replicas could not compile: nothing changes then.
      const pools = new Map<string, Dispatcher>()
      let transactions: number
      try {
        const options = set.options
        transactions = compileMock(document, { proxyTimeout: options.proxyTimeout, journalBodyBytes: options.inspection.maxBodyBytes, pools }).matcher.active.length
      } finally {
        await closePools(pools.values())
      }
      set.document = document
      await Promise.all(set.views().map(async (view) => {
        try {
          await set.call(view.replica, { op: 'reconfigure', document }, RECONFIGURE_TIMEOUT_MS)
        } catch (err) {
          // A replica that is not running starts on the new document.
          if (!(err instanceof ReplicaGoneError)) throw err
        }
      }))
      return { transactions, serviceMockId: document.id ?? 0 }
    },
    inspection: async (skip, limit): Promise<InspectionPage> => {
      const pages = await Promise.all(up().map(async (replica) => {
        try {
          return await set.call(replica, { op: 'inspection', skip: 0, limit: skip + limit }, READ_TIMEOUT_MS) as InspectionPage
        } catch {
          return { entries: [], total: 0 }
        }
      }))
      const merged: InspectionListEntry[] = pages.flatMap((p) => p.entries)
      merged.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
      return { entries: merged.slice(skip, skip + limit), total: sum(pages.map((p) => p.total)) }
    },
    inspectionDetail: async (id): Promise<InspectionDetail | undefined> => {
      if (id < 1) return undefined
      const replica = ((id - 1) % set.replicas) + 1
      try {
        return (await set.call(replica, { op: 'detail', id }, READ_TIMEOUT_MS) as InspectionDetail | null) ?? undefined
      } catch (err) {
        if (err instanceof ReplicaGoneError) return undefined
        throw err
      }
    },
    log: async (limit) => {
      const parts = await Promise.all(up().map(async (replica) => {
        try {
          return await set.call(replica, { op: 'log', limit }, READ_TIMEOUT_MS) as string[]
        } catch {
          return []
        }
      }))
      parts.push(logRing?.snapshot(limit) ?? [])
      // Oldest first, by pino's `time`; lines of one source keep their order (the sort is stable).
      const lines = parts.flat().map((line) => ({ line, time: timeOf(line) }))
      lines.sort((a, b) => a.time - b.time)
      return lines.slice(Math.max(0, lines.length - limit)).map((l) => l.line)
    },
  }
}

function sum (values: number[]): number {
  let total = 0
  for (const v of values) total += v
  return total
}

/** The `time` field of a pino line (epoch ms), 0 when absent. */
function timeOf (line: string): number {
  const match = /"time":(\d+)/.exec(line)
  return match === null ? 0 : Number(match[1])
}
