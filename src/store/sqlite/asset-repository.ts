import { assetUpdatable, assetTable } from '../tables/assets.js'
import type { AssetRepository } from '../repositories.js'
import type { Asset } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import { defineTable, type Row } from './codec.js'
import {
  auditSortKeys,
  insertAudited,
  preparedListPage,
  returnedRow,
  rowOf,
  type RepoContext,
  type SortKeys,
} from './context.js'
import { listSummary } from './list-counts.js'

const assets = defineTable(assetTable)

const sortKeys: SortKeys = {
  ...auditSortKeys,
  serviceId: 'service_id',
  type: 'type',
  size: 'size',
}
/** The sorts an index of migration 23 serves (`serviceId` may be NULL, which keyset pages cannot follow). */
const indexedSorts = Object.keys(sortKeys).filter((sort) => sort !== 'serviceId')

/**
 * The asset catalog of a workspace (the bytes are in AssetFiles). An asset's service, when it has
 * one, is in the same workspace; deleting the service leaves the asset without one.
 *
 * @example
 * const taken = await assetRepository(ctx).findByName(1, 3, 'pets.mar') !== undefined
 */
export function assetRepository(ctx: RepoContext): AssetRepository {
  const { conn } = ctx
  const get = (workspaceId: number, id: number): Asset | undefined => {
    const row = rowOf(
      conn
        .statement(`SELECT ${assets.columns} FROM assets WHERE id = ? AND workspace_id = ?`)
        .get(id, workspaceId),
    )
    return row === undefined ? undefined : assets.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      return insertAudited(ctx, assets, input)
    },
    async get(workspaceId, id) {
      ctx.check()
      return get(workspaceId, id)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const params: Row = { workspaceId }
      let where = 'workspace_id = @workspaceId'
      if (filter.serviceId !== undefined) {
        where += ' AND service_id = @serviceId'
        params['serviceId'] = filter.serviceId
      }
      return await preparedListPage(ctx, {
        select: assets.columns,
        from: 'assets',
        where,
        params,
        sortable: sortKeys,
        query,
        decode: assets.decode,
        summary: listSummary('assets', 'workspaceId', filter.serviceId !== undefined),
        scope: 'workspace_id = @workspaceId',
        indexedSorts,
      })
    },
    async update(workspaceId, id, patch) {
      ctx.check()
      const current = get(workspaceId, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, assetUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return assets.decode(returnedRow(conn.statement(assets.updateSql).get(assets.encode(next))))
    },
    async delete(workspaceId, id) {
      ctx.check()
      return (
        conn.statement('DELETE FROM assets WHERE id = ? AND workspace_id = ?').run(id, workspaceId)
          .changes > 0
      )
    },
    async findByName(workspaceId, serviceId, name, idToIgnore) {
      ctx.check()
      // `IS` compares NULL as a value: serviceId null finds the assets without a service.
      const row = rowOf(
        conn
          .statement(
            `SELECT ${assets.columns} FROM assets WHERE workspace_id = ? AND service_id IS ? AND name = ? AND id IS NOT ? ORDER BY id LIMIT 1`,
          )
          .get(workspaceId, serviceId, name, idToIgnore ?? null),
      )
      return row === undefined ? undefined : assets.decode(row)
    },
    async fileIds() {
      ctx.check()
      const rows = conn.statement('SELECT file_id FROM assets').all() as Array<{ file_id: string }>
      return new Set(rows.map((r) => r.file_id))
    },
  }
}
