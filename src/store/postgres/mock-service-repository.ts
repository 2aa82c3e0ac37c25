import type { MockServiceRepository } from '../repositories.js'
import { mockServiceUpdatable, mockServiceTable } from '../tables/mock-services.js'
import { mergePatch, workspaceServiceWhere } from '../tables/columns.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { insertAudited } from './insert-audited.js'
import { pgAuditSortKeys, pgListPage, type PgSortKeys } from './list.js'
import { pgListSummary } from './list-counts.js'
import { all, one, returned } from './sql.js'

const mockServices = definePgTable(mockServiceTable)

const sortKeys: PgSortKeys = {
  ...pgAuditSortKeys,
  serviceId: 'service_id',
  status: 'status',
  type: 'type',
}

/**
 * Mock service records. `update` is not scoped by workspace: the deployer and trackings act for
 * the platform (status, endpoints, ports) and hold only the id. It reads the record FOR UPDATE
 * inside a write, so that two instances changing one mock service take turns instead of the
 * second overwriting the first's fields with what it read before.
 *
 * @example
 * await pgMockServiceRepository(ctx).update(7, { status: 'RUNNING', httpEndpoint: 'http://127.0.0.1:41000' })
 */
export function pgMockServiceRepository(ctx: PgRepoContext): MockServiceRepository {
  const byId = `SELECT ${mockServices.columns} FROM mock_services WHERE id = @id`
  return {
    async create(input) {
      ctx.check()
      return await insertAudited(ctx, mockServices, input, mockServices.decode)
    },
    async get(workspaceId, id) {
      ctx.check()
      const row = await one(ctx.db, `${byId} AND workspace_id = @workspaceId`, { id, workspaceId })
      return row === undefined ? undefined : mockServices.decode(row)
    },
    async getById(id) {
      ctx.check()
      const row = await one(ctx.db, byId, { id })
      return row === undefined ? undefined : mockServices.decode(row)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const { where, params } = workspaceServiceWhere(workspaceId, filter)
      return await pgListPage(ctx, {
        select: mockServices.columns,
        from: 'mock_services',
        where,
        params,
        sortable: sortKeys,
        query,
        decode: mockServices.decode,
        summary: pgListSummary('mock_services', 'workspaceId', filter.serviceId !== undefined),
      })
    },
    async listByStatus(statuses) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `SELECT ${mockServices.columns} FROM mock_services WHERE status = ANY(@statuses::text[]) ORDER BY id`,
        { statuses },
      )
      return rows.map(mockServices.decode)
    },
    async update(id, patch) {
      ctx.check()
      const row = await one(ctx.db, `${byId} FOR UPDATE`, { id })
      if (row === undefined) return undefined
      const next = mergePatch(mockServices.decode(row), patch, mockServiceUpdatable)
      // Changes made for the platform (no `by`: status, endpoints) leave the user-facing audit alone.
      if (patch.by !== undefined) {
        next.updated = ctx.now()
        next.updatedBy = patch.by
      }
      return mockServices.decode(
        returned(await one(ctx.db, mockServices.updateSql, mockServices.encode(next))),
      )
    },
    async delete(workspaceId, id) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'DELETE FROM mock_services WHERE id = @id AND workspace_id = @workspaceId RETURNING id',
        { id, workspaceId },
      )
      return rows.length > 0
    },
    async countByService(workspaceId, serviceId) {
      ctx.check()
      const row = await one(
        ctx.db,
        'SELECT count(*) AS n FROM mock_services WHERE workspace_id = @workspaceId AND service_id = @serviceId',
        { workspaceId, serviceId },
      )
      return Number(row?.['n'] ?? 0)
    },
    async usedPorts() {
      ctx.check()
      const rows = await ctx.db.query<{ p: number }>(
        'SELECT port AS p FROM mock_services WHERE port IS NOT NULL UNION SELECT tls_port FROM mock_services WHERE tls_port IS NOT NULL ORDER BY p',
      )
      return rows.map((r) => r.p)
    },
  }
}
