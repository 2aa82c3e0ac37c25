import type { AgentLogRepository } from '../repositories.js'
import type { SqlRunner } from './runner.js'

/**
 * The lines agents report for the mock services they run, one row per mock service (a JSON array:
 * escaped, so a line may hold any character), replaced by each report. A mock service deleted
 * meanwhile keeps none (the row would outlive it).
 *
 * @example
 * await agentLogRepository(run).put(7, ['{"msg":"listening"}'])
 */
export function agentLogRepository(run: SqlRunner, now: () => number): AgentLogRepository {
  return {
    async put(mockServiceId, lines) {
      await run(
        'INSERT INTO agent_logs (mock_service_id, lines, updated) ' +
          'SELECT @mockServiceId, @lines, CAST(@updated AS BIGINT) WHERE EXISTS (SELECT 1 FROM mock_services WHERE id = @mockServiceId) ' +
          'ON CONFLICT (mock_service_id) DO UPDATE SET lines = excluded.lines, updated = excluded.updated',
        { mockServiceId, lines: JSON.stringify(lines), updated: now() },
      )
    },
    async get(mockServiceId) {
      const [row] = await run(
        'SELECT lines FROM agent_logs WHERE mock_service_id = @mockServiceId',
        {
          mockServiceId,
        },
      )
      if (row === undefined) return undefined
      const lines: unknown = JSON.parse(String(row['lines']))
      return Array.isArray(lines) ? lines.map(String) : []
    },
    async delete(mockServiceId) {
      await run('DELETE FROM agent_logs WHERE mock_service_id = @mockServiceId', { mockServiceId })
    },
  }
}
