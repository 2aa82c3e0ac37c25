import type { Route } from './http/types.js'
import { assetFileRoutes } from './v1/asset-links.js'
import { assetRoutes } from './v1/assets.js'
import { conflictRoutes } from './v1/conflicts.js'
import { serviceRoutes } from './v1/services.js'
import { tagRoutes } from './v1/tags.js'
import { transactionBulkRoutes } from './v1/transaction-bulk.js'
import { convertRoutes } from './v1/upload/index.js'
import { transactionRoutes } from './v1/transactions.js'
import { inspectionRoutes } from './v1/inspection.js'
import { verificationRoutes } from './v1/verification.js'
import { logRoutes } from './v1/logs.js'
import { platformVseRoutes } from './v1/platformvses.js'
import { serviceMockRoutes } from './v1/service-mocks.js'
import { sandboxRoutes } from './v1/sandbox.js'
import { locationRoutes } from './v1/locations.js'
import { serviceCloneRoutes } from './v1/service-clone.js'
import { mockSettingRoutes } from './v1/mock-settings.js'
import { dynamicRoutes } from './v1/dynamic.js'
import { recordingRoutes } from './v1/recordings.js'
import { userRoutes } from './v4/user.js'
import { workspaceRoutes } from './v4/workspaces.js'
import { accountRoutes } from './v4/accounts.js'
import { invitationRoutes } from './v4/invitations.js'
import { projectRoutes } from './v4/projects.js'
import { searchRoutes } from './v4/search.js'
import { versionRoutes } from './v4/version.js'
import { privateLocationRoutes } from './v4/private-locations.js'
import { agentWorkRoutes } from './v4/agent-work.js'
import { agentAdminCallRoutes } from './v4/agent-admin-calls.js'
import { agentRunRoutes } from './v4/agent-runs.js'

/**
 * Every endpoint of the control plane. Each resource module exports its routes; this list is the
 * one place that decides what the platform serves.
 */
export const allRoutes: readonly Route[] = [
  ...userRoutes,
  ...workspaceRoutes,
  // /api/v4 administration: accounts, invitations, projects, search, version
  ...accountRoutes,
  ...invitationRoutes,
  ...projectRoutes,
  ...searchRoutes,
  ...versionRoutes,
  ...privateLocationRoutes,
  ...agentWorkRoutes,
  ...agentAdminCallRoutes,
  ...agentRunRoutes,
  ...serviceMockRoutes,
  ...logRoutes,
  ...inspectionRoutes,
  ...verificationRoutes,
  ...platformVseRoutes,
  // Template validation, scenario states, transaction actions
  ...dynamicRoutes,
  ...recordingRoutes,
  // /api/v1 catalog (the mock services specification): services, tags, transactions, assets
  ...serviceRoutes,
  ...tagRoutes,
  ...transactionRoutes,
  ...transactionBulkRoutes,
  ...conflictRoutes,
  ...convertRoutes,
  ...assetRoutes,
  ...assetFileRoutes,
  // Clients of the product
  ...sandboxRoutes,
  ...serviceCloneRoutes,
  ...mockSettingRoutes,
  ...locationRoutes,
]
