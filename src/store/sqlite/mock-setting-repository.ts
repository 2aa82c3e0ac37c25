import { mockSettingUpdatable, mockSettingTable } from '../tables/mock-settings.js'
import type { MockSettingRepository } from '../repositories.js'
import type { MockSetting } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import { defineTable } from './codec.js'
import {
  auditSortKeys,
  insertAudited,
  listPage,
  returnedRow,
  rowOf,
  type RepoContext,
} from './context.js'

const settings = defineTable(mockSettingTable)

/**
 * Mock service templates and configurations (migration 4).
 *
 * @example
 * await mockSettingRepository(ctx).create({ workspaceId: 1, kind: 'configuration', name: 'qa', description: null, body: { configurationMap: {} }, by })
 */
export function mockSettingRepository(ctx: RepoContext): MockSettingRepository {
  const { conn } = ctx
  const get = (workspaceId: number, kind: string, id: number): MockSetting | undefined => {
    const row = rowOf(
      conn
        .statement(
          `SELECT ${settings.columns} FROM mock_settings WHERE id = ? AND workspace_id = ? AND kind = ?`,
        )
        .get(id, workspaceId, kind),
    )
    return row === undefined ? undefined : settings.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      return insertAudited(ctx, settings, input)
    },
    async get(workspaceId, kind, id) {
      ctx.check()
      return get(workspaceId, kind, id)
    },
    async list(workspaceId, kind, query) {
      ctx.check()
      return listPage(ctx, {
        select: settings.columns,
        from: 'mock_settings',
        where: 'workspace_id = @workspaceId AND kind = @kind',
        params: { workspaceId, kind },
        sortable: auditSortKeys,
        query,
        decode: settings.decode,
      })
    },
    async update(workspaceId, kind, id, patch) {
      ctx.check()
      const current = get(workspaceId, kind, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, mockSettingUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return settings.decode(
        returnedRow(conn.statement(settings.updateSql).get(settings.encode(next))),
      )
    },
    async setConfiguration(mockServiceId, configurationId) {
      ctx.check()
      if (configurationId === null) {
        conn
          .statement('DELETE FROM mock_service_configurations WHERE mock_service_id = ?')
          .run(mockServiceId)
      } else {
        conn
          .statement(
            'INSERT INTO mock_service_configurations (mock_service_id, configuration_id) VALUES (?, ?) ON CONFLICT (mock_service_id) DO UPDATE SET configuration_id = excluded.configuration_id',
          )
          .run(mockServiceId, configurationId)
      }
    },
    async configurationOf(mockServiceId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(
            'SELECT configuration_id FROM mock_service_configurations WHERE mock_service_id = ?',
          )
          .get(mockServiceId),
      )
      return row === undefined ? null : (row['configuration_id'] as number)
    },
  }
}
