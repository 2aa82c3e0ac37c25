import type { Logger } from '../log/index.js'
import type { KeptInspectionRepository } from '../store/index.js'
import { adminRequest, type RuntimeAdmin } from './admin-client.js'
import {
  emptyIndex,
  FileHistoryStorage,
  StoreHistoryStorage,
  type HistoryIndex,
  type HistoryStorage,
  type IndexEntry,
  type KeptEntry,
} from './history-storage.js'

/**
 * What a mock service's runtime recorded before it stopped, kept by the platform so that the live
 * view and the analytics API still list those requests after a stop and a redeploy (the runtime's
 * inspection ring starts empty with every process). At each intentional end of a runtime (stop,
 * redeploy, the platform stopping) the deployer reads the ring through the admin API and keeps
 * it, newest first, in front of what earlier runs left, bounded like a ring: at most
 * `maxRecords` records and `maxBytes` bytes of details.
 *
 * Ids: the runtime numbers its records from 1 in every process, so each kept run moves the
 * mock service's `base` past its highest id. A record of the running process is known to the
 * platform as `base + its runtime id`; kept records keep the id they had. Ids therefore keep
 * growing across runs, and a live feed reading the list sees the new run continue the old one.
 *
 * Kept in files under the data dir, or, given the store's `keptInspections`, in the store, where
 * every platform instance on it reads what any of them kept (history-storage.ts).
 */

interface InspectionHistoryOptions {
  dataDir: string
  log: Logger
  /** Keeps the history in the store instead of the data dir. */
  store?: KeptInspectionRepository | undefined
  /** Records kept per mock service: default 10,000, the runtime ring's default size. */
  maxRecords?: number
  /** Bytes of details kept per mock service: default 64 MiB, the runtime ring's default. */
  maxBytes?: number
  /** How long reading a ring may take before the rest is kept without details; default 10 s. */
  readBudgetMs?: number
}

const PAGE = 1000
const DETAIL_CONCURRENCY = 8
const CALL_TIMEOUT_MS = 5000
/** Mock services whose index stays in memory (the most recently used). */
const CACHED = 16

/**
 * @example
 * const history = new InspectionHistory({ dataDir: './data', log })
 * await history.keep(7, admin)          // before the runtime of mock service 7 stops
 * (await history.of(7)).entries          // its requests, newest first, each `previousRun: true`
 */
export class InspectionHistory {
  readonly #storage: HistoryStorage
  readonly #log: Logger
  readonly #maxRecords: number
  readonly #maxBytes: number
  readonly #readBudgetMs: number
  readonly #cache = new Map<number, { index: HistoryIndex; version: number }>()
  /** The entries of an index, made once: the live view's poller asks every half second. */
  readonly #entries = new WeakMap<HistoryIndex, readonly KeptEntry[]>()

  constructor(options: InspectionHistoryOptions) {
    this.#storage =
      options.store === undefined
        ? new FileHistoryStorage(options.dataDir, options.log)
        : new StoreHistoryStorage(options.store)
    this.#log = options.log
    this.#maxRecords = options.maxRecords ?? 10_000
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024
    this.#readBudgetMs = options.readBudgetMs ?? 10_000
  }

  /** The base of the running process's ids and the kept entries, newest first. */
  async of(mockServiceId: number): Promise<{ base: number; entries: readonly KeptEntry[] }> {
    const index = await this.#index(mockServiceId)
    let entries = this.#entries.get(index)
    if (entries === undefined) {
      entries = index.records.map((r) => r.entry)
      this.#entries.set(index, entries)
    }
    return { base: index.base, entries }
  }

  /** The kept detail of a record (by the platform's id), or undefined. */
  async detail(mockServiceId: number, id: number): Promise<Record<string, unknown> | undefined> {
    const index = await this.#index(mockServiceId)
    const record = index.records.find((r) => r.entry.id === id)
    if (record?.at == null || index.details === null) return undefined
    const bytes = await this.#storage.detail(mockServiceId, index, record.at)
    return { ...(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>), previousRun: true }
  }

  /**
   * Reads the runtime's ring and keeps it before what earlier runs left. Never throws: a runtime
   * that does not answer leaves the history as it was (logged), and the stop goes on.
   */
  async keep(mockServiceId: number, admin: RuntimeAdmin): Promise<void> {
    try {
      await this.#keep(mockServiceId, admin)
    } catch (err) {
      this.#log.warn({ err, serviceMockId: mockServiceId }, 'could not keep the inspection history')
    }
  }

  /** Forgets a mock service's history (it was deleted). */
  async forget(mockServiceId: number): Promise<void> {
    const index = await this.#index(mockServiceId).catch(() => emptyIndex())
    this.#cache.delete(mockServiceId)
    await this.#storage.forget(mockServiceId, index)
  }

  async #keep(mockServiceId: number, admin: RuntimeAdmin): Promise<void> {
    const deadline = Date.now() + this.#readBudgetMs
    const listed = await this.#readList(admin, deadline)
    if (listed.length === 0) return
    const details = await this.#readDetails(admin, listed, deadline)
    const old = await this.#index(mockServiceId)
    const base = old.base
    const highest = listed.reduce((max, e) => Math.max(max, Number(e['id'])), 0)
    const fresh = listed.map((e, i) => ({
      entry: { ...e, id: base + Number(e['id']), previousRun: true as const },
      detail: details[i],
    }))
    // Newest first: this run's records, then what earlier runs left, up to the ring's bounds.
    const chunks: Buffer[] = []
    const records: IndexEntry[] = []
    let bytes = 0
    const add = (entry: KeptEntry, detail: Buffer | undefined): boolean => {
      if (records.length >= this.#maxRecords) return false
      if (detail !== undefined && bytes + detail.length > this.#maxBytes) return false
      records.push({ entry, at: detail === undefined ? null : [bytes, detail.length] })
      if (detail !== undefined) {
        chunks.push(detail)
        bytes += detail.length
      }
      return true
    }
    let full = false
    for (const { entry, detail } of fresh) {
      const text = detail === undefined ? undefined : Buffer.from(JSON.stringify(detail))
      if (!add(entry, text)) {
        full = true
        break
      }
    }
    if (!full) {
      // Bounded by maxBytes: read at once rather than one range per record.
      const kept = await this.#storage.details(mockServiceId, old)
      for (const { entry, at } of old.records) {
        const detail =
          kept === null || at === null ? undefined : kept.subarray(at[0], at[0] + at[1])
        if (!add(entry, detail)) break
      }
    }
    const written = await this.#storage.write(
      mockServiceId,
      { base: base + highest, records },
      chunks,
      old,
    )
    this.#remember(mockServiceId, written)
    this.#log.info(
      { serviceMockId: mockServiceId, records: records.length, detailBytes: bytes },
      'inspection history kept',
    )
  }

  /** The ring's list entries, newest first, at most maxRecords. */
  async #readList(admin: RuntimeAdmin, deadline: number): Promise<Array<Record<string, unknown>>> {
    const out: Array<Record<string, unknown>> = []
    while (out.length < this.#maxRecords && Date.now() < deadline) {
      const answer = await adminRequest(admin, `/inspection?skip=${out.length}&limit=${PAGE}`, {
        method: 'GET',
        timeoutMs: CALL_TIMEOUT_MS,
        unavailable: 'ERR_API_UNAVAILABLE',
      })
      const page = (answer.result ?? []) as Array<Record<string, unknown>>
      out.push(...page)
      const total = typeof answer['total'] === 'number' ? answer['total'] : out.length
      if (page.length < PAGE || out.length >= total) break
    }
    return out.slice(0, this.#maxRecords)
  }

  /**
   * The details of the listed records, newest first, a few at a time, until the bytes bound or
   * the time budget is reached; later ones stay undefined (their entries are kept without).
   */
  async #readDetails(
    admin: RuntimeAdmin,
    listed: ReadonlyArray<Record<string, unknown>>,
    deadline: number,
  ): Promise<Array<Record<string, unknown> | undefined>> {
    const details: Array<Record<string, unknown> | undefined> = new Array(listed.length)
    let next = 0
    let bytes = 0
    const worker = async (): Promise<void> => {
      while (next < listed.length && bytes < this.#maxBytes && Date.now() < deadline) {
        const i = next++
        try {
          const answer = await adminRequest(admin, `/inspection/${Number(listed[i]?.['id'])}`, {
            method: 'GET',
            timeoutMs: CALL_TIMEOUT_MS,
            unavailable: 'ERR_API_UNAVAILABLE',
          })
          const detail = answer.result as Record<string, unknown>
          bytes += JSON.stringify(detail).length
          details[i] = detail
        } catch {
          // Evicted meanwhile, or the runtime stopped answering: its entry is kept without detail.
        }
      }
    }
    await Promise.all(Array.from({ length: DETAIL_CONCURRENCY }, worker))
    return details.map((d) =>
      d === undefined ? undefined : { ...d, id: undefined, serviceMockId: undefined },
    )
  }

  async #index(mockServiceId: number): Promise<HistoryIndex> {
    const cached = this.#cache.get(mockServiceId)
    let read: Awaited<ReturnType<HistoryStorage['read']>>
    try {
      read = await this.#storage.read(mockServiceId, cached?.version)
    } catch (err) {
      this.#log.warn({ err, serviceMockId: mockServiceId }, 'unreadable inspection history')
      read = { index: emptyIndex(), version: -1 }
    }
    const current = read === 'unchanged' && cached !== undefined ? cached : read
    if (current === 'unchanged') return emptyIndex()
    this.#remember(mockServiceId, current)
    return current.index
  }

  #remember(mockServiceId: number, current: { index: HistoryIndex; version: number }): void {
    this.#cache.delete(mockServiceId)
    this.#cache.set(mockServiceId, current)
    if (this.#cache.size > CACHED) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
  }
}
