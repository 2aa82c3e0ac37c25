import type { MockServiceRepository } from '../repositories.js'
import type { MockService } from '../types.js'
import { mockServiceUpdatable, mockServiceTable } from '../tables/mock-services.js'
import { mergePatch, workspaceServiceWhere } from '../tables/columns.js'
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

const mockServices = defineTable(mockServiceTable)

const sortKeys: SortKeys = {
  ...auditSortKeys,
  serviceId: 'service_id',
  status: 'status',
  type: 'type',
}

/**
 * Mock service records. `update` is not scoped by workspace: the deployer and trackings act for
 * the platform (status, endpoints, ports) and hold only the id.
 *
 * @example
 * await mockServiceRepository(ctx).update(7, { status: 'RUNNING', httpEndpoint: 'http://127.0.0.1:41000' })
 */
export function mockServiceRepository(ctx: RepoContext): MockServiceRepository {
  const { conn } = ctx
  const byId = `SELECT ${mockServices.columns} FROM mock_services WHERE id = ?`
  const getById = (id: number): MockService | undefined => {
    const row = rowOf(conn.statement(byId).get(id))
    return row === undefined ? undefined : mockServices.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      return insertAudited(ctx, mockServices, input)
    },
    async get(workspaceId, id) {
      ctx.check()
      const row = rowOf(conn.statement(`${byId} AND workspace_id = ?`).get(id, workspaceId))
      return row === undefined ? undefined : mockServices.decode(row)
    },
    async getById(id) {
      ctx.check()
      return getById(id)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const { where, params } = workspaceServiceWhere(workspaceId, filter)
      return await preparedListPage(ctx, {
        select: mockServices.columns,
        from: 'mock_services',
        where,
        params,
        sortable: sortKeys,
        query,
        decode: mockServices.decode,
        summary: listSummary('mock_services', 'workspaceId', filter.serviceId !== undefined),
        scope: 'workspace_id = @workspaceId',
        // every sort: an index of migration 23, or for serviceId (workspace_id, service_id) of migration 1
        indexedSorts: Object.keys(sortKeys),
      })
    },
    async listByStatus(statuses) {
      ctx.check()
      const rows = conn
        .statement(
          `SELECT ${mockServices.columns} FROM mock_services WHERE status IN (SELECT value FROM json_each(?)) ORDER BY id`,
        )
        .all(JSON.stringify(statuses)) as Row[]
      return rows.map(mockServices.decode)
    },
    async update(id, patch) {
      ctx.check()
      const current = getById(id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, mockServiceUpdatable)
      // Changes made for the platform (no `by`: status, endpoints) leave the user-facing audit alone.
      if (patch.by !== undefined) {
        next.updated = ctx.now()
        next.updatedBy = patch.by
      }
      return mockServices.decode(
        returnedRow(conn.statement(mockServices.updateSql).get(mockServices.encode(next))),
      )
    },
    async delete(workspaceId, id) {
      ctx.check()
      return (
        conn
          .statement('DELETE FROM mock_services WHERE id = ? AND workspace_id = ?')
          .run(id, workspaceId).changes > 0
      )
    },
    async countByService(workspaceId, serviceId) {
      ctx.check()
      const row = conn
        .statement(
          'SELECT COUNT(*) AS n FROM mock_services WHERE workspace_id = ? AND service_id = ?',
        )
        .get(workspaceId, serviceId)
      return (row as { n: number }).n
    },
    async usedPorts() {
      ctx.check()
      const rows = conn
        .statement(
          'SELECT port AS p FROM mock_services WHERE port IS NOT NULL UNION SELECT tls_port FROM mock_services WHERE tls_port IS NOT NULL ORDER BY p',
        )
        .all() as Array<{ p: number }>
      return rows.map((r) => r.p)
    },
  }
}
