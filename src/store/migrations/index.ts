import { initialSchema } from './001-initial.js'
import { mockSettingsSchema } from './004-mock-settings.js'
import { tenancySchema } from './002-tenancy.js'
import { monitoringSchema } from './003-monitoring.js'
import { cloneTrackingsSchema } from './005-clone-trackings.js'
import { mockServiceProxySchema } from './006-mock-service-proxy.js'
import { mockDynamicSchema } from './007-mock-dynamic.js'
import { transactionIndexesSchema } from './008-transaction-indexes.js'
import { sandboxesSchema } from './009-sandboxes.js'
import { monitorIntegrationsSchema } from './010-monitor-integrations.js'
import { transactionCountsSchema } from './011-transaction-counts.js'
import { privateLocationsSchema } from './013-private-locations.js'
import { transactionNameOrderSchema } from './014-transaction-name-order.js'
import { shipPlacementSchema } from './015-ship-placement.js'
import { monitorRunLeasesSchema } from './016-monitor-run-leases.js'
import { runtimeLeasesSchema } from './018-runtime-leases.js'
import { sharedInstanceStateSchema } from './019-shared-instance-state.js'
import { transactionSortOrdersSchema } from './020-transaction-sort-orders.js'
import { adminCallsSchema } from './021-admin-calls.js'
import { sharedFilesSchema } from './022-shared-files.js'
import { listCountsSchema } from './023-list-counts.js'
import type { Migration } from './types.js'

export type { Migration } from './types.js'

/**
 * Every migration, oldest first. Append new ones (`002-....ts`, version 2); never edit or reorder
 * a released one.
 *
 * @example
 * applyMigrations(db, migrations)
 */
export const migrations: readonly Migration[] = [
  initialSchema,
  tenancySchema,
  monitoringSchema,
  mockSettingsSchema,
  cloneTrackingsSchema,
  mockServiceProxySchema,
  mockDynamicSchema,
  transactionIndexesSchema,
  sandboxesSchema,
  monitorIntegrationsSchema,
  transactionCountsSchema,
  privateLocationsSchema,
  transactionNameOrderSchema,
  shipPlacementSchema,
  monitorRunLeasesSchema,
  runtimeLeasesSchema,
  sharedInstanceStateSchema,
  transactionSortOrdersSchema,
  adminCallsSchema,
  sharedFilesSchema,
  listCountsSchema,
]
