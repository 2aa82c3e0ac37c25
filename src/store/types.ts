import type { TransactionDsl } from '../dsl/index.js'

/*
 * The control plane's records, as the store keeps them. Field names follow the mock services
 * specification (mock services) and the administration specification (administration); the API
 * layer turns them into the exact response shapes. Timestamps are epoch milliseconds here; the API
 * converts to the units each resource shows (epoch seconds, ISO 8601).
 */

export interface Account {
  id: number
  name: string
  created: number
  updated: number
}

export interface User {
  id: number
  email: string
  firstName: string
  lastName: string
  enabled: boolean
  /** Roles at account level (the administration specification: admin, owner, standard, user_manager). */
  accountRoles: string[]
  accountId: number
  created: number
  lastAccess: number | null
}

export interface Workspace {
  id: number
  accountId: number
  name: string
  enabled: boolean
  dedicatedIpsEnabled: boolean
  privateLocationsEnabled: boolean
  /** The user who created it (`userId`, `owner` in the administration specification). */
  userId: number
  created: number
  updated: number
}

/** An API key: `id` is the public key id, the secret is kept only as a hash. */
export interface ApiKey {
  id: string
  userId: number
  name: string
  /** scrypt hash of the secret, `salt:hash` in hex. */
  secretHash: string
  created: number
  lastUsed: number | null
  /** When it was revoked (epoch ms); a revoked key is refused on its next request. */
  revoked: number | null
}

/** Who made a change: the `createdBy` / `updatedBy` strings (the user's email). */
export interface Audit {
  created: number
  updated: number
  createdBy: string
  updatedBy: string
}

export interface Service extends Audit {
  id: number
  workspaceId: number
  name: string
  description: string | null
}

export interface Tag extends Audit {
  id: number
  accountId: number
  name: string
  description: string | null
}

export interface StoredTransaction extends Audit {
  id: number
  workspaceId: number
  serviceId: number
  name: string
  description: string | null
  tags: string[]
  /** The dsl type key it came from (GENERIC_DSL, HAR_DSL, RR_PAIR, OPENAPI_DSL...). */
  dslType: string
  dsl: TransactionDsl
}

/** Mock service record statuses of the mock services specification: STOPPED and RUNNING are shown; the rest are ours. */
export type MockServiceStatus = 'STOPPED' | 'PENDING' | 'RUNNING' | 'FAILED'

export interface MockServiceTransactionRef {
  txnId: number
  priority: number | null
}

export interface MockService extends Audit {
  id: number
  workspaceId: number
  serviceId: number
  name: string
  description: string | null
  /** `TRANSACTIONAL` or `SV` (asset-based). */
  type: string
  status: MockServiceStatus
  harborId: string | null
  shipId: string | null
  bridgeId: number | null
  registryId: number | null
  vseId: number | null
  platformVseId: number | null
  endpointPreference: 'HTTP' | 'HTTPS' | null
  liveSystemHost: string | null
  liveSystemPort: number | null
  /** Integer milliseconds, as the mock services specification shows. */
  thinkTime: number | null
  capacity: number | null
  replicas: number | null
  noMatchingRequestPreference: string
  noMatchingRequestTxnId: number | null
  mockServiceTransactions: MockServiceTransactionRef[]
  tags: string[]
  groupTag: string | null
  assetId: number | null
  httpEndpoint: string | null
  httpsEndpoint: string | null
  /** Port the deployer gave it, kept so that it comes back on the same port after a restart. */
  port: number | null
  tlsPort: number | null
  deployDate: number | null
  pendingUpdate: boolean
  // --- dynamic responses, as the mock-service document writes them (docs/dsl.md); absent: off ---
  cors: boolean | Record<string, unknown> | null
  faults: string | Record<string, unknown> | null
  templateSeed: number | null
  /** `requestDsl.host` is matched against the Host header (the document's `matchHost`). */
  matchHost: boolean
  /** The outbound proxy of its live pass-through; null (or absent): direct. */
  proxy?: MockServiceProxy | null
}

/** The product's mock-service `proxy` object, as stored (the password as given: it must be sent). */
export interface MockServiceProxy {
  proxyUrl: string
  nonProxyHosts: string | null
  username: string | null
  password: string | null
}

export type AssetType = 'MAR' | 'FILE_IN_ROOT' | 'FILE_IN_PATH' | 'FILE_IN_CLASSPATH'

export interface Asset extends Audit {
  id: number
  workspaceId: number
  serviceId: number | null
  name: string
  description: string | null
  type: AssetType
  fileId: string
  folderId: string | null
  platformVseId: number | null
  tags: string[]
  primaryMetadata: Record<string, unknown>
  secondaryMetadata: Record<string, unknown>
  /** Bytes of the stored file. */
  size: number
  sha256: string
  contentType: string | null
}

export type TrackingStatus = 'PENDING' | 'RUNNING' | 'FINISHED' | 'FAILED'
export type TrackingAction = 'deploy' | 'configure' | 'stop'

export interface Tracking {
  trackingId: string
  workspaceId: number
  mockServiceId: number
  action: TrackingAction
  status: TrackingStatus
  errors: Array<{ code: string; message: string }>
  warnings: Array<{ code: string; message: string }>
  created: number
  updated: number
  ended: number | null
  createdBy: string | null
}

/** A finished service clone: the tracking `POST .../services/clone` answers. */
export interface CloneTracking {
  trackingId: string
  workspaceId: number
  /** The new service. */
  serviceId: number
  created: number
  createdBy: string | null
}

/** The sandbox a user has open in a workspace: the transaction a test request without one is tried against. */
export interface Sandbox {
  workspaceId: number
  userId: number
  transactionId: number
  /** Epoch milliseconds. */
  opened: number
}

/**
 * A private location of an account (the administration specification's locations starting with `harbor-`): where agents
 * (ships) run mock services. Offered to the workspaces in `workspaceIds`.
 */
export interface Harbor {
  id: string
  accountId: number
  name: string
  /** Who created it; null once that user is gone. */
  userId: number | null
  workspaceIds: number[]
  created: number
  updated: number
}

/** What a ship reports of itself: `empty` until its agent first connects. */
export type ShipState = 'empty' | 'ready' | 'lost'

/** An agent of a harbor. Its token is kept only as a scrypt hash (`salt:hash` in hex). */
export interface Ship {
  id: string
  harborId: string
  name: string
  /** The address the agent is reached at, as given at creation (informative). */
  address: string | null
  tokenHash: string
  state: ShipState
  /** Epoch milliseconds of its agent's last heartbeat, null before the first. */
  lastHeartbeat: number | null
  created: number
  updated: number
  /** Bytes of memory its agent and runtimes use, as its last heartbeat said; null before the first. */
  memoryUsage: number | null
  /** Mock services running there, as its last heartbeat said. */
  msRunningCount: number | null
  /** Transactions its runtimes served, as its last heartbeat said. */
  transactionsCount: number | null
  /** The agent's version (`understudy --version`), as its last heartbeat said. */
  agentVersion: string | null
  /** The host name clients reach its mock services at (`--advertise-host`). */
  advertiseHost: string | null
  /** Monitoring regions its agent serves (`--monitor --region R`), as its last heartbeat said. */
  regions: string[] | null
  /** Version of its desired state: bumped whenever a mock service is placed on it, changed or taken off. */
  workVersion: number
  /** Its id among the virtual service environments (`platformvses`); 1 is the platform's local host. */
  environmentId: number | null
}

/** What an agent's heartbeat tells of its ship. */
export interface ShipFigures {
  memoryUsage: number
  msRunningCount: number
  transactionsCount: number
  agentVersion: string
  advertiseHost: string | null
  regions: string[] | null
}

/** Whether a mock service placed on a ship should run there. */
export type DesiredState = 'RUNNING' | 'STOPPED'

/**
 * A mock service placed on a ship: what its agent must run (the desired state), with the document
 * it serves and that document's hash, so that a change of document is told from a restart.
 */
export interface ShipAssignment {
  mockServiceId: number
  harborId: string
  shipId: string
  desired: DesiredState
  /** The mock-service document (the DSL's MockServiceDocument), as the deployer builds it. */
  document: Record<string, unknown>
  documentHash: string
  /** The tracking of the last action asked of the agent, finished by its report. */
  trackingId: string | null
  /** Epoch milliseconds: when it was placed on this ship. */
  placed: number
  updated: number
}

/**
 * Which platform instance may run a mock service's local runtime, until when, and the process
 * running now (docs/deploy.md "High availability").
 */
export interface RuntimeLease {
  mockServiceId: number
  /** The instance holding the lease: its host and a random id of its process. */
  holder: string
  /** The holder's host and data dir: the same platform restarted re-adopts what it ran. */
  home: string
  /** Epoch milliseconds the lease lasts until unless renewed; 0 once released. */
  expires: number
  /** Another instance asking for the runtime (it was sent a deploy, stop or delete), or null. */
  handover: string | null
  /** The id the running process was started with (its admin token derives from it), or null. */
  startId: string | null
  /** The running process's admin API, or null when nothing runs. */
  adminUrl: string | null
  pid: number | null
  /** The mock-service document last deployed, which an instance taking over starts. */
  document: Record<string, unknown> | null
  updated: number
}

export interface LogSnapshot {
  logId: number
  mockServiceId: number
  trackingId: string | null
  log: string
  created: number
}

/** A page of a list: the items and the total before paging. */
export interface Page<T> {
  items: T[]
  total: number
}

/** The lists whose totals migration 23 keeps in `list_counts`, named as its `scope_kind` column holds them. */
export type CountedList =
  | 'users'
  | 'workspaces'
  | 'account_members'
  | 'workspace_members'
  | 'invitations'
  | 'tags'
  | 'services'
  | 'mock_services'
  | 'assets'

/** Paging and sorting of list queries (`limit`, `skip`, `sort`: docs/decisions.md#lists). */
export interface ListQuery {
  limit: number
  skip: number
  /** A field name; a leading `-` sorts descending. */
  sort?: string
}

/**
 * A mock service template or configuration: a named JSON body per workspace.
 * Configurations hold `{configurationMap: {key: {type, value}}}`; templates the settings of a
 * mock service (`thinkTime`, `mockServiceTransactions`, ...).
 */
export type MockSettingKind = 'configuration' | 'template'

export interface MockSetting extends Audit {
  id: number
  workspaceId: number
  kind: MockSettingKind
  name: string
  description: string | null
  body: Record<string, unknown>
}

/* Tenancy: who belongs where, invitations, projects. */

/** Account roles of the administration specification. */
export const ACCOUNT_ROLES = ['owner', 'admin', 'user_manager', 'standard'] as const
/** Workspace roles of the administration specification, strongest first. */
export const WORKSPACE_ROLES = ['manager', 'tester', 'viewer'] as const
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number]

/** A user's place in an account. */
export interface AccountMember {
  accountId: number
  userId: number
  roles: string[]
  enabled: boolean
  created: number
  updated: number
}

/** A user's role in a workspace. */
export interface WorkspaceMember {
  workspaceId: number
  userId: number
  role: WorkspaceRole
  enabled: boolean
  created: number
  updated: number
}

/** The account fields the administration specification shows beyond id and name. */
export interface AccountProfile {
  id: number
  description: string | null
  aiConsent: boolean
  welcomeLinkText: string | null
  welcomeLinkUrl: string | null
}

export type InvitationStatus = 'pending' | 'accepted' | 'rejected'

export interface Invitation {
  id: string
  token: string
  accountId: number
  inviteeEmail: string
  accountRoles: string[]
  workspaceIds: number[]
  workspaceRoles: string[]
  attachAutomatically: boolean
  status: InvitationStatus
  invitedById: number | null
  inviteeUserId: number | null
  created: number
  updated: number
}

export interface Project {
  id: number
  workspaceId: number
  name: string
  description: string | null
  isDefault: boolean
  userId: number | null
  created: number
  updated: number
}
