import type { AssetChunkRepository } from '../repositories.js'
import { bytesOf } from './bytes.js'
import type { SqlRunner } from './runner.js'

/**
 * Asset bytes as rows of `asset_chunks` (migration 022 / PostgreSQL 10), one per chunk.
 *
 * @example
 * await assetChunkRepository(run).put(fileId, 0, bytes, Date.now())
 */
export function assetChunkRepository(run: SqlRunner): AssetChunkRepository {
  return {
    async put(fileId, seq, bytes, created) {
      await run(
        'INSERT INTO asset_chunks (file_id, seq, bytes, created) VALUES (@fileId, @seq, @bytes, @created)',
        { fileId, seq, bytes, created },
      )
    },
    async read(fileId, from, limit) {
      const rows = await run(
        'SELECT bytes FROM asset_chunks WHERE file_id = @fileId AND seq >= @from ORDER BY seq LIMIT @limit',
        { fileId, from, limit },
      )
      return rows.map((row) => bytesOf(row['bytes']))
    },
    async delete(fileId) {
      await run('DELETE FROM asset_chunks WHERE file_id = @fileId', { fileId })
    },
    async filesBefore(before) {
      const rows = await run(
        'SELECT DISTINCT file_id FROM asset_chunks WHERE created < @before ORDER BY file_id',
        { before },
      )
      return rows.map((row) => String(row['file_id']))
    },
  }
}
