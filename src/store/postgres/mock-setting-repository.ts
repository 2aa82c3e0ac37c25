import type { MockSettingRepository } from '../repositories.js'
import type { MockSetting } from '../types.js'
import { mergePatch } from '../sqlite/codec.js'
import type { PgRepoContext } from './context.js'
import {
  definePgTable,
  firstRow,
  insertAuditedRow,
  pgAuditSortKeys,
  pgListPage,
  returnedRow,
} from './record-table.js'

const settings = definePgTable<MockSetting>(
  'mock_settings',
  'id',
  {
    id: 'value',
    workspaceId: 'value',
    kind: 'value',
    name: 'value',
    description: 'value',
    body: 'json',
    created: 'value',
    updated: 'value',
    createdBy: 'value',
    updatedBy: 'value',
  },
  true,
)

/**
 * Mock service templates and configurations, and which configuration a mock service uses.
 *
 * @example
 * await pgMockSettingRepository(ctx).create({ workspaceId: 1, kind: 'configuration', name: 'qa', description: null, body: { configurationMap: {} }, by })
 */
export function pgMockSettingRepository(ctx: PgRepoContext): MockSettingRepository {
  const get = async (
    workspaceId: number,
    kind: string,
    id: number,
  ): Promise<MockSetting | undefined> => {
    const row = await firstRow(
      ctx.db,
      `SELECT ${settings.columns} FROM mock_settings WHERE id = $1 AND workspace_id = $2 AND kind = $3`,
      [id, workspaceId, kind],
    )
    return row === undefined ? undefined : settings.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      return await insertAuditedRow(ctx, settings, input)
    },
    async get(workspaceId, kind, id) {
      ctx.check()
      return await get(workspaceId, kind, id)
    },
    async list(workspaceId, kind, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: settings.columns,
        from: 'mock_settings',
        where: 'workspace_id = $1 AND kind = $2',
        params: [workspaceId, kind],
        sortable: pgAuditSortKeys,
        query,
        decode: settings.decode,
      })
    },
    async update(workspaceId, kind, id, patch) {
      ctx.check()
      const current = await get(workspaceId, kind, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, ['name', 'description', 'body'])
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return settings.decode(
        await returnedRow(ctx.db, settings.updateSql, settings.updateValues(next)),
      )
    },
    async setConfiguration(mockServiceId, configurationId) {
      ctx.check()
      if (configurationId === null) {
        await ctx.db.query('DELETE FROM mock_service_configurations WHERE mock_service_id = $1', [
          mockServiceId,
        ])
      } else {
        await ctx.db.query(
          'INSERT INTO mock_service_configurations (mock_service_id, configuration_id) VALUES ($1, $2) ON CONFLICT (mock_service_id) DO UPDATE SET configuration_id = excluded.configuration_id',
          [mockServiceId, configurationId],
        )
      }
    },
    async configurationOf(mockServiceId) {
      ctx.check()
      const row = await firstRow(
        ctx.db,
        'SELECT configuration_id FROM mock_service_configurations WHERE mock_service_id = $1',
        [mockServiceId],
      )
      return row === undefined ? null : (row['configuration_id'] as number)
    },
  }
}
