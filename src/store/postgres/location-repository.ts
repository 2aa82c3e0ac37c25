import type { LocationRepository } from '../repositories.js'
import type { Harbor, Ship } from '../types.js'
import type { PgRepoContext } from './context.js'
import {
  definePgTable,
  firstRow,
  pgListPage,
  returnedRow,
  type PgRow,
  type PgSortKeys,
} from './record-table.js'

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

function harborOf(row: PgRow): Harbor {
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
        await returnedRow(
          ctx.db,
          harbors.insertSql,
          harbors.insertValues({ ...fields, created: now, updated: now }),
        ),
      )
      const ids = [...new Set(workspaceIds)]
      if (ids.length > 0) {
        await ctx.db.query(
          'INSERT INTO harbor_workspaces (harbor_id, workspace_id) SELECT $1, unnest($2::bigint[])',
          [row.id, ids],
        )
      }
      return { ...row, workspaceIds: ids.sort((a, b) => a - b) }
    },
    async harbor(accountIds, id) {
      ctx.check()
      const row = await firstRow(
        ctx.db,
        `SELECT ${harbors.columns}, ${WITH_WORKSPACES} FROM harbors WHERE id = $1 AND account_id = ANY($2::bigint[])`,
        [id, accountIds],
      )
      return row === undefined ? undefined : harborOf(row)
    },
    async harbors(filter, query) {
      ctx.check()
      const where =
        filter.workspaceIds === undefined
          ? 'account_id = $1'
          : 'account_id = $1 AND id IN (SELECT harbor_id FROM harbor_workspaces WHERE workspace_id = ANY($2::bigint[]))'
      const params =
        filter.workspaceIds === undefined
          ? [filter.accountId]
          : [filter.accountId, filter.workspaceIds]
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
      return ships.decode(await returnedRow(ctx.db, ships.insertSql, ships.insertValues(record)))
    },
    async ships(harborIds) {
      ctx.check()
      const rows = await ctx.db.query<PgRow>(
        `SELECT ${ships.columns} FROM ships WHERE harbor_id = ANY($1::text[]) ORDER BY created, id`,
        [harborIds],
      )
      return rows.map(ships.decode)
    },
    async ship(harborId, id) {
      ctx.check()
      const row = await firstRow(
        ctx.db,
        `SELECT ${ships.columns} FROM ships WHERE harbor_id = $1 AND id = $2`,
        [harborId, id],
      )
      return row === undefined ? undefined : ships.decode(row)
    },
    async deleteShip(harborId, id) {
      ctx.check()
      const rows = await ctx.db.query(
        'DELETE FROM ships WHERE harbor_id = $1 AND id = $2 RETURNING id',
        [harborId, id],
      )
      return rows.length > 0
    },
  }
}
