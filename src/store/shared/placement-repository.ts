import type { PlacementRepository } from '../repositories.js'
import type { TableCodec } from '../tables/columns.js'
import type { ShipAssignment } from '../types.js'
import type { SqlRunner } from './runner.js'

/**
 * How a store keeps a concurrent write from changing the assignment read before it is rewritten:
 * PostgreSQL locks the row (`FOR UPDATE`, several instances write at once); SQLite needs nothing
 * (its one writer holds the whole database for the write).
 */
export type AssignmentRowLock = '' | ' FOR UPDATE'

/**
 * The mock services placed on ships, written once for both stores (`assignments` is the store's
 * codec of ship_assignments). Every change bumps the `work_version` of the ships it concerns in
 * the same transaction, which is what their agents' long polls wait on.
 *
 * @example
 * const placements = placementRepository(run, defineTable(shipAssignmentTable), Date.now, '')
 * await placements.assign({ mockServiceId: 7, harborId: 'harbor-1', shipId: 'ship-1', desired: 'RUNNING', document, documentHash, trackingId: null })
 */
export function placementRepository(
  run: SqlRunner,
  assignments: TableCodec<ShipAssignment>,
  now: () => number,
  rowLock: AssignmentRowLock,
): PlacementRepository {
  const bump = async (shipId: string): Promise<void> => {
    await run('UPDATE ships SET work_version = work_version + 1 WHERE id = @shipId', { shipId })
  }
  const byId = `SELECT ${assignments.columns} FROM ship_assignments WHERE mock_service_id = @mockServiceId`
  const get = async (mockServiceId: number, lock = false): Promise<ShipAssignment | undefined> => {
    const [row] = await run(lock ? `${byId}${rowLock}` : byId, { mockServiceId })
    return row === undefined ? undefined : assignments.decode(row)
  }
  const listWhere = async (
    column: 'ship_id' | 'harbor_id',
    value: string,
  ): Promise<ShipAssignment[]> =>
    (
      await run(
        `SELECT ${assignments.columns} FROM ship_assignments WHERE ${column} = @value ORDER BY mock_service_id`,
        { value },
      )
    ).map(assignments.decode)
  return {
    async assign(input) {
      const at = now()
      const current = await get(input.mockServiceId, true)
      const placed = current !== undefined && current.shipId === input.shipId ? current.placed : at
      const record: ShipAssignment = { ...input, placed, updated: at }
      const sql = current === undefined ? assignments.insertSql : assignments.updateSql
      const [row] = await run(sql, assignments.encode(record))
      if (row === undefined) throw new Error('the statement returned no row')
      if (current !== undefined && current.shipId !== input.shipId) await bump(current.shipId)
      await bump(input.shipId)
      return assignments.decode(row)
    },
    async get(mockServiceId) {
      return await get(mockServiceId)
    },
    async ofShip(shipId) {
      return await listWhere('ship_id', shipId)
    },
    async ofHarbor(harborId) {
      return await listWhere('harbor_id', harborId)
    },
    async remove(mockServiceId) {
      const [gone] = await run(
        'DELETE FROM ship_assignments WHERE mock_service_id = @mockServiceId RETURNING ship_id',
        { mockServiceId },
      )
      if (gone === undefined) return false
      await bump(String(gone['ship_id']))
      return true
    },
  }
}
