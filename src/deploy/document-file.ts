import { randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { MockServiceDocument } from '../dsl/index.js'

/**
 * The mock-service documents the deployer hands to `understudy run`, one per mock service at
 * `<data-dir>/mocks/<mockServiceId>.json`. Each is written to a temporary name, flushed, then
 * renamed over the old one: a runtime (re)starting never reads half a document, and the platform
 * can restart what was running from these files after it restarts.
 *
 * @example
 * const files = new DocumentFiles('/var/lib/understudy')
 * const path = await files.write(7, document)
 */
export class DocumentFiles {
  readonly dir: string

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'mocks')
  }

  pathOf(mockServiceId: number): string {
    return join(this.dir, `${mockServiceId}.json`)
  }

  /** Writes the document atomically; resolves to its path. */
  async write(mockServiceId: number, document: MockServiceDocument): Promise<string> {
    await mkdir(this.dir, { recursive: true })
    const path = this.pathOf(mockServiceId)
    const temporary = join(this.dir, `.${mockServiceId}.${randomUUID()}.tmp`)
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(JSON.stringify(document))
      await handle.sync()
    } catch (err) {
      await handle.close()
      await rm(temporary, { force: true })
      throw err
    }
    await handle.close()
    await rename(temporary, path)
    return path
  }

  /** The document last written for a mock service, or undefined when there is none. */
  async read(mockServiceId: number): Promise<MockServiceDocument | undefined> {
    let text: string
    try {
      text = await readFile(this.pathOf(mockServiceId), 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw err
    }
    return JSON.parse(text) as MockServiceDocument
  }

  async remove(mockServiceId: number): Promise<void> {
    await rm(this.pathOf(mockServiceId), { force: true })
  }
}
