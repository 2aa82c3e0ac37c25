import type { Migration } from '../../migrations/types.js'
import { catalogSchema } from './001-catalog.js'
import { pgOperationsSchema } from './002-operations.js'
import { pgShipPlacementSchema } from './003-ship-placement.js'
import { pgMonitorRunLeasesSchema } from './004-monitor-run-leases.js'
import { pgRuntimeLeasesSchema } from './006-runtime-leases.js'
import { pgSharedInstanceStateSchema } from './007-shared-instance-state.js'
import { pgTransactionSortOrdersSchema } from './008-transaction-sort-orders.js'
import { pgAdminCallsSchema } from './009-admin-calls.js'
import { pgSharedFilesSchema } from './010-shared-files.js'
import { pgTransactionServiceAndTypeOrdersSchema } from './011-transaction-service-and-type-orders.js'
import { pgListCountsSchema } from './013-list-counts.js'
import { pgTransactionChangesSchema } from './014-transaction-changes.js'

/**
 * The PostgreSQL schema, oldest first: its own numbering, independent of SQLite's (one PostgreSQL
 * migration may stand for several SQLite ones). Append new ones; never edit a released one.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgMigrations: readonly Migration[] = [
  catalogSchema,
  pgOperationsSchema,
  pgShipPlacementSchema,
  pgMonitorRunLeasesSchema,
  pgRuntimeLeasesSchema,
  pgSharedInstanceStateSchema,
  pgTransactionSortOrdersSchema,
  pgAdminCallsSchema,
  pgSharedFilesSchema,
  pgTransactionServiceAndTypeOrdersSchema,
  pgListCountsSchema,
  pgTransactionChangesSchema,
]
