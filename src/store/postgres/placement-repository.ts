import { shipAssignmentTable } from '../tables/placement.js'
import type { PlacementRepository } from '../repositories.js'
import type { ShipAssignment } from '../types.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { all, one, returned } from './sql.js'

const assignments = definePgTable(shipAssignmentTable)

/**
 * The mock services placed on ships. Every change bumps the `work_version` of the ships it
 * concerns in the same transaction, which is what their agents' long polls wait on.
 *
 * @example
 * await pgPlacementRepository(ctx).assign({ mockServiceId: 7, harborId: 'harbor-1', shipId: 'ship-1', desired: 'RUNNING', document, documentHash, trackingId: null })
 */
export function pgPlacementRepository(ctx: PgRepoContext): PlacementRepository {
  const bump = async (shipId: string): Promise<void> => {
    await all(ctx.db, 'UPDATE ships SET work_version = work_version + 1 WHERE id = @shipId', {
      shipId,
    })
  }
  /** The assignment, its row locked until the write ends when `forUpdate`. */
  const get = async (
    mockServiceId: number,
    forUpdate = false,
  ): Promise<ShipAssignment | undefined> => {
    const row = await one(
      ctx.db,
      `SELECT ${assignments.columns} FROM ship_assignments WHERE mock_service_id = @mockServiceId${forUpdate ? ' FOR UPDATE' : ''}`,
      { mockServiceId },
    )
    return row === undefined ? undefined : assignments.decode(row)
  }
  const listWhere = async (
    column: 'ship_id' | 'harbor_id',
    value: string,
  ): Promise<ShipAssignment[]> =>
    (
      await all(
        ctx.db,
        `SELECT ${assignments.columns} FROM ship_assignments WHERE ${column} = @value ORDER BY mock_service_id`,
        { value },
      )
    ).map(assignments.decode)
  return {
    async assign(input) {
      ctx.check()
      const now = ctx.now()
      const current = await get(input.mockServiceId, true)
      const placed = current !== undefined && current.shipId === input.shipId ? current.placed : now
      const record: ShipAssignment = { ...input, placed, updated: now }
      const sql = current === undefined ? assignments.insertSql : assignments.updateSql
      const saved = assignments.decode(returned(await one(ctx.db, sql, assignments.encode(record))))
      if (current !== undefined && current.shipId !== input.shipId) await bump(current.shipId)
      await bump(input.shipId)
      return saved
    },
    async get(mockServiceId) {
      ctx.check()
      return await get(mockServiceId)
    },
    async ofShip(shipId) {
      ctx.check()
      return await listWhere('ship_id', shipId)
    },
    async ofHarbor(harborId) {
      ctx.check()
      return await listWhere('harbor_id', harborId)
    },
    async remove(mockServiceId) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'DELETE FROM ship_assignments WHERE mock_service_id = @mockServiceId RETURNING ship_id',
        { mockServiceId },
      )
      const gone = rows[0]
      if (gone === undefined) return false
      await bump(gone['ship_id'] as string)
      return true
    },
  }
}
