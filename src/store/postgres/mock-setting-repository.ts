import { mockSettingUpdatable, mockSettingTable } from '../tables/mock-settings.js'
import type { MockSettingRepository } from '../repositories.js'
import type { MockSetting } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { insertAudited } from './insert-audited.js'
import { pgAuditSortKeys, pgListPage } from './list.js'
import { all, one, returned } from './sql.js'

const settings = definePgTable(mockSettingTable)

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
    const row = await one(
      ctx.db,
      `SELECT ${settings.columns} FROM mock_settings WHERE id = @id AND workspace_id = @workspaceId AND kind = @kind`,
      { id, workspaceId, kind },
    )
    return row === undefined ? undefined : settings.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      return await insertAudited(ctx, settings, input)
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
        where: 'workspace_id = @workspaceId AND kind = @kind',
        params: { workspaceId, kind },
        sortable: pgAuditSortKeys,
        query,
        decode: settings.decode,
      })
    },
    async update(workspaceId, kind, id, patch) {
      ctx.check()
      const current = await get(workspaceId, kind, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, mockSettingUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return settings.decode(returned(await one(ctx.db, settings.updateSql, settings.encode(next))))
    },
    async setConfiguration(mockServiceId, configurationId) {
      ctx.check()
      if (configurationId === null) {
        await all(
          ctx.db,
          'DELETE FROM mock_service_configurations WHERE mock_service_id = @mockServiceId',
          {
            mockServiceId,
          },
        )
      } else {
        await all(
          ctx.db,
          'INSERT INTO mock_service_configurations (mock_service_id, configuration_id) VALUES (@mockServiceId, @configurationId) ON CONFLICT (mock_service_id) DO UPDATE SET configuration_id = excluded.configuration_id',
          { mockServiceId, configurationId },
        )
      }
    },
    async configurationOf(mockServiceId) {
      ctx.check()
      const row = await one(
        ctx.db,
        'SELECT configuration_id FROM mock_service_configurations WHERE mock_service_id = @mockServiceId',
        { mockServiceId },
      )
      return row === undefined ? null : (row['configuration_id'] as number)
    },
  }
}
