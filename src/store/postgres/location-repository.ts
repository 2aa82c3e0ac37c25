import type { LocationRepository } from '../repositories.js'
import type { Harbor, Ship } from '../types.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { pgListPage, type PgSortKeys } from './list.js'
import { all, one, returned, type Row } from './sql.js'

type HarborRow = Omit<Harbor, 'workspaceIds'>

const harbors = definePgTable<HarborRow>(
  'harbors',
  'id',
  {
    id: 'value',
    accountId: 'value',
    name: 'value',
    userId: 'value',
    created: 'value',
    updated: 'value',
  },
  false,
)

const ships = definePgTable<Ship>(
  'ships',
  'id',
  {
    id: 'value',
    harborId: 'value',
    name: 'value',
    address: 'value',
    tokenHash: 'value',
    state: 'value',
    lastHeartbeat: 'value',
    created: 'value',
    updated: 'value',
  },
  false,
)

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
      const record: Ship = {
        ...input,
        state: 'empty',
        lastHeartbeat: null,
        created: now,
        updated: now,
      }
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
