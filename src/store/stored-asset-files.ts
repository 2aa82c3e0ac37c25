import { createHash, randomUUID } from 'node:crypto'
import type { AssetBytes, StoredFile } from './asset-files.js'
import { FILE_ID } from './asset-files.js'
import type { AssetChunkRepository } from './repositories.js'

/** Bytes per row: no statement carries a whole upload, and a read holds a page of them at a time. */
const CHUNK_BYTES = 1 << 20
/** Chunks fetched per query when a file is read. */
const READ_PAGE = 8
/**
 * How old unreferenced chunks must be before they count as a crash's leftovers: another instance
 * may be writing an upload whose asset row is not committed yet, and no upload takes this long.
 */
const ORPHAN_AGE_MS = 60 * 60 * 1000

/**
 * Asset bytes as rows of the store, so that every platform instance on one database reads the
 * files any of them received. The chunks of a file are all written before `put` answers, and the
 * asset row naming the file is committed only after: a crash can leave chunks no row points to
 * (removed by `removeOrphans` once old enough), never a row whose bytes are missing or partial
 * (docs/decisions.md#atomic-writes).
 *
 * @example
 * const files = new StoredAssetFiles(store.assetChunks)
 * const { fileId } = await files.put(bytes)
 */
export class StoredAssetFiles implements AssetBytes {
  readonly #chunks: AssetChunkRepository
  readonly #now: () => number

  constructor(chunks: AssetChunkRepository, now: () => number = Date.now) {
    this.#chunks = chunks
    this.#now = now
  }

  async put(bytes: Uint8Array): Promise<StoredFile> {
    const fileId = randomUUID()
    const created = this.#now()
    try {
      // An empty file still gets its one (empty) chunk: it exists.
      let seq = 0
      for (let at = 0; at === 0 || at < bytes.byteLength; at += CHUNK_BYTES) {
        await this.#chunks.put(fileId, seq++, bytes.subarray(at, at + CHUNK_BYTES), created)
      }
    } catch (err) {
      await this.#chunks.delete(fileId).catch(() => {})
      throw err
    }
    return {
      fileId,
      size: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    }
  }

  async get(fileId: string): Promise<Buffer | undefined> {
    if (!FILE_ID.test(fileId)) return undefined
    const chunks: Buffer[] = []
    for (;;) {
      const page = await this.#chunks.read(fileId, chunks.length, READ_PAGE)
      chunks.push(...page)
      if (page.length < READ_PAGE) break
    }
    if (chunks.length === 0) return undefined
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
  }

  async delete(fileId: string): Promise<void> {
    if (!FILE_ID.test(fileId)) return
    await this.#chunks.delete(fileId)
  }

  async removeOrphans(referenced: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = []
    for (const fileId of await this.#chunks.filesBefore(this.#now() - ORPHAN_AGE_MS)) {
      if (referenced.has(fileId)) continue
      await this.#chunks.delete(fileId)
      removed.push(fileId)
    }
    return removed
  }
}
