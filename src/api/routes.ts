import type { Route } from './http/types.js'
import { assetFileRoutes } from './v1/asset-links.js'
import { assetRoutes } from './v1/assets.js'
import { conflictRoutes } from './v1/conflicts.js'
import { serviceRoutes } from './v1/services.js'
import { tagRoutes } from './v1/tags.js'
import { transactionBulkRoutes } from './v1/transaction-bulk.js'
import { convertRoutes } from './v1/transaction-import.js'
import { transactionRoutes } from './v1/transactions.js'
import { inspectionRoutes } from './v1/inspection.js'
import { logRoutes } from './v1/logs.js'
import { platformVseRoutes } from './v1/platformvses.js'
import { serviceMockRoutes } from './v1/service-mocks.js'
import { dynamicRoutes } from './v1/dynamic.js'
import { userRoutes } from './v4/user.js'
import { workspaceRoutes } from './v4/workspaces.js'

/**
 * Every endpoint of the control plane. Each resource module exports its routes; this list is the
 * one place that decides what the platform serves.
 */
export const allRoutes: readonly Route[] = [
  ...userRoutes,
  ...workspaceRoutes,
  ...serviceMockRoutes,
  ...logRoutes,
  ...inspectionRoutes,
  ...platformVseRoutes,
  // issue 12: template validation, scenario states, transaction actions
  ...dynamicRoutes,
  // /api/v1 catalog (spec/002): services, tags, transactions, assets
  ...serviceRoutes,
  ...tagRoutes,
  ...transactionRoutes,
  ...transactionBulkRoutes,
  ...conflictRoutes,
  ...convertRoutes,
  ...assetRoutes,
  ...assetFileRoutes,
]
