import { harborTable, shipTable, newShip } from '../tables/location.js'
import type { LocationRepository } from '../repositories.js'
import type { Harbor } from '../types.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { pgListPage, type PgSortKeys } from './list.js'
import { all, one, returned, type Row } from './sql.js'

const harbors = definePgTable(harborTable)

const ships = definePgTable(shipTable)

const harborSortKeys: PgSortKeys = {
  id: 'id',
  name: 'lower(name)',
  created: 'created',
  updated: 'updated',
}

/**
 * The workspace ids of each harbor, read with the harbor in one statement (an array aggregate),
 * so that a list never shows a harbor with the workspaces of another moment.
 */
const WITH_WORKSPACES = `ARRAY(SELECT workspace_id FROM harbor_workspaces w WHERE w.harbor_id = harbors.id ORDER BY workspace_id) AS workspace_ids`

/** The advisory lock key under which a new ship takes the next environment id (any fixed number). */
const NEXT_ENVIRONMENT_LOCK = 0x5e1f_0001

function harborOf(row: Row): Harbor {
  return { ...harbors.decode(row), workspaceIds: (row['workspace_ids'] as number[]).map(Number) }
}

/**
 * Harbors, the workspaces each is offered to, and their ships. Id lists travel as one array
 * parameter, so that one statement serves any number of ids.
 *
 * @example
 * const harbor = await pgLocationRepository(ctx).createHarbor({ id: 'harbor-1a2b', accountId: 1, name: 'lab', userId: 1, workspaceIds: [1] })
 */
export function pgLocationRepository(ctx: PgRepoContext): LocationRepository {
  return {
    async createHarbor(input) {
      ctx.check()
      const now = ctx.now()
      const { workspaceIds, ...fields } = input
      const row = harbors.decode(
        returned(
          await one(
            ctx.db,
            harbors.insertSql,
            harbors.encode({ ...fields, created: now, updated: now }),
          ),
        ),
      )
      const ids = [...new Set(workspaceIds)]
      if (ids.length > 0) {
        await all(
          ctx.db,
          'INSERT INTO harbor_workspaces (harbor_id, workspace_id) SELECT @harborId, unnest(@ids::bigint[])',
          { harborId: row.id, ids },
        )
      }
      return { ...row, workspaceIds: ids.sort((a, b) => a - b) }
    },
    async harbor(accountIds, id) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${harbors.columns}, ${WITH_WORKSPACES} FROM harbors WHERE id = @id AND account_id = ANY(@accountIds::bigint[])`,
        { id, accountIds },
      )
      return row === undefined ? undefined : harborOf(row)
    },
    async harbors(filter, query) {
      ctx.check()
      const where =
        filter.workspaceIds === undefined
          ? 'account_id = @accountId'
          : 'account_id = @accountId AND id IN (SELECT harbor_id FROM harbor_workspaces WHERE workspace_id = ANY(@workspaceIds::bigint[]))'
      const params =
        filter.workspaceIds === undefined
          ? { accountId: filter.accountId }
          : { accountId: filter.accountId, workspaceIds: filter.workspaceIds }
      return await pgListPage(ctx, {
        select: `${harbors.columns}, ${WITH_WORKSPACES}`,
        from: 'harbors',
        where,
        params,
        sortable: harborSortKeys,
        query,
        decode: harborOf,
      })
    },
    async createShip(input) {
      ctx.check()
      const now = ctx.now()
      // Environment ids follow each other from 2 (1 is the platform's local host) and are never
      // given twice while a ship holds one. Platform instances sharing the database take the
      // next one in turn: the lock is held until this write's transaction ends.
      await all(ctx.db, `SELECT pg_advisory_xact_lock(${NEXT_ENVIRONMENT_LOCK})`)
      const next = returned(
        await one(ctx.db, 'SELECT COALESCE(MAX(environment_id), 1) + 1 AS next FROM ships'),
      )['next'] as number
      const record = newShip(input, now, next)
      return ships.decode(returned(await one(ctx.db, ships.insertSql, ships.encode(record))))
    },
    async ships(harborIds) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `SELECT ${ships.columns} FROM ships WHERE harbor_id = ANY(@harborIds::text[]) ORDER BY created, id`,
        { harborIds },
      )
      return rows.map(ships.decode)
    },
    async ship(harborId, id) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${ships.columns} FROM ships WHERE harbor_id = @harborId AND id = @id`,
        { harborId, id },
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async shipByEnvironment(environmentId) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${ships.columns} FROM ships WHERE environment_id = @environmentId`,
        { environmentId },
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async heartbeat(harborId, id, figures) {
      ctx.check()
      const row = await one(
        ctx.db,
        `UPDATE ships SET state = 'ready', last_heartbeat = @now, updated = @now,
           memory_usage = @memoryUsage, ms_running_count = @msRunningCount,
           transactions_count = @transactionsCount, agent_version = @agentVersion,
           advertise_host = @advertiseHost, regions = @regions::json
         WHERE harbor_id = @harborId AND id = @id RETURNING ${ships.columns}`,
        {
          now: ctx.now(),
          harborId,
          id,
          memoryUsage: figures.memoryUsage,
          msRunningCount: figures.msRunningCount,
          transactionsCount: figures.transactionsCount,
          agentVersion: figures.agentVersion,
          advertiseHost: figures.advertiseHost,
          regions: figures.regions === null ? null : JSON.stringify(figures.regions),
        },
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async countSilent(cutoff) {
      ctx.check()
      const row = await one(
        ctx.db,
        "SELECT COUNT(*) AS n FROM ships WHERE state = 'ready' AND last_heartbeat < @cutoff",
        { cutoff },
      )
      return returned(row)['n'] as number
    },
    async markLost(cutoff) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `UPDATE ships SET state = 'lost', updated = @now
         WHERE state = 'ready' AND last_heartbeat < @cutoff RETURNING ${ships.columns}`,
        { cutoff, now: ctx.now() },
      )
      return rows.map(ships.decode)
    },
    async deleteShip(harborId, id) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'DELETE FROM ships WHERE harbor_id = @harborId AND id = @id RETURNING id',
        { harborId, id },
      )
      return rows.length > 0
    },
  }
}
