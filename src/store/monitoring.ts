/*
 * API monitoring records (the monitoring specification) and their repositories. Timestamps are
 * epoch milliseconds, as everywhere in the store; the monitoring API shows epoch seconds. Ids are
 * UUIDs (the product's clients treat them as opaque strings), bucket keys 12 lowercase letters and
 * digits.
 */

/** A JSON object as stored (steps, environment settings, run details). */
export type JsonObject = Record<string, unknown>

export interface MonitorBucket {
  key: string
  workspaceId: number
  name: string
  /** The id in the bucket's trigger URL (`/radar/bucket/{triggerId}/trigger`). */
  triggerId: string
  isDefault: boolean
  created: number
}

/** Who created a test, as the test shows it. */
export interface MonitorAuthor {
  id: string
  name: string
  email: string
}

export interface MonitorTest {
  id: string
  bucketKey: string
  name: string
  description: string | null
  defaultEnvironmentId: string | null
  /** The id in the test's trigger URL (`/radar/{triggerId}/trigger`). */
  triggerId: string
  createdBy: MonitorAuthor
  /** The ordered steps, each a JSON object with its `id` and `step_type`. */
  steps: JsonObject[]
  created: number
  updated: number
}

/** An environment: `testId` null = shared by the bucket. `doc` holds every other field as sent. */
export interface MonitorEnvironment {
  id: string
  bucketKey: string
  testId: string | null
  doc: JsonObject
  created: number
}

export interface MonitorSchedule {
  id: string
  testId: string
  environmentId: string
  interval: string
  note: string | null
  created: number
}

/** `queued` -> `working` -> `pass` | `fail` (the trigger URL's polled states). */
export type MonitorRunResult = 'queued' | 'working' | 'pass' | 'fail'

export interface MonitorRun {
  id: string
  testId: string
  bucketKey: string
  environmentId: string
  result: MonitorRunResult
  /** `trigger`, `scheduled`, `subtest`... */
  source: string
  created: number
  finished: number | null
  /** The run's details (requests, assertions, counts) as the API shows them. */
  doc: JsonObject
  /** Where it executes: a region served by agents, or null for this platform's local runner. */
  region: string | null
  /** The one ship that may claim it (the environment's `remote_agents`), else null. */
  pinnedAgent: string | null
  /** The ship that claimed it last (null for a local run, or before any claim). */
  agent: string | null
}

/**
 * A run to store: where it executes (default the local runner) and, for a local run, the lease of
 * the platform instance that executes it (so that another instance starting on the same store
 * leaves it alone while the lease lives).
 */
export type NewMonitorRun = Omit<MonitorRun, 'region' | 'pinnedAgent' | 'agent'> & {
  region?: string | null
  pinnedAgent?: string | null
  leaseId?: string | null
  leaseExpires?: number | null
}

/** A ship asking for the next run of its region, and the lease it will hold it under. */
export interface RunClaim {
  shipId: string
  harborId: string
  region: string
  leaseId: string
  /** Epoch ms: leases that ended before this are free to take. */
  now: number
  /** Epoch ms the new lease ends unless renewed. */
  expires: number
}

/** A lease an agent holds on a run: only the current one may renew it or complete the run. */
export interface RunLease {
  runId: string
  shipId: string
  leaseId: string
  now: number
}

/** A region a ship serves, as it last claimed or heartbeated with it. */
export interface AgentRegion {
  region: string
  shipId: string
  shipName: string
  /** Epoch ms of its last claim or heartbeat with this region. */
  seen: number
}

export interface MonitorRevision {
  uuid: string
  bucketKey: string
  testId: string | null
  itemType: 'radar_test' | 'environment'
  itemId: string
  /** Epoch seconds with fraction (the monitoring specification). */
  timestamp: number
  author: MonitorAuthor
  doc: JsonObject
}

/** A team's notification channel, referenced by id from environments' `integrations`. */
export interface MonitorIntegration {
  id: string
  workspaceId: number
  /** `webhook` (doc.url) or `email` (doc.recipients): the kinds the runner delivers. */
  type: string
  description: string
  doc: JsonObject
  created: number
}

/** The runs one call of a bucket's trigger URL started (`runs_id` of its answer). */
export interface MonitorBatch {
  id: string
  bucketKey: string
  /** The runs started, in order. */
  runIds: string[]
  /** Tests the call could not start (no such environment). */
  runsFailed: number
  created: number
}

/** An OAuth application (the monitoring specification, docs/monitor-api.md#authentication-and-oauth-20). */
export interface OAuthApp {
  clientId: string
  userId: number
  name: string
  websiteUrl: string
  callbackUrl: string
  /** scrypt hash of the client secret. */
  secretHash: string
  created: number
}

export interface OAuthToken {
  id: string
  /** SHA-256 of the token, hex. */
  tokenHash: string
  clientId: string
  userId: number
  scopes: string[]
  created: number
  revoked: number | null
}

export interface OAuthCode {
  codeHash: string
  clientId: string
  userId: number
  scopes: string[]
  redirectUri: string
  /** Epoch ms after which the code is refused. */
  expires: number
  used: boolean
}

/**
 * Buckets, tests, environments, schedules, runs and revisions. Lookups under a bucket take the
 * bucket key, so a record of another bucket is simply not found.
 */
export interface MonitoringRepository {
  createBucket: (input: Omit<MonitorBucket, 'created'>) => Promise<MonitorBucket>
  getBucket: (key: string) => Promise<MonitorBucket | undefined>
  getBucketByTrigger: (triggerId: string) => Promise<MonitorBucket | undefined>
  listBuckets: (workspaceIds: readonly number[]) => Promise<MonitorBucket[]>
  deleteBucket: (key: string) => Promise<boolean>

  createTest: (input: Omit<MonitorTest, 'created' | 'updated'>) => Promise<MonitorTest>
  getTest: (bucketKey: string, id: string) => Promise<MonitorTest | undefined>
  getTestById: (id: string) => Promise<MonitorTest | undefined>
  getTestByTrigger: (triggerId: string) => Promise<MonitorTest | undefined>
  /** Newest first (as the product lists them); `'oldest'` for a bucket trigger, which runs them as created. */
  listTests: (
    bucketKey: string,
    count: number,
    offset: number,
    order?: 'newest' | 'oldest',
  ) => Promise<MonitorTest[]>
  updateTest: (
    id: string,
    patch: Partial<Pick<MonitorTest, 'name' | 'description' | 'defaultEnvironmentId' | 'steps'>>,
  ) => Promise<MonitorTest | undefined>
  deleteTest: (bucketKey: string, id: string) => Promise<boolean>

  createEnvironment: (input: Omit<MonitorEnvironment, 'created'>) => Promise<MonitorEnvironment>
  getEnvironment: (bucketKey: string, id: string) => Promise<MonitorEnvironment | undefined>
  /** `testId` null: the bucket's shared environments. */
  listEnvironments: (bucketKey: string, testId: string | null) => Promise<MonitorEnvironment[]>
  updateEnvironment: (id: string, doc: JsonObject) => Promise<MonitorEnvironment | undefined>
  deleteEnvironment: (bucketKey: string, id: string) => Promise<boolean>

  createSchedule: (input: Omit<MonitorSchedule, 'created'>) => Promise<MonitorSchedule>
  getSchedule: (testId: string, id: string) => Promise<MonitorSchedule | undefined>
  listSchedules: (testId: string) => Promise<MonitorSchedule[]>
  /** Every schedule of every test: what the scheduler loads at start. */
  listAllSchedules: () => Promise<MonitorSchedule[]>
  updateSchedule: (
    id: string,
    patch: Partial<Pick<MonitorSchedule, 'environmentId' | 'interval' | 'note'>>,
  ) => Promise<MonitorSchedule | undefined>
  deleteSchedule: (testId: string, id: string) => Promise<boolean>

  createRun: (input: NewMonitorRun) => Promise<MonitorRun>
  /**
   * Stores a scheduled run unless a run of the same `slotKey` (schedule, slot, region) is stored
   * already: undefined then. Whoever fires a slot, it makes one run.
   */
  createRunOnce: (input: NewMonitorRun & { slotKey: string }) => Promise<MonitorRun | undefined>
  /** How many runs of a test for this region (or pinned ship) no agent claimed yet, up to `limit`. */
  countUnclaimedRuns: (
    testId: string,
    region: string | null,
    pinnedAgent: string | null,
    limit: number,
  ) => Promise<number>
  /**
   * Takes the oldest run for this ship under a new lease: a queued run of its region (or pinned to
   * it), or one whose previous lease ended; only runs of the workspaces its harbor is offered to.
   * The run turns `working` with `agent` = the ship. Two claimers never get the same run.
   */
  claimRun: (claim: RunClaim) => Promise<MonitorRun | undefined>
  /** Extends a live lease to `expires`; false when the lease ended or is no longer the run's. */
  renewRunLease: (lease: RunLease, expires: number) => Promise<boolean>
  /**
   * Completes a run under its current, live lease (the lease ends); undefined when the lease ended
   * or is not the run's (another agent took it): nothing is stored then.
   */
  completeLeasedRun: (
    lease: RunLease,
    patch: Pick<MonitorRun, 'result' | 'finished' | 'doc'>,
  ) => Promise<MonitorRun | undefined>
  /** Extends the lease of every unfinished run held under `leaseId` (a platform instance's local runs). */
  renewLocalLeases: (leaseId: string, expires: number) => Promise<number>
  /** Records that a ship serves a region (it claimed or heartbeated with it). */
  recordAgentRegion: (shipId: string, region: string, seen: number) => Promise<void>
  /** The regions of the ships of harbors offered to these workspaces, by region then ship. */
  listAgentRegions: (workspaceIds: readonly number[]) => Promise<AgentRegion[]>
  /** Which of these ships belong to a harbor offered to the workspace (an environment's `remote_agents`). */
  agentsOffered: (workspaceId: number, shipIds: readonly string[]) => Promise<string[]>
  updateRun: (
    id: string,
    patch: Partial<Pick<MonitorRun, 'result' | 'finished' | 'doc'>>,
  ) => Promise<MonitorRun | undefined>
  getRun: (testId: string, id: string) => Promise<MonitorRun | undefined>
  /** Newest first. */
  listRuns: (testId: string, count: number) => Promise<MonitorRun[]>
  /**
   * Marks failed the local runs (no region, no pinned ship) left `queued` or `working` whose lease
   * ended before `finished`, or that have none: the process that ran them is gone. Runs held under
   * a live lease (another platform instance's) and runs waiting for an agent are left alone.
   */
  failUnfinishedRuns: (finished: number, reason: string) => Promise<number>
  /**
   * Fails the runs waiting for an agent (queued, or held under a lease that ended) that nobody can
   * take: stored before `cutoff`, and no agent that could claim them showed life since `cutoff`
   * (for a region: a ship offered to the run's workspace that claimed with the region, or
   * heartbeated listing it; for a pinned run: its ship, by any claim or heartbeat; a deleted ship
   * never). Each failed run gets `reason(run)` as its `error`; at most `limit` per call.
   */
  failStrandedRuns: (
    now: number,
    cutoff: number,
    reason: (run: MonitorRun) => string,
    limit: number,
  ) => Promise<MonitorRun[]>
  /**
   * A ship is deleted: its pinned runs that have not finished fail with `reason`, and the region
   * runs it holds go back to the queue for the other agents of their region.
   */
  releaseShipRuns: (
    shipId: string,
    now: number,
    reason: string,
  ) => Promise<{ failed: MonitorRun[]; requeued: number }>
  /** Deletes all but the newest `keep` runs of a test; returns how many went. */
  pruneRuns: (testId: string, keep: number) => Promise<number>

  /** Runs by id, in the order given; ids no longer stored are left out. */
  getRunsByIds: (ids: readonly string[]) => Promise<MonitorRun[]>

  createBatch: (input: Omit<MonitorBatch, 'created'>) => Promise<MonitorBatch>
  getBatch: (bucketKey: string, id: string) => Promise<MonitorBatch | undefined>

  createIntegration: (input: Omit<MonitorIntegration, 'created'>) => Promise<MonitorIntegration>
  /** Oldest first. */
  listIntegrations: (workspaceId: number) => Promise<MonitorIntegration[]>
  getIntegration: (workspaceId: number, id: string) => Promise<MonitorIntegration | undefined>
  deleteIntegration: (workspaceId: number, id: string) => Promise<boolean>

  addRevision: (input: MonitorRevision) => Promise<void>
  /** Oldest first. */
  listRevisions: (testId: string) => Promise<MonitorRevision[]>
}

/** OAuth 2.0 provider state: applications, access tokens, authorization codes. */
export interface OAuthRepository {
  createApp: (input: Omit<OAuthApp, 'created'>) => Promise<OAuthApp>
  getApp: (clientId: string) => Promise<OAuthApp | undefined>
  listApps: (userId: number) => Promise<OAuthApp[]>
  deleteApp: (userId: number, clientId: string) => Promise<boolean>
  createToken: (input: Omit<OAuthToken, 'created' | 'revoked'>) => Promise<OAuthToken>
  getTokenByHash: (tokenHash: string) => Promise<OAuthToken | undefined>
  listTokens: (userId: number) => Promise<OAuthToken[]>
  /** Revokes a token of this user; false when it is not theirs or unknown. */
  revokeToken: (userId: number, id: string) => Promise<boolean>
  createCode: (input: Omit<OAuthCode, 'used'>) => Promise<OAuthCode>
  /** Marks the code used and returns it as it was; undefined when unknown. Single use is atomic. */
  consumeCode: (codeHash: string) => Promise<OAuthCode | undefined>
}
