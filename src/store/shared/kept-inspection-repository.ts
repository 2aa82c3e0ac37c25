import type { KeptInspectionRepository } from '../repositories.js'
import { bytesOf } from './bytes.js'
import { num, type SqlRunner } from './runner.js'

/**
 * The inspection records kept from stopped runtimes as one row per mock service of
 * `kept_inspections` (migration 022 / PostgreSQL 10): replaced whole, so a reader sees the old
 * records or the new, never a mix.
 *
 * @example
 * await keptInspectionRepository(run).put(7, '{"base":0,"records":[]}', null)
 */
export function keptInspectionRepository(run: SqlRunner): KeptInspectionRepository {
  return {
    async version(mockServiceId) {
      const [row] = await run(
        'SELECT version FROM kept_inspections WHERE mock_service_id = @mockServiceId',
        { mockServiceId },
      )
      return row === undefined ? undefined : num(row['version'])
    },
    async entries(mockServiceId) {
      const [row] = await run(
        'SELECT entries, version FROM kept_inspections WHERE mock_service_id = @mockServiceId',
        { mockServiceId },
      )
      if (row === undefined) return undefined
      return { entries: String(row['entries']), version: num(row['version']) }
    },
    async details(mockServiceId, range) {
      const [row] =
        range === undefined
          ? await run(
              'SELECT details FROM kept_inspections WHERE mock_service_id = @mockServiceId',
              { mockServiceId },
            )
          : await run(
              'SELECT substr(details, CAST(@start AS INTEGER), CAST(@length AS INTEGER)) AS details ' +
                'FROM kept_inspections WHERE mock_service_id = @mockServiceId',
              { mockServiceId, start: range.offset + 1, length: range.length },
            )
      if (row === undefined || row['details'] === null) return undefined
      return bytesOf(row['details'])
    },
    async put(mockServiceId, entries, details) {
      await run(
        'INSERT INTO kept_inspections (mock_service_id, entries, details, version) ' +
          'VALUES (@mockServiceId, @entries, @details, 1) ' +
          'ON CONFLICT (mock_service_id) DO UPDATE SET entries = excluded.entries, ' +
          'details = excluded.details, version = kept_inspections.version + 1',
        { mockServiceId, entries, details },
      )
    },
    async delete(mockServiceId) {
      await run('DELETE FROM kept_inspections WHERE mock_service_id = @mockServiceId', {
        mockServiceId,
      })
    },
  }
}
