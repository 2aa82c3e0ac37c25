import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** What storing a file gave: its id (the file name under assets/), size and digest. */
export interface StoredFile {
  fileId: string
  size: number
  sha256: string
}

/**
 * Where asset bytes live: files under the data dir (AssetFiles, the platform on SQLite) or rows
 * of the store (StoredAssetFiles, the platform on PostgreSQL, read alike by every instance).
 */
export interface AssetBytes {
  put: (bytes: Uint8Array) => Promise<StoredFile>
  /** The bytes of a file, or undefined when it does not exist. */
  get: (fileId: string) => Promise<Buffer | undefined>
  delete: (fileId: string) => Promise<void>
  /** Removes the bytes no asset row points to that a crash left; answers the ids removed. */
  removeOrphans: (referenced: ReadonlySet<string>) => Promise<string[]>
}

/** The ids `put` gives: anything else is no file's. */
export const FILE_ID = /^[0-9a-f-]{36}$/

/**
 * Asset bytes under `<data-dir>/assets/`. A file is written to a temporary name, flushed, then
 * renamed: a crash never leaves half a file under a name the store refers to
 * (docs/decisions.md#atomic-writes).
 *
 * @example
 * const files = new AssetFiles('/var/lib/understudy')
 * const { fileId } = await files.put(bytes)
 */
export class AssetFiles implements AssetBytes {
  readonly dir: string

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'assets')
    mkdirSync(this.dir, { recursive: true })
  }

  async put(bytes: Uint8Array): Promise<StoredFile> {
    const fileId = randomUUID()
    const temporary = join(this.dir, `.${fileId}.tmp`)
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(bytes)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, join(this.dir, fileId))
    return {
      fileId,
      size: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    }
  }

  /** The bytes of a file, or undefined when it does not exist. */
  async get(fileId: string): Promise<Buffer | undefined> {
    if (!FILE_ID.test(fileId)) return undefined
    try {
      return await readFile(join(this.dir, fileId))
    } catch {
      return undefined
    }
  }

  /**
   * Removes what a crash (`kill -9` during an upload) can leave behind: temporary files, and files
   * that no asset row points to (written, but the row's transaction never committed). Run at
   * start, before the API accepts uploads, so that no upload in progress can be mistaken for one.
   * Returns the names removed.
   */
  async removeOrphans(referenced: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = []
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue
      const temporary = entry.name.startsWith('.') && entry.name.endsWith('.tmp')
      const orphan = FILE_ID.test(entry.name) && !referenced.has(entry.name)
      if (!temporary && !orphan) continue
      await rm(join(this.dir, entry.name), { force: true })
      removed.push(entry.name)
    }
    return removed
  }

  async delete(fileId: string): Promise<void> {
    if (!FILE_ID.test(fileId)) return
    await rm(join(this.dir, fileId), { force: true })
  }
}
