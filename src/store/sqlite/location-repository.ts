import { harborTable, shipTable, newShip } from '../tables/location.js'
import type { LocationRepository } from '../repositories.js'
import type { Harbor } from '../types.js'
import { defineTable } from './codec.js'
import { listPage, returnedRow, rowOf, type RepoContext, type SortKeys } from './context.js'

type HarborRow = Omit<Harbor, 'workspaceIds'>

const harbors = defineTable(harborTable)

const ships = defineTable(shipTable)

const harborSortKeys: SortKeys = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  created: 'created',
  updated: 'updated',
}

/**
 * Harbors, the workspaces each is offered to, and their ships. Id lists travel as one JSON
 * parameter (`json_each`), so that one prepared statement serves any number of ids.
 *
 * @example
 * const harbor = await locationRepository(ctx).createHarbor({ id: 'harbor-1a2b', accountId: 1, name: 'lab', userId: 1, workspaceIds: [1] })
 */
export function locationRepository(ctx: RepoContext): LocationRepository {
  const { conn } = ctx
  const workspacesOf = (harborId: string): number[] =>
    (
      conn
        .statement(
          'SELECT workspace_id AS id FROM harbor_workspaces WHERE harbor_id = ? ORDER BY workspace_id',
        )
        .all(harborId) as Array<{ id: number }>
    ).map((r) => r.id)
  const withWorkspaces = (row: HarborRow): Harbor => ({
    ...row,
    workspaceIds: workspacesOf(row.id),
  })
  return {
    async createHarbor(input) {
      ctx.check()
      const now = ctx.now()
      const { workspaceIds, ...fields } = input
      const row = harbors.decode(
        returnedRow(
          conn
            .statement(harbors.insertSql)
            .get(harbors.encode({ ...fields, created: now, updated: now })),
        ),
      )
      const link = conn.statement(
        'INSERT INTO harbor_workspaces (harbor_id, workspace_id) VALUES (?, ?)',
      )
      for (const id of new Set(workspaceIds)) link.run(row.id, id)
      return withWorkspaces(row)
    },
    async harbor(accountIds, id) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(
            `SELECT ${harbors.columns} FROM harbors WHERE id = ? AND account_id IN (SELECT value FROM json_each(?))`,
          )
          .get(id, JSON.stringify(accountIds)),
      )
      return row === undefined ? undefined : withWorkspaces(harbors.decode(row))
    },
    async harbors(filter, query) {
      ctx.check()
      const where =
        filter.workspaceIds === undefined
          ? 'account_id = @accountId'
          : 'account_id = @accountId AND id IN (SELECT harbor_id FROM harbor_workspaces WHERE workspace_id IN (SELECT value FROM json_each(@workspaceIds)))'
      const params =
        filter.workspaceIds === undefined
          ? { accountId: filter.accountId }
          : { accountId: filter.accountId, workspaceIds: JSON.stringify(filter.workspaceIds) }
      return conn.snapshot(() => {
        const page = listPage(ctx, {
          select: harbors.columns,
          from: 'harbors',
          where,
          params,
          sortable: harborSortKeys,
          query,
          decode: harbors.decode,
        })
        return { items: page.items.map(withWorkspaces), total: page.total }
      })
    },
    async createShip(input) {
      ctx.check()
      const now = ctx.now()
      // Environment ids follow each other from 2 (1 is the platform's local host) and are never
      // given twice while a ship holds one.
      const { next } = conn
        .statement('SELECT COALESCE(MAX(environment_id), 1) + 1 AS next FROM ships')
        .get() as { next: number }
      const record = newShip(input, now, next)
      return ships.decode(returnedRow(conn.statement(ships.insertSql).get(ships.encode(record))))
    },
    async ships(harborIds) {
      ctx.check()
      const rows = conn
        .statement(
          `SELECT ${ships.columns} FROM ships WHERE harbor_id IN (SELECT value FROM json_each(?)) ORDER BY created, id`,
        )
        .all(JSON.stringify(harborIds))
      return rows.map((row) => ships.decode(returnedRow(row)))
    },
    async ship(harborId, id) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(`SELECT ${ships.columns} FROM ships WHERE harbor_id = ? AND id = ?`)
          .get(harborId, id),
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async shipByEnvironment(environmentId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(`SELECT ${ships.columns} FROM ships WHERE environment_id = ?`)
          .get(environmentId),
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async heartbeat(harborId, id, figures) {
      ctx.check()
      const now = ctx.now()
      const row = rowOf(
        conn
          .statement(
            `UPDATE ships SET state = 'ready', last_heartbeat = @now, updated = @now,
               memory_usage = @memoryUsage, ms_running_count = @msRunningCount,
               transactions_count = @transactionsCount, agent_version = @agentVersion,
               advertise_host = @advertiseHost, regions = @regions
             WHERE harbor_id = @harborId AND id = @id RETURNING ${ships.columns}`,
          )
          .get({
            now,
            harborId,
            id,
            memoryUsage: figures.memoryUsage,
            msRunningCount: figures.msRunningCount,
            transactionsCount: figures.transactionsCount,
            agentVersion: figures.agentVersion,
            advertiseHost: figures.advertiseHost,
            regions: figures.regions === null ? null : JSON.stringify(figures.regions),
          }),
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async countSilent(cutoff) {
      ctx.check()
      const row = conn
        .statement("SELECT COUNT(*) AS n FROM ships WHERE state = 'ready' AND last_heartbeat < ?")
        .get(cutoff) as { n: number }
      return row.n
    },
    async markLost(cutoff) {
      ctx.check()
      const rows = conn
        .statement(
          `UPDATE ships SET state = 'lost', updated = @now
           WHERE state = 'ready' AND last_heartbeat < @cutoff RETURNING ${ships.columns}`,
        )
        .all({ cutoff, now: ctx.now() })
      return rows.map((row) => ships.decode(returnedRow(row)))
    },
    async deleteShip(harborId, id) {
      ctx.check()
      return (
        conn.statement('DELETE FROM ships WHERE harbor_id = ? AND id = ?').run(harborId, id)
          .changes > 0
      )
    },
  }
}
