import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../log/index.js'
import type { KeptInspectionRepository } from '../store/index.js'

/** A list entry as the runtime gives it, with the platform's id; `previousRun` marks kept ones. */
export type KeptEntry = Record<string, unknown> & { id: number; previousRun: true }

export interface IndexEntry {
  entry: KeptEntry
  /** Byte offset and length of its detail in the details; null when it was not kept. */
  at: [number, number] | null
}

export interface HistoryIndex {
  /** Added to the running process's ids. */
  base: number
  /** Where the details lie (a file name, or the store's row), or null when no detail is kept. */
  details: string | null
  /** Newest first. */
  records: IndexEntry[]
}

export const emptyIndex = (): HistoryIndex => ({ base: 0, details: null, records: [] })

/**
 * Where a history is kept: files of the data dir (one instance, or an agent), or rows of the
 * store every platform instance on it reads.
 */
export interface HistoryStorage {
  /**
   * The index of a mock service and its version; `unchanged` when `known` (the version read
   * last) is still the current one.
   */
  read: (
    mockServiceId: number,
    known: number | undefined,
  ) => Promise<{ index: HistoryIndex; version: number } | 'unchanged'>
  /** The bytes of one detail. */
  detail: (mockServiceId: number, index: HistoryIndex, at: [number, number]) => Promise<Buffer>
  /** Every detail's bytes, one after the other; null when none are kept. */
  details: (mockServiceId: number, index: HistoryIndex) => Promise<Buffer | null>
  /** Replaces the history (the old index given) with the records and details; the new index. */
  write: (
    mockServiceId: number,
    next: { base: number; records: IndexEntry[] },
    details: readonly Buffer[],
    old: HistoryIndex,
  ) => Promise<{ index: HistoryIndex; version: number }>
  forget: (mockServiceId: number, index: HistoryIndex) => Promise<void>
}

/**
 * Under `<data-dir>/inspection-history/`: `<id>.json` (the base and the list entries, each with
 * where its detail lies) and `<id>.<n>.details` (the details, one after the other), written to
 * new names and then renamed, so a crash never leaves half a history. Only this process writes
 * them, so an index it read stays current.
 *
 * @example
 * const storage = new FileHistoryStorage('./data', log)
 */
export class FileHistoryStorage implements HistoryStorage {
  readonly dir: string
  readonly #log: Logger

  constructor(dataDir: string, log: Logger) {
    this.dir = join(dataDir, 'inspection-history')
    this.#log = log
  }

  async read(
    mockServiceId: number,
    known: number | undefined,
  ): Promise<{ index: HistoryIndex; version: number } | 'unchanged'> {
    if (known !== undefined) return 'unchanged'
    try {
      const text = await readFile(this.#indexPath(mockServiceId), 'utf8')
      return { index: JSON.parse(text) as HistoryIndex, version: 0 }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#log.warn({ err, serviceMockId: mockServiceId }, 'unreadable inspection history')
      }
      return { index: emptyIndex(), version: 0 }
    }
  }

  async detail(
    _id: number,
    index: HistoryIndex,
    [offset, length]: [number, number],
  ): Promise<Buffer> {
    const handle = await open(join(this.dir, index.details ?? ''), 'r')
    try {
      const buffer = Buffer.alloc(length)
      await handle.read(buffer, 0, length, offset)
      return buffer
    } finally {
      await handle.close()
    }
  }

  async details(_id: number, index: HistoryIndex): Promise<Buffer | null> {
    return index.details === null ? null : await readFile(join(this.dir, index.details))
  }

  async write(
    mockServiceId: number,
    next: { base: number; records: IndexEntry[] },
    details: readonly Buffer[],
    old: HistoryIndex,
  ): Promise<{ index: HistoryIndex; version: number }> {
    const index: HistoryIndex = {
      ...next,
      details: details.length === 0 ? null : `${mockServiceId}.${randomUUID()}.details`,
    }
    await mkdir(this.dir, { recursive: true })
    if (index.details !== null) await this.#writeAtomically(join(this.dir, index.details), details)
    await this.#writeAtomically(this.#indexPath(mockServiceId), [
      Buffer.from(JSON.stringify(index)),
    ])
    if (old.details !== null) await rm(join(this.dir, old.details), { force: true })
    return { index, version: 0 }
  }

  async forget(mockServiceId: number, index: HistoryIndex): Promise<void> {
    await rm(this.#indexPath(mockServiceId), { force: true })
    if (index.details !== null) await rm(join(this.dir, index.details), { force: true })
  }

  #indexPath(mockServiceId: number): string {
    return join(this.dir, `${mockServiceId}.json`)
  }

  async #writeAtomically(path: string, chunks: readonly Buffer[]): Promise<void> {
    const temporary = `${path}.${randomUUID()}.tmp`
    const handle = await open(temporary, 'wx', 0o600)
    try {
      for (const chunk of chunks) await handle.write(chunk)
      await handle.sync()
    } catch (err) {
      await handle.close()
      await rm(temporary, { force: true })
      throw err
    }
    await handle.close()
    await rename(temporary, path)
  }
}

/** The `details` of an index whose details are the store row's own. */
const IN_ROW = 'row'

/**
 * One row of the store per mock service (its index as JSON, its details as bytes), replaced in
 * one statement, so any platform instance on the store reads the records another kept. The row's
 * version tells an instance whether the index it cached is still current.
 *
 * @example
 * const storage = new StoreHistoryStorage(store.keptInspections)
 */
export class StoreHistoryStorage implements HistoryStorage {
  readonly #rows: KeptInspectionRepository

  constructor(rows: KeptInspectionRepository) {
    this.#rows = rows
  }

  async read(
    mockServiceId: number,
    known: number | undefined,
  ): Promise<{ index: HistoryIndex; version: number } | 'unchanged'> {
    // Version 0 stands for no row.
    if (known !== undefined && ((await this.#rows.version(mockServiceId)) ?? 0) === known) {
      return 'unchanged'
    }
    const row = await this.#rows.entries(mockServiceId)
    if (row === undefined) return { index: emptyIndex(), version: 0 }
    return { index: JSON.parse(row.entries) as HistoryIndex, version: row.version }
  }

  async detail(mockServiceId: number, _index: HistoryIndex, at: [number, number]): Promise<Buffer> {
    const bytes = await this.#rows.details(mockServiceId, { offset: at[0], length: at[1] })
    return bytes ?? Buffer.alloc(0)
  }

  async details(mockServiceId: number, index: HistoryIndex): Promise<Buffer | null> {
    return index.details === null ? null : ((await this.#rows.details(mockServiceId)) ?? null)
  }

  async write(
    mockServiceId: number,
    next: { base: number; records: IndexEntry[] },
    details: readonly Buffer[],
  ): Promise<{ index: HistoryIndex; version: number }> {
    const index: HistoryIndex = { ...next, details: details.length === 0 ? null : IN_ROW }
    await this.#rows.put(
      mockServiceId,
      JSON.stringify(index),
      details.length === 0 ? null : Buffer.concat(details),
    )
    return { index, version: (await this.#rows.version(mockServiceId)) ?? 0 }
  }

  async forget(mockServiceId: number): Promise<void> {
    await this.#rows.delete(mockServiceId)
  }
}

/**
 * Copies the histories kept under a data dir into the store (`understudy admin migrate`): each
 * mock service's records and details as they were, its id base included, so the ids of its next
 * runs continue. A history whose mock service the store lacks is skipped. Answers how many were
 * copied.
 *
 * @example
 * await copyHistoriesToStore('./data', store.keptInspections, log)
 */
export async function copyHistoriesToStore(
  dataDir: string,
  rows: KeptInspectionRepository,
  log: Logger,
): Promise<number> {
  const files = new FileHistoryStorage(dataDir, log)
  const store = new StoreHistoryStorage(rows)
  let names: string[]
  try {
    names = await readdir(files.dir)
  } catch {
    return 0
  }
  let copied = 0
  for (const name of names) {
    const match = /^(\d+)\.json$/.exec(name)
    if (match === null) continue
    const mockServiceId = Number(match[1])
    try {
      const read = await files.read(mockServiceId, undefined)
      if (read === 'unchanged' || read.index.records.length === 0) continue
      const details = await files.details(mockServiceId, read.index)
      const { base, records } = read.index
      await store.write(mockServiceId, { base, records }, details === null ? [] : [details])
      copied++
    } catch (err) {
      log.warn({ err, serviceMockId: mockServiceId }, 'inspection history not copied')
    }
  }
  return copied
}
