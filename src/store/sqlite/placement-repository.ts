import type { PlacementRepository } from '../repositories.js'
import { placementRepository as sharedPlacementRepository } from '../shared/placement-repository.js'
import { shipAssignmentTable } from '../tables/placement.js'
import { defineTable } from './codec.js'
import { sqlRunner, type RepoContext } from './context.js'

const assignments = defineTable(shipAssignmentTable)

/**
 * The mock services placed on ships, in SQLite: its one writer needs no row locks.
 *
 * @example
 * await placementRepository(ctx).assign({ mockServiceId: 7, harborId: 'harbor-1', shipId: 'ship-1', desired: 'RUNNING', document, documentHash, trackingId: null })
 */
export function placementRepository(ctx: RepoContext): PlacementRepository {
  return sharedPlacementRepository(sqlRunner(ctx), assignments, ctx.now, '')
}
