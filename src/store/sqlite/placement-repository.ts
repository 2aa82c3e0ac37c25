import { shipAssignmentTable } from '../tables/placement.js'
import type { PlacementRepository } from '../repositories.js'
import type { ShipAssignment } from '../types.js'
import { defineTable } from './codec.js'
import { returnedRow, rowOf, type RepoContext } from './context.js'

const assignments = defineTable(shipAssignmentTable)

/**
 * The mock services placed on ships. Every change bumps the `work_version` of the ships it
 * concerns in the same transaction, which is what their agents' long polls wait on.
 *
 * @example
 * await placementRepository(ctx).assign({ mockServiceId: 7, harborId: 'harbor-1', shipId: 'ship-1', desired: 'RUNNING', document, documentHash, trackingId: null })
 */
export function placementRepository(ctx: RepoContext): PlacementRepository {
  const { conn } = ctx
  const bump = (shipId: string): void => {
    conn.statement('UPDATE ships SET work_version = work_version + 1 WHERE id = ?').run(shipId)
  }
  const get = (mockServiceId: number): ShipAssignment | undefined => {
    const row = rowOf(
      conn
        .statement(`SELECT ${assignments.columns} FROM ship_assignments WHERE mock_service_id = ?`)
        .get(mockServiceId),
    )
    return row === undefined ? undefined : assignments.decode(row)
  }
  const listWhere = (column: 'ship_id' | 'harbor_id', value: string): ShipAssignment[] =>
    conn
      .statement(
        `SELECT ${assignments.columns} FROM ship_assignments WHERE ${column} = ? ORDER BY mock_service_id`,
      )
      .all(value)
      .map((row) => assignments.decode(returnedRow(row)))
  return {
    async assign(input) {
      ctx.check()
      const now = ctx.now()
      const current = get(input.mockServiceId)
      const placed = current !== undefined && current.shipId === input.shipId ? current.placed : now
      const record: ShipAssignment = { ...input, placed, updated: now }
      const sql = current === undefined ? assignments.insertSql : assignments.updateSql
      const saved = assignments.decode(
        returnedRow(conn.statement(sql).get(assignments.encode(record))),
      )
      if (current !== undefined && current.shipId !== input.shipId) bump(current.shipId)
      bump(input.shipId)
      return saved
    },
    async get(mockServiceId) {
      ctx.check()
      return get(mockServiceId)
    },
    async ofShip(shipId) {
      ctx.check()
      return listWhere('ship_id', shipId)
    },
    async ofHarbor(harborId) {
      ctx.check()
      return listWhere('harbor_id', harborId)
    },
    async remove(mockServiceId) {
      ctx.check()
      const current = get(mockServiceId)
      if (current === undefined) return false
      conn.statement('DELETE FROM ship_assignments WHERE mock_service_id = ?').run(mockServiceId)
      bump(current.shipId)
      return true
    },
  }
}
