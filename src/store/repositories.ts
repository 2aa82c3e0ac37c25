import type {
  Account,
  AccountMember,
  AccountProfile,
  ApiKey,
  Invitation,
  InvitationStatus,
  Project,
  WorkspaceMember,
  WorkspaceRole,
  Asset,
  ListQuery,
  LogSnapshot,
  MockService,
  MockServiceStatus,
  MockSetting,
  MockSettingKind,
  Page,
  Service,
  StoredTransaction,
  Tag,
  Sandbox,
  Harbor,
  Ship,
  ShipAssignment,
  ShipFigures,
  RuntimeLease,
  Tracking,
  TrackingAction,
  CloneTracking,
  User,
  Workspace,
} from './types.js'
import type { MonitoringRepository, OAuthRepository } from './monitoring.js'

/*
 * The persistence contract of the control plane. Every method is asynchronous so that a
 * PostgreSQL implementation can stand in for the SQLite one without touching the API layer.
 * Lookups scoped by workspace (or account) return undefined for a record of another scope:
 * scope checks cannot be forgotten by a caller.
 *
 * `by` is the acting user's email, recorded in createdBy/updatedBy.
 */

/** Fields a caller sets when creating a record; the store assigns id and timestamps. */
type New<T, Omit_ extends keyof T = never> = Omit<T, 'id' | 'created' | 'updated' | Omit_>

export interface AccountRepository {
  create: (input: { name: string }) => Promise<Account>
  get: (id: number) => Promise<Account | undefined>
  count: () => Promise<number>
}

export interface UserRepository {
  create: (input: New<User, 'lastAccess'>) => Promise<User>
  get: (id: number) => Promise<User | undefined>
  getByEmail: (email: string) => Promise<User | undefined>
  listByAccount: (accountId: number, query: ListQuery) => Promise<Page<User>>
  update: (
    id: number,
    patch: Partial<
      Pick<User, 'firstName' | 'lastName' | 'enabled' | 'accountRoles' | 'lastAccess'>
    >,
  ) => Promise<User | undefined>
}

export interface ApiKeyRepository {
  create: (input: Omit<ApiKey, 'created' | 'lastUsed' | 'revoked'>) => Promise<ApiKey>
  get: (id: string) => Promise<ApiKey | undefined>
  /** Records a use; cheap, and allowed to be skipped under load. */
  touch: (id: string, when: number) => Promise<void>
}

export interface WorkspaceRepository {
  create: (input: New<Workspace>) => Promise<Workspace>
  get: (id: number) => Promise<Workspace | undefined>
  listByAccount: (accountId: number, query: ListQuery) => Promise<Page<Workspace>>
  update: (
    id: number,
    patch: Partial<
      Pick<Workspace, 'name' | 'enabled' | 'dedicatedIpsEnabled' | 'privateLocationsEnabled'>
    >,
  ) => Promise<Workspace | undefined>
}

export interface ServiceRepository {
  create: (input: {
    workspaceId: number
    name: string
    description: string | null
    by: string
  }) => Promise<Service>
  get: (workspaceId: number, id: number) => Promise<Service | undefined>
  getByName: (workspaceId: number, name: string) => Promise<Service | undefined>
  list: (workspaceId: number, query: ListQuery) => Promise<Page<Service>>
  update: (
    workspaceId: number,
    id: number,
    patch: { name?: string; description?: string | null; by: string },
  ) => Promise<Service | undefined>
  /** False when it did not exist. */
  delete: (workspaceId: number, id: number) => Promise<boolean>
}

export interface TagRepository {
  create: (input: {
    accountId: number
    name: string
    description: string | null
    by: string
  }) => Promise<Tag>
  get: (accountId: number, id: number) => Promise<Tag | undefined>
  getByName: (accountId: number, name: string) => Promise<Tag | undefined>
  list: (accountId: number, query: ListQuery) => Promise<Page<Tag>>
  update: (
    accountId: number,
    id: number,
    patch: { name?: string; description?: string | null; by: string },
  ) => Promise<Tag | undefined>
  delete: (accountId: number, id: number) => Promise<boolean>
  /** The tags of these names, creating those that do not exist yet (the mock services specification: "a tag used in a request that does not exist yet is created"). */
  ensure: (accountId: number, names: readonly string[], by: string) => Promise<Tag[]>
}

/** Filters of the transaction list (the mock services specification: substring, name, service, tags, dsl type). */
export interface TransactionFilter {
  serviceId?: number
  /** Exact name. */
  name?: string
  /** Case-insensitive substring of the name or description. */
  contains?: string
  /** Transactions carrying every one of these tags. */
  tags?: string[]
  dslType?: string
  ids?: number[]
}

/** A transaction of an import, encoded: see `TransactionRepository.createEncodedMany`. */
export interface EncodedTransactionRow {
  name: string
  description: string | null
  dslType: string
  tags: readonly string[]
  dslJson: string | Uint8Array
}

export interface TransactionRepository {
  create: (
    input: New<StoredTransaction, keyof AuditFields> & { by: string },
  ) => Promise<StoredTransaction>
  /**
   * `create` for imports of many transactions into one service, a run of rows at a time: each
   * DSL comes as the JSON text to keep (the caller validated it), as a string or as its UTF-8
   * bytes (stored as they are, never decoded in JavaScript), and only the new ids are returned, in
   * order, so that nothing is parsed back. A run is inserted in one synchronous step: the caller
   * keeps runs short and gives the event loop a turn between them.
   */
  createEncodedMany: (
    into: { workspaceId: number; serviceId: number; by: string },
    rows: readonly EncodedTransactionRow[],
  ) => Promise<number[]>
  /**
   * Gives a transaction of the workspace another encoded row's name, description, dsl type, DSL
   * and tags (its id, service and audit fields stay): an import that stored its rows before
   * their order was known moves them into place. False when there is no such row.
   */
  rewriteEncoded: (workspaceId: number, id: number, row: EncodedTransactionRow) => Promise<boolean>
  get: (workspaceId: number, id: number) => Promise<StoredTransaction | undefined>
  /**
   * The service of each of `ids` that exists in the workspace (an id missing from the map does
   * not): what checking many references needs, in a statement per few hundred ids.
   */
  servicesOf: (workspaceId: number, ids: readonly number[]) => Promise<Map<number, number>>
  list: (
    workspaceId: number,
    filter: TransactionFilter,
    query: ListQuery,
  ) => Promise<Page<StoredTransaction>>
  update: (
    workspaceId: number,
    id: number,
    patch: Partial<
      Pick<StoredTransaction, 'name' | 'description' | 'tags' | 'dsl' | 'serviceId' | 'dslType'>
    > & { by: string },
  ) => Promise<StoredTransaction | undefined>
  delete: (workspaceId: number, id: number) => Promise<boolean>
  /** Deletes those of `ids` that exist in the workspace; returns the ids deleted. */
  deleteMany: (workspaceId: number, ids: readonly number[]) => Promise<number[]>
  /** Adds (or removes) tags on those of `ids` that exist; returns the ids changed. */
  changeTags: (
    workspaceId: number,
    ids: readonly number[],
    tags: { add?: readonly string[]; remove?: readonly string[] },
    by: string,
  ) => Promise<number[]>
}

/** createdBy/updatedBy and timestamps: set by the store. */
interface AuditFields {
  createdBy: string
  updatedBy: string
}

export interface MockServiceRepository {
  create: (input: New<MockService, keyof AuditFields> & { by: string }) => Promise<MockService>
  get: (workspaceId: number, id: number) => Promise<MockService | undefined>
  /** For the deployer and trackings, which act for the platform, not for a workspace. */
  getById: (id: number) => Promise<MockService | undefined>
  list: (
    workspaceId: number,
    filter: { serviceId?: number },
    query: ListQuery,
  ) => Promise<Page<MockService>>
  listByStatus: (statuses: readonly MockServiceStatus[]) => Promise<MockService[]>
  update: (
    id: number,
    patch: Partial<Omit<MockService, 'id' | 'workspaceId' | 'created' | 'createdBy'>> & {
      by?: string
    },
  ) => Promise<MockService | undefined>
  delete: (workspaceId: number, id: number) => Promise<boolean>
  /** How many mock services use a service (a service in use cannot be deleted). */
  countByService: (workspaceId: number, serviceId: number) => Promise<number>
  /** Ports given to mock services, so that the deployer does not hand one out twice. */
  usedPorts: () => Promise<number[]>
}

export interface AssetRepository {
  create: (input: New<Asset, keyof AuditFields> & { by: string }) => Promise<Asset>
  get: (workspaceId: number, id: number) => Promise<Asset | undefined>
  list: (
    workspaceId: number,
    filter: { serviceId?: number },
    query: ListQuery,
  ) => Promise<Page<Asset>>
  update: (
    workspaceId: number,
    id: number,
    patch: Partial<
      Pick<
        Asset,
        'description' | 'primaryMetadata' | 'secondaryMetadata' | 'serviceId' | 'tags' | 'name'
      >
    > & { by: string },
  ) => Promise<Asset | undefined>
  delete: (workspaceId: number, id: number) => Promise<boolean>
  /** The asset of this service (null = none) with this name, other than `idToIgnore`. */
  findByName: (
    workspaceId: number,
    serviceId: number | null,
    name: string,
    idToIgnore?: number,
  ) => Promise<Asset | undefined>
  /** Every file id an asset row points to, in every workspace (to find orphaned files at start). */
  fileIds: () => Promise<Set<string>>
}

export interface CloneTrackingRepository {
  create: (input: Omit<CloneTracking, 'created'>) => Promise<CloneTracking>
  get: (trackingId: string) => Promise<CloneTracking | undefined>
}

export interface TrackingRepository {
  create: (input: Omit<Tracking, 'created' | 'updated' | 'ended'>) => Promise<Tracking>
  get: (trackingId: string) => Promise<Tracking | undefined>
  update: (
    trackingId: string,
    patch: Partial<Pick<Tracking, 'status' | 'errors' | 'warnings' | 'ended'>>,
  ) => Promise<Tracking | undefined>
  /** The newest tracking of a mock service for an action (its last deploy, say), or undefined. */
  latestOf: (mockServiceId: number, action: TrackingAction) => Promise<Tracking | undefined>
}

export interface SandboxRepository {
  /** Opens (or replaces) the user's sandbox in the workspace. */
  open: (input: Omit<Sandbox, 'opened'>) => Promise<Sandbox>
  get: (workspaceId: number, userId: number) => Promise<Sandbox | undefined>
}

/**
 * Private locations (harbors) and their agents (ships). A harbor belongs to an account: lookups
 * name the accounts the caller is in, so another account's harbor is never found.
 */
export interface LocationRepository {
  createHarbor: (input: Omit<Harbor, 'created' | 'updated'>) => Promise<Harbor>
  /** The harbor, if it belongs to one of `accountIds`. */
  harbor: (accountIds: readonly number[], id: string) => Promise<Harbor | undefined>
  /** The harbors of an account; with `workspaceIds`, only those offered to at least one of them. */
  harbors: (
    filter: { accountId: number; workspaceIds?: readonly number[] },
    query: ListQuery,
  ) => Promise<Page<Harbor>>
  createShip: (
    input: Pick<Ship, 'id' | 'harborId' | 'name' | 'address' | 'tokenHash'>,
  ) => Promise<Ship>
  /** The ships of these harbors, oldest first. */
  ships: (harborIds: readonly string[]) => Promise<Ship[]>
  ship: (harborId: string, id: string) => Promise<Ship | undefined>
  /** The ship shown as this virtual service environment (`platformvses` id), if any. */
  shipByEnvironment: (environmentId: number) => Promise<Ship | undefined>
  /** False when it did not exist in that harbor. */
  deleteShip: (harborId: string, id: string) => Promise<boolean>
  /** Records a heartbeat: the ship is `ready`, seen now, with these figures. */
  heartbeat: (harborId: string, id: string, figures: ShipFigures) => Promise<Ship | undefined>
  /** How many `ready` ships were last seen before `cutoff` (epoch ms): a read, before any write. */
  countSilent: (cutoff: number) => Promise<number>
  /** Marks `lost` every `ready` ship last seen before `cutoff` (epoch ms); answers those ships. */
  markLost: (cutoff: number) => Promise<Ship[]>
}

/** Which mock service runs on which ship (the agents' desired state). */
export interface PlacementRepository {
  /**
   * Places (or re-places, or changes) a mock service on a ship; bumps the work version of that
   * ship and of the ship it leaves, if another.
   */
  assign: (input: Omit<ShipAssignment, 'placed' | 'updated'>) => Promise<ShipAssignment>
  get: (mockServiceId: number) => Promise<ShipAssignment | undefined>
  /** The mock services placed on a ship, by id. */
  ofShip: (shipId: string) => Promise<ShipAssignment[]>
  /** The mock services placed in a harbor (on any of its ships). */
  ofHarbor: (harborId: string) => Promise<ShipAssignment[]>
  /** Takes a mock service off its ship (bumping that ship's work version); false when it was on none. */
  remove: (mockServiceId: number) => Promise<boolean>
}

/** What the running runtime of a leased mock service is, as its holder records it. */
export type RuntimeLeaseFacts = Partial<
  Pick<RuntimeLease, 'startId' | 'adminUrl' | 'pid' | 'document'>
>

/**
 * Leases of the local runtimes: which platform instance sharing the database runs each one. A
 * lease is taken atomically (an expired or released one by anyone, a live one only by its holder,
 * or by the holder's restarted self when `adopt`), renewed by its holder, and handed over on
 * request.
 */
export interface RuntimeLeaseRepository {
  /**
   * Takes (or keeps) the lease of `holder` until `expires` when it is free, expired, already its
   * own, or (with `adopt`) held by a process of the same `home`; answers the lease as it is then,
   * whoever holds it. A lease changing hands forgets the process the old holder ran.
   */
  claim: (input: {
    mockServiceId: number
    holder: string
    home: string
    now: number
    expires: number
    adopt: boolean
  }) => Promise<RuntimeLease>
  get: (mockServiceId: number) => Promise<RuntimeLease | undefined>
  /**
   * Extends every lease `holder` has not released to `expires`; answers them (with any handover
   * asked of it).
   */
  renew: (holder: string, expires: number) => Promise<RuntimeLease[]>
  /** Asks the holder of another instance's lease to hand it to `requester`. */
  requestHandover: (mockServiceId: number, requester: string) => Promise<void>
  /** Passes a lease `from` its holder to the instance that asked for it; false when `from` no longer holds it. */
  handOver: (mockServiceId: number, from: string, to: string, expires: number) => Promise<boolean>
  /** Records what `holder` runs for the mock service; false when it no longer holds the lease. */
  record: (mockServiceId: number, holder: string, facts: RuntimeLeaseFacts) => Promise<boolean>
  /** Releases every lease of `holder` (it is stopping): another instance may take them at once. */
  releaseAll: (holder: string) => Promise<number>
  /** Forgets the lease (the mock service is deleted); false when `holder` did not hold it. */
  remove: (mockServiceId: number, holder: string) => Promise<boolean>
  /** Leases expired (or released) before `now` of mock services RUNNING or PENDING, by id. */
  expired: (now: number) => Promise<RuntimeLease[]>
  /**
   * The secret the instances of the database share under `name`: `candidate` is stored when
   * there is none yet (the first instance to ask), and the stored one answered.
   */
  sharedSecret: (name: string, candidate: string) => Promise<string>
}

export interface LogSnapshotRepository {
  create: (input: Omit<LogSnapshot, 'logId' | 'created'>) => Promise<LogSnapshot>
  get: (mockServiceId: number, logId: number) => Promise<LogSnapshot | undefined>
}

/** Mock service templates and configurations, and which configuration a mock service uses. */
export interface MockSettingRepository {
  create: (input: New<MockSetting, keyof AuditFields> & { by: string }) => Promise<MockSetting>
  get: (workspaceId: number, kind: MockSettingKind, id: number) => Promise<MockSetting | undefined>
  list: (workspaceId: number, kind: MockSettingKind, query: ListQuery) => Promise<Page<MockSetting>>
  update: (
    workspaceId: number,
    kind: MockSettingKind,
    id: number,
    patch: {
      name?: string
      description?: string | null
      body?: Record<string, unknown>
      by: string
    },
  ) => Promise<MockSetting | undefined>
  /** Sets (or, with null, clears) the configuration of a mock service. */
  setConfiguration: (mockServiceId: number, configurationId: number | null) => Promise<void>
  configurationOf: (mockServiceId: number) => Promise<number | null>
}

/**
 * Tenancy: account members, workspace members, invitations, projects, account profiles
 * and API key management. Kept apart from the original admin records so that their shapes stay
 * as they were.
 */
export interface TenancyRepository {
  /** Every account membership of a user (enabled or not). */
  membershipsOf: (userId: number) => Promise<AccountMember[]>
  member: (accountId: number, userId: number) => Promise<AccountMember | undefined>
  members: (accountId: number, query: ListQuery) => Promise<Page<AccountMember & { user: User }>>
  /** Creates or replaces a membership. */
  setMember: (input: {
    accountId: number
    userId: number
    roles: string[]
    enabled: boolean
  }) => Promise<AccountMember>
  /** Enabled members of an account holding a role. */
  countWithRole: (accountId: number, role: string) => Promise<number>
  accountsOf: (userId: number, query: ListQuery) => Promise<Page<Account>>
  profile: (accountId: number) => Promise<AccountProfile | undefined>
  updateProfile: (
    accountId: number,
    patch: { [K in keyof Omit<AccountProfile, 'id'>]?: AccountProfile[K] | undefined },
  ) => Promise<AccountProfile | undefined>
  renameAccount: (accountId: number, name: string) => Promise<boolean>
  /** The platform's first account (the bootstrap's): its owners and admins operate the platform. */
  firstAccountId: () => Promise<number | undefined>

  workspaceMember: (workspaceId: number, userId: number) => Promise<WorkspaceMember | undefined>
  workspaceMembers: (
    workspaceId: number,
    query: ListQuery,
  ) => Promise<Page<WorkspaceMember & { user: User }>>
  setWorkspaceMember: (input: {
    workspaceId: number
    userId: number
    role: WorkspaceRole
    enabled: boolean
  }) => Promise<WorkspaceMember>
  removeWorkspaceMember: (workspaceId: number, userId: number) => Promise<boolean>
  /** Members per workspace, for the list view's `membersCount`. */
  countWorkspaceMembers: (workspaceIds: readonly number[]) => Promise<Map<number, number>>
  /** The workspaces of an account a user is an enabled member of, with the role. */
  workspaceRolesOf: (accountId: number, userId: number) => Promise<WorkspaceMember[]>

  createInvitation: (input: Omit<Invitation, 'created' | 'updated'>) => Promise<Invitation>
  invitationByToken: (token: string) => Promise<Invitation | undefined>
  invitations: (accountId: number, query: ListQuery) => Promise<Page<Invitation>>
  pendingInvitation: (accountId: number, email: string) => Promise<Invitation | undefined>
  setInvitationStatus: (
    id: string,
    status: InvitationStatus,
    inviteeUserId: number | null,
  ) => Promise<Invitation | undefined>

  createProject: (input: {
    workspaceId: number
    name: string
    description: string | null
    isDefault: boolean
    userId: number | null
  }) => Promise<Project>
  project: (id: number) => Promise<Project | undefined>
  projects: (
    filter: { workspaceIds: readonly number[]; name?: string },
    query: ListQuery,
  ) => Promise<Page<Project>>
  defaultProject: (workspaceId: number) => Promise<Project | undefined>

  apiKeysOf: (userId: number) => Promise<ApiKey[]>
  /** False when the key does not exist or is not this user's. */
  revokeApiKey: (userId: number, id: string) => Promise<boolean>
  setActiveWorkspace: (userId: number, workspaceId: number | null) => Promise<void>
  userExtras: (
    userId: number,
  ) => Promise<{ updated: number; activeWorkspaceId: number | null } | undefined>
}

/** One compiled search: a parameterised SELECT and COUNT (src/store/sqlite/search.ts builds them). */
export interface CompiledSearch {
  sql: string
  countSql: string
  params: Record<string, unknown>
}

export interface SearchRepository {
  /** The SQL the store speaks: what `compileSearch` must compile to for `run`. */
  readonly dialect: 'sqlite' | 'postgres'
  /** Runs a compiled search in one snapshot: the rows (flat, `a__b` for relation columns) and the total. */
  run: (
    compiled: CompiledSearch,
  ) => Promise<{ rows: Array<Record<string, unknown>>; total: number }>
}

/** A signed-in dashboard session as stored: by a hash of its id, its content sealed under that id. */
export interface StoredUiSession {
  /** SHA-256 (hex) of the session id; the id itself is never stored. */
  idHash: string
  apiKeyId: string
  /** The user and OAuth token the session's monitoring requests use (revoked when it ends). */
  userId: number | null
  monitorTokenId: string | null
  /** The session's secrets, encrypted under a key only the session id gives. */
  sealed: string
  created: number
  lastSeen: number
}

/** Dashboard sessions, shared by every platform instance on the store. */
export interface UiSessionRepository {
  /** Stores a session; past `max` sessions the oldest are removed and answered (to revoke their tokens). */
  create: (session: StoredUiSession, max: number) => Promise<StoredUiSession[]>
  get: (idHash: string) => Promise<StoredUiSession | undefined>
  /** Moves a session's last request time forward (never back). */
  touch: (idHash: string, lastSeen: number) => Promise<void>
  /** Removes a session; answers it, or undefined when it was gone already. */
  delete: (idHash: string) => Promise<StoredUiSession | undefined>
  /** Removes the sessions idle since before `idleBefore` or created before `createdBefore`; answers them. */
  sweep: (idleBefore: number, createdBefore: number) => Promise<StoredUiSession[]>
}

/** The failed-secret throttle's counters, in fixed windows, shared by every platform instance. */
export interface AuthFailureRepository {
  /** The counts of those counters whose window has not ended at `now` (absent: none). */
  counts: (
    counters: readonly string[],
    now: number,
  ) => Promise<Map<string, { count: number; expires: number }>>
  /**
   * Counts one failure on each counter: in its window, or in a new one ending `now + windowMs`
   * when the last has ended. Answers each counter's count and window end after it.
   */
  bump: (
    counters: readonly string[],
    now: number,
    windowMs: number,
  ) => Promise<Map<string, { count: number; expires: number }>>
  /** Removes the counters whose window ended before `now`, then the soonest-ending past `max`. */
  sweep: (now: number, max: number) => Promise<number>
}

/** The log lines agents report for the mock services they run (the newest, bounded). */
export interface AgentLogRepository {
  /** Replaces a mock service's lines. */
  put: (mockServiceId: number, lines: readonly string[]) => Promise<void>
  /** The lines last reported, oldest first; undefined when no agent reported any. */
  get: (mockServiceId: number) => Promise<string[] | undefined>
  delete: (mockServiceId: number) => Promise<void>
}

/** An admin call relayed to an agent, as it is queued and as its agent takes it. */
export interface StoredAdminCall {
  callId: string
  harborId: string
  shipId: string
  mockServiceId: number
  method: string
  path: string
  /** The JSON body as text, or null without one. */
  json: string | null
  /** How long the agent gives its runtime to answer. */
  timeoutMs: number
}

/** A runtime's answer to a relayed call, as its agent posted it (the body as JSON text). */
export interface StoredAdminAnswer {
  status: number
  body: string
}

/**
 * The mailbox of admin calls relayed to agents, shared by every platform instance on the store.
 * Times are epoch milliseconds of the caller's clock.
 */
export interface AdminCallRepository {
  /** Queues a call: its agent may take it until `takeBy`, then has `answerWithinMs` to answer. */
  queue: (
    call: StoredAdminCall & { created: number; takeBy: number; answerWithinMs: number },
  ) => Promise<void>
  /**
   * Takes up to `max` calls queued for the ship whose take window is open at `now`, oldest first.
   * A call is taken once: two takers running at the same time never both get it.
   */
  take: (shipId: string, max: number, now: number) => Promise<StoredAdminCall[]>
  /** Stores the answer to a call the ship took and has not answered; false when there is none. */
  answer: (
    shipId: string,
    callId: string,
    answer: StoredAdminAnswer,
    now: number,
  ) => Promise<boolean>
  /** Deletes an answered call and hands its answer back; undefined while it has none. */
  collect: (callId: string) => Promise<StoredAdminAnswer | undefined>
  /** Deletes a call no agent took yet; false when it was taken (or is gone). */
  withdrawQueued: (callId: string) => Promise<boolean>
  /** When the agent that took a call must have answered; undefined when it is not taken. */
  answerBy: (callId: string) => Promise<number | undefined>
  /** Deletes a call whatever its state, handing back an answer that arrived meanwhile. */
  withdraw: (callId: string) => Promise<StoredAdminAnswer | undefined>
  /** Deletes the calls whose life ended before `before` (their caller is gone); answers how many. */
  sweep: (before: number) => Promise<number>
}

/**
 * Asset bytes in the store, in chunks by file id and position (the platform on PostgreSQL keeps
 * its asset files so, for every instance to read them).
 */
export interface AssetChunkRepository {
  /** Writes one chunk of a file, stamped `created` (ms). */
  put: (fileId: string, seq: number, bytes: Uint8Array, created: number) => Promise<void>
  /** The chunks of a file, in order, at most `limit` from position `from`. */
  read: (fileId: string, from: number, limit: number) => Promise<Buffer[]>
  delete: (fileId: string) => Promise<void>
  /** The files with a chunk written before `before` (ms). */
  filesBefore: (before: number) => Promise<string[]>
}

/** The inspection records a mock service's runtimes left when they stopped. */
export interface KeptInspectionRepository {
  /** The version of a mock service's kept records, undefined when none are kept. */
  version: (mockServiceId: number) => Promise<number | undefined>
  /** The entries (JSON text) and their version. */
  entries: (mockServiceId: number) => Promise<{ entries: string; version: number } | undefined>
  /** All the details bytes, or the `length` bytes from `offset` (0-based) when given. */
  details: (
    mockServiceId: number,
    range?: { offset: number; length: number },
  ) => Promise<Buffer | undefined>
  /** Replaces them, in one statement, with the next version. */
  put: (mockServiceId: number, entries: string, details: Uint8Array | null) => Promise<void>
  delete: (mockServiceId: number) => Promise<void>
}

/** Local monitoring runs left by a platform instance that died. */
export interface LocalRunRepository {
  /**
   * Takes the abandoned local runs (queued or working, lease ended before `now` or none, fewer
   * than `maxAttempts` takeovers) under `leaseId` until `expires`, queued again; answers their ids.
   */
  takeOver: (input: {
    leaseId: string
    now: number
    expires: number
    maxAttempts: number
  }) => Promise<string[]>
}

/** Every repository, as one bag: what a request handler and a write transaction see. */
export interface Repositories {
  accounts: AccountRepository
  users: UserRepository
  apiKeys: ApiKeyRepository
  workspaces: WorkspaceRepository
  services: ServiceRepository
  tags: TagRepository
  transactions: TransactionRepository
  mockServices: MockServiceRepository
  assets: AssetRepository
  trackings: TrackingRepository
  /** Trackings of service clones (they belong to a workspace, not to a mock service). */
  cloneTrackings: CloneTrackingRepository
  logs: LogSnapshotRepository
  /** The sandbox each user has open per workspace (the mock services specification's sandbox flow). */
  sandboxes: SandboxRepository
  /** Private locations (harbors) and their agents (ships). */
  locations: LocationRepository
  /** The mock services placed on ships. */
  placements: PlacementRepository
  /** Which platform instance runs each local runtime. */
  runtimeLeases: RuntimeLeaseRepository
  mockSettings: MockSettingRepository
  tenancy: TenancyRepository
  search: SearchRepository
  /** API monitoring (the monitoring specification): buckets, tests, environments, schedules, runs, revisions. */
  monitoring: MonitoringRepository
  /** The monitoring API's OAuth 2.0 provider. */
  oauth: OAuthRepository
  /** Dashboard sessions (every platform instance on the store sees the same). */
  uiSessions: UiSessionRepository
  /** Counters of wrong secrets (every platform instance on the store counts into the same). */
  authFailures: AuthFailureRepository
  /** Agents' reported log lines per mock service. */
  agentLogs: AgentLogRepository
  localRuns: LocalRunRepository
  /** Admin calls relayed to agents, in flight (every platform instance on the store sees them). */
  adminCalls: AdminCallRepository
  assetChunks: AssetChunkRepository
  keptInspections: KeptInspectionRepository
}

/**
 * The store: the repositories for reads, and `write` for changes. Every write request of the API
 * runs in one `write`, so that a failed request changes nothing (docs/decisions.md#atomic-writes).
 *
 * @example
 * const service = await store.write(async (tx) => tx.services.create({ workspaceId: 1, name: 'pets', description: null, by: 'ada@example.com' }))
 */
/** What a write made through a connection of its own needs: the SQLite database file, and the time to stamp rows with. */
export interface SqliteWriteTarget {
  readonly file: string
  readonly now: number
}

/** The same for the PostgreSQL store: the database's URL (a worker thread opens its own connection). */
export interface PostgresWriteTarget {
  readonly postgresUrl: string
  readonly now: number
}

/** Where `writeElsewhere` lets its function write, whichever the store. */
export type OwnWriteTarget = SqliteWriteTarget | PostgresWriteTarget

export interface Store extends Repositories {
  /** Runs `fn` in one database transaction: a throw rolls every write back, and rethrows. */
  write: <T>(fn: (tx: Repositories) => Promise<T>) => Promise<T>
  /**
   * Runs `fn` in the place of a write: no `write` of this store runs meanwhile, and `fn` writes
   * the database itself, through a connection of its own (`writeThroughOwnConnection`, in a
   * worker thread), in one transaction that it commits or rolls back before it settles. `fn`
   * gets where to write (the SQLite file, or the PostgreSQL URL) and the store's clock reading
   * to stamp its rows with.
   */
  writeElsewhere: <T>(fn: (target: OwnWriteTarget) => Promise<T>) => Promise<T>
  /** The schema version the store is at (the newest migration applied). */
  schemaVersion: () => Promise<number>
  close: () => Promise<void>
}
