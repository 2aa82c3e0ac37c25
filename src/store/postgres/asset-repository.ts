import { assetUpdatable, assetTable } from '../tables/assets.js'
import type { AssetRepository } from '../repositories.js'
import { mergePatch } from '../tables/columns.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { insertAudited } from './insert-audited.js'
import { pgAuditSortKeys, pgListPage, type PgSortKeys } from './list.js'
import { pgListSummary } from './list-counts.js'
import { all, one, returned, type Row } from './sql.js'

const assets = definePgTable(assetTable)

const sortKeys: PgSortKeys = {
  ...pgAuditSortKeys,
  serviceId: 'service_id',
  type: 'type',
  size: 'size',
}

/**
 * The asset catalog of a workspace (the bytes are in AssetFiles). An asset's service, when it has
 * one, is in the same workspace; deleting the service leaves the asset without one.
 *
 * @example
 * const taken = (await pgAssetRepository(ctx).findByName(1, 3, 'pets.mar')) !== undefined
 */
export function pgAssetRepository(ctx: PgRepoContext): AssetRepository {
  const byId = `SELECT ${assets.columns} FROM assets WHERE id = @id AND workspace_id = @workspaceId`
  return {
    async create(input) {
      ctx.check()
      return await insertAudited(ctx, assets, input)
    },
    async get(workspaceId, id) {
      ctx.check()
      const row = await one(ctx.db, byId, { id, workspaceId })
      return row === undefined ? undefined : assets.decode(row)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const params: Row = { workspaceId }
      let where = 'workspace_id = @workspaceId'
      if (filter.serviceId !== undefined) {
        where += ' AND service_id = @serviceId'
        params['serviceId'] = filter.serviceId
      }
      return await pgListPage(ctx, {
        select: assets.columns,
        from: 'assets',
        where,
        params,
        sortable: sortKeys,
        query,
        decode: assets.decode,
        summary: pgListSummary('assets', 'workspaceId', filter.serviceId !== undefined),
      })
    },
    async update(workspaceId, id, patch) {
      ctx.check()
      const row = await one(ctx.db, `${byId} FOR UPDATE`, { id, workspaceId })
      if (row === undefined) return undefined
      const next = mergePatch(assets.decode(row), patch, assetUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return assets.decode(returned(await one(ctx.db, assets.updateSql, assets.encode(next))))
    },
    async delete(workspaceId, id) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'DELETE FROM assets WHERE id = @id AND workspace_id = @workspaceId RETURNING id',
        { id, workspaceId },
      )
      return rows.length > 0
    },
    async findByName(workspaceId, serviceId, name, idToIgnore) {
      ctx.check()
      // IS NOT DISTINCT FROM compares NULL as a value: serviceId null finds the assets without a service.
      const row = await one(
        ctx.db,
        `SELECT ${assets.columns} FROM assets WHERE workspace_id = @workspaceId AND service_id IS NOT DISTINCT FROM @serviceId::bigint AND name = @name AND id IS DISTINCT FROM @idToIgnore::bigint ORDER BY id LIMIT 1`,
        { workspaceId, serviceId, name, idToIgnore: idToIgnore ?? null },
      )
      return row === undefined ? undefined : assets.decode(row)
    },
    async fileIds() {
      ctx.check()
      const rows = await ctx.db.query<{ file_id: string }>('SELECT file_id FROM assets')
      return new Set(rows.map((r) => r.file_id))
    },
  }
}
