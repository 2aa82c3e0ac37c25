import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startPlatform, type PlatformOptions } from '../../../src/cli/platform.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { AssetFiles } from '../../../src/store/index.js'
import { tempDir } from '../../helpers/temp-dir.js'

const options = (dataDir: string, extra: Partial<PlatformOptions> = {}): PlatformOptions => ({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  runtimeHost: '127.0.0.1',
  jsonLimit: 1 << 20,
  uploadLimit: 1 << 20,
  apiKeyId: 'ci-key',
  apiKeySecret: 's3cret',
  ...extra,
})

describe('platform start', () => {
  it('refuses a key id of fewer than 4 characters before touching the data dir', async () => {
    const dataDir = join(tempDir(), 'data')
    await expect(
      startPlatform(options(dataDir, { apiKeyId: 'ci' }), createSilentLogger()),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID' })
    expect(existsSync(dataDir)).toBe(false)
    await expect(
      startPlatform(options(dataDir, { apiKeySecret: '' }), createSilentLogger()),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID' })
    expect(existsSync(dataDir)).toBe(false)
  })

  it(
    'removes temporary asset files and files no asset row points to, and keeps the rest',
    { timeout: 20_000 },
    async () => {
      const dataDir = tempDir()
      const first = await startPlatform(options(dataDir), createSilentLogger())
      const files = new AssetFiles(dataDir)
      const kept = await files.put(Buffer.from('kept'))
      await first.store.write(
        async (tx) =>
          await tx.assets.create({
            workspaceId: first.bootstrap.workspaceId,
            serviceId: null,
            name: 'kept.txt',
            description: null,
            type: 'FILE_IN_ROOT',
            fileId: kept.fileId,
            folderId: null,
            platformVseId: null,
            tags: [],
            primaryMetadata: {},
            secondaryMetadata: {},
            size: kept.size,
            sha256: kept.sha256,
            contentType: 'text/plain',
            by: 'test',
          }),
      )
      const orphan = await files.put(Buffer.from('written, but its row never committed'))
      await first.close()
      // What `kill -9` during an upload leaves: a temporary file and an unreferenced file.
      writeFileSync(join(files.dir, `.${orphan.fileId.replace(/.$/, '0')}.tmp`), 'partial')
      writeFileSync(join(files.dir, 'README-not-an-asset'), 'left alone')

      const second = await startPlatform(options(dataDir), createSilentLogger())
      try {
        expect(readdirSync(files.dir).sort()).toEqual([kept.fileId, 'README-not-an-asset'].sort())
        expect((await files.get(kept.fileId))?.toString()).toBe('kept')
      } finally {
        await second.close()
      }
    },
  )
})
