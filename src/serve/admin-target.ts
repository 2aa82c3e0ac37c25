import type { MockServiceDocument, TransactionInput } from '../dsl/index.js'
import { createError } from '../errors/index.js'
import {
  inspectionSearch,
  toDetail,
  toListEntry,
  type InspectionDetail,
  type InspectionFilter,
  type InspectionListEntry,
  type UnmatchedEntry,
  type Verification,
  type VerificationResult,
} from '../inspect/index.js'
import type { LogRing } from '../log/index.js'
import { regexInputStats } from '../match/index.js'
import type { Runtime } from './runtime.js'
import type { ScenarioView } from './scenario/store.js'
import type { PostServeStats } from './post-serve.js'

/** `GET /health` of one runtime (one replica). */
export interface RuntimeHealth {
  status: 'UP' | 'DEGRADED' | 'DOWN'
  serviceMockId: number
  /** Transactions of the configuration being served. */
  transactions: number
  inFlight: number
  uptimeSeconds: number
  inspection: { records: number; bytes: number } | null
  urls: Runtime['urls']
  /** The process answering (the primary's, in a cluster). */
  pid: number
  /** Values a regex matcher refused to read for being longer than 64 KiB (docs/regex.md). */
  oversizeRegexInputs?: number
}

/** A page of inspection list entries, newest first, and how many records are held. */
export interface InspectionPage {
  entries: InspectionListEntry[]
  total: number
}

/** What `PUT /config` answers. */
export interface ReconfigureResult {
  transactions: number
  serviceMockId: number
}

/**
 * What the admin routes read and change. One local runtime implements it (`localAdminTarget`),
 * and so does a cluster primary, by asking its replicas over IPC: the routes, envelopes and
 * errors of admin.ts are the same for both.
 */
export interface AdminTarget {
  health: () => Promise<RuntimeHealth>
  /** The document being served (read again from its text, in time slices, when it must be). */
  config: () => Promise<MockServiceDocument>
  /** The served configuration's mock-service id (without reading its document). */
  serviceMockId: () => number
  /**
   * Compiles a validated document and swaps it in. Throws ERR_DSL_INVALID, changing nothing,
   * when it cannot be compiled.
   */
  reconfigure: (document: MockServiceDocument) => Promise<ReconfigureResult>
  inspection: (skip: number, limit: number) => Promise<InspectionPage>
  /** One record's detail; undefined when unknown or evicted. */
  inspectionDetail: (id: number) => Promise<InspectionDetail | undefined>
  /** The newest `limit` log lines, oldest first. */
  log: (limit: number) => Promise<string[]>
  /** Filtered queries, counts, verification and reset (a cluster primary asks every replica). */
  search: AdminSearch
  /** Scenario states (absent where the target cannot reach them). */
  scenarios?: ScenarioAdmin
  /**
   * The recording of `noMatchingRequestPreference: record` (a cluster primary's merges
   * its replicas'); absent where nothing can convert it (no HAR importer given).
   */
  recordings?: RecordingAdmin
}

/** `GET /recordings`: one transaction per distinct request recorded. */
export interface RecordingsView {
  count: number
  transactions: TransactionInput[]
}

/** The recording as the admin API reads and clears it. */
export interface RecordingAdmin {
  list: (keepLatency: boolean) => Promise<RecordingsView>
  /** Forgets the recording; how many requests it held. */
  clear: () => Promise<number>
}

/** The verification queries as the admin API runs them: those of src/inspect, asynchronous. */
export interface AdminSearch {
  list: (filter: InspectionFilter, skip: number, limit: number) => Promise<InspectionPage>
  count: (filter: InspectionFilter) => Promise<number>
  unmatched: (
    filter: InspectionFilter,
    limit: number,
  ) => Promise<{ entries: UnmatchedEntry[]; total: number }>
  verify: (verification: Verification) => Promise<VerificationResult>
  /** Forgets every record; how many were forgotten. */
  clear: () => Promise<number>
}

/** Scenario states as the admin API reads and changes them. */
export interface ScenarioAdmin {
  list: () => Promise<ScenarioView[]>
  /** Puts one scenario instance (null: the default one) in a state. */
  set: (name: string, instance: string | null, state: string) => Promise<void>
  /** Back to `Started`: all, one scenario, or one instance; how many instances were reset. */
  reset: (name?: string, instance?: string) => Promise<number>
  /** Webhook counters. */
  postServe: () => Promise<PostServeStats | null>
}

/**
 * The admin target of one runtime in this process.
 *
 * @example
 * const target = localAdminTarget(runtime, logRing)
 * (await target.health()).inFlight // 0
 */
export function localAdminTarget(
  runtime: Runtime,
  logRing: LogRing | null,
  started = Date.now(),
): AdminTarget {
  return {
    health: async () => {
      const mock = runtime.current()
      return {
        status: 'UP',
        serviceMockId: mock.serviceMockId,
        transactions: mock.matcher.active.length,
        inFlight: runtime.inFlight(),
        uptimeSeconds: Math.round((Date.now() - started) / 1000),
        inspection:
          runtime.ring === null
            ? null
            : { records: runtime.ring.length, bytes: runtime.ring.heldBytes },
        urls: runtime.urls,
        pid: process.pid,
        oversizeRegexInputs: regexInputStats.oversize,
      }
    },
    config: async () => await runtime.current().readDocument(),
    serviceMockId: () => runtime.current().serviceMockId,
    reconfigure: async (document) => {
      const compiled = await runtime.reloadSliced(document)
      return { transactions: compiled.matcher.active.length, serviceMockId: compiled.serviceMockId }
    },
    inspection: async (skip, limit) => {
      const ring = runtime.ring
      const id = runtime.current().serviceMockId
      const records = ring === null ? [] : ring.newest(skip, limit)
      return { entries: records.map((r) => toListEntry(r, id)), total: ring?.length ?? 0 }
    },
    inspectionDetail: async (id) => {
      const record = runtime.ring?.get(id)
      return record === undefined ? undefined : toDetail(record, runtime.current().serviceMockId)
    },
    log: async (limit) => logRing?.snapshot(limit) ?? [],
    search: localSearch(runtime),
    scenarios: {
      list: async () => runtime.current().scenarios.list(),
      set: async (name, instance, state) =>
        runtime.current().scenarios.set(name, instance, state, null),
      reset: async (name, instance) => runtime.current().scenarios.reset(name, instance),
      postServe: async () => runtime.current().postServe?.stats ?? null,
    },
    recordings: {
      list: async (keepLatency) => {
        const { requests, loadHarImporter } = recordingOf(runtime)
        requests.merge()
        if (requests.size === 0) return { count: 0, transactions: [] }
        const transactions = requests.transactions(await loadHarImporter(), keepLatency)
        return { count: transactions.length, transactions }
      },
      clear: async () => recordingOf(runtime).requests.clear(),
    },
  }
}

/** The verification queries over one runtime's journal. */
function localSearch(runtime: Runtime): AdminSearch {
  const search = inspectionSearch(
    () => runtime.ring,
    () => runtime.current().serviceMockId,
  )
  return {
    list: async (filter, skip, limit) => search.list(filter, skip, limit),
    count: async (filter) => search.count(filter),
    unmatched: async (filter, limit) => search.unmatched(filter, limit),
    verify: async (verification) => search.verify(verification),
    clear: async () => search.clear(),
  }
}

function recordingOf(runtime: Runtime): NonNullable<Runtime['recording']> {
  if (runtime.recording === null) {
    throw createError('ERR_API_UNPROCESSABLE', [
      'recordings are not reachable on this runtime (started without the importers, as a replica is)',
    ])
  }
  return runtime.recording
}
