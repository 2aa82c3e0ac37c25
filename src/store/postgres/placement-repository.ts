import type { PlacementRepository } from '../repositories.js'
import { placementRepository } from '../shared/placement-repository.js'
import { shipAssignmentTable } from '../tables/placement.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { pgSqlRunner } from './sql.js'

const assignments = definePgTable(shipAssignmentTable)

/**
 * The mock services placed on ships, in PostgreSQL: an assignment read to be rewritten is locked
 * until the write ends, so that two instances changing one placement take turns.
 *
 * @example
 * await pgPlacementRepository(ctx).assign({ mockServiceId: 7, harborId: 'harbor-1', shipId: 'ship-1', desired: 'RUNNING', document, documentHash, trackingId: null })
 */
export function pgPlacementRepository(ctx: PgRepoContext): PlacementRepository {
  return placementRepository(pgSqlRunner(ctx), assignments, ctx.now, ' FOR UPDATE')
}
