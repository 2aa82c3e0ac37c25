import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { Logger } from '../../log/index.js'
import type {
  JsonObject,
  MonitorBucket,
  MonitorEnvironment,
  MonitorIntegration,
  MonitorRun,
  MonitorSchedule,
  MonitorTest,
  Store,
} from '../../store/index.js'
import { tickMs, type NotificationReport, type TestRunResult } from '../../monitor/index.js'
import { FairSlots } from './fair-slots.js'
import { environmentChain, integrationsOf } from './run-context.js'
import { DEFAULT_LEASE_MS, DEFAULT_RUN_WAIT_MS } from './run-terms.js'
import { isLocal, placementView, runTargets, targetKey, type RunTarget } from './run-targets.js'

/** What the runner gets for one run: the test, its environment chain (root first), the trigger's variables. */
export interface ExecuteInput {
  test: MonitorTest
  bucket: MonitorBucket
  /** The run's environment and its ancestors, the root first (inheritance is applied by the runner). */
  environments: MonitorEnvironment[]
  /** The team integrations the environment notifies (its own, else its nearest ancestor's). */
  integrations: MonitorIntegration[]
  variables: Record<string, string>
  runId: string
  /** Another test of the same bucket and an environment chain (its default one when null), for subtest steps. */
  loadTest: (
    id: string,
    environmentId: string | null,
  ) => Promise<{ test: MonitorTest; environments: MonitorEnvironment[] } | undefined>
  /** Results of the test's previous runs, newest first (notification thresholds). */
  previousResults: () => Promise<Array<'pass' | 'fail'>>
}

/** The `integrations` of the chain's last environment that lists any (a child without its own inherits). */
function nearestIntegrations(chain: readonly MonitorEnvironment[]): unknown {
  for (let i = chain.length - 1; i >= 0; i--) {
    const refs = chain[i]?.doc['integrations']
    if (Array.isArray(refs) && refs.length > 0) return refs
  }
  return []
}

/** What a run produced: pass or fail, and the result document the API shows (`requests`, counts...). */
export interface ExecuteOutcome {
  pass: boolean
  doc: JsonObject
}

export type Execute = (input: ExecuteInput) => Promise<ExecuteOutcome>

/** What a finished run's notifications need: the run's own input and the runner's result. */
export type NotifyInput = Pick<
  ExecuteInput,
  'test' | 'bucket' | 'environments' | 'integrations' | 'runId' | 'previousResults'
> & { result: TestRunResult }

/** Sends a finished run's notifications; answers their outcome for the result document. */
export type Notify = (input: NotifyInput) => Promise<NotificationReport[]>

/** Timers of schedules (the runner's scheduler): one per schedule; `fire` is called on each tick. */
export interface ScheduleTimers {
  add: (schedule: { id: string; interval: string }, fire: () => void) => void
  remove: (scheduleId: string) => void
  stop: () => void
}

interface RunQueueOptions {
  store: Store
  log: Logger
  execute: Execute
  /** Sends the notifications of a run an agent completed (the local runner's are sent by `execute`). */
  notify?: Notify
  timers: ScheduleTimers
  /** Runs kept per test. */
  retention: number
  /** Runs executing at once across all tests (default MAX_CONCURRENT); the others wait `queued`. */
  maxConcurrent?: number
  /** Runs of one account executing at once (default MAX_PER_ACCOUNT, at most maxConcurrent). */
  maxPerAccount?: number
  now: () => number
  /** How long a run's lease lasts unless renewed, in ms (default DEFAULT_LEASE_MS). */
  leaseMs?: number
  /**
   * How long a run for agents waits when no agent that could claim it shows life, in ms (default
   * DEFAULT_RUN_WAIT_MS): it fails then, with a reason.
   */
  runWaitMs?: number
  /** The divisor of schedule intervals the timers use (tests): a tick's slot is one scaled interval. */
  scheduleScale?: number
}

interface RunStart {
  test: MonitorTest
  bucket: MonitorBucket
  environment: MonitorEnvironment
  variables: Record<string, string>
  source: 'trigger' | 'scheduled'
}

/** Stranded runs failed per sweep at most (the next sweep takes the rest). */
const STRANDED_PER_SWEEP = 100
/** Runs of one test that may wait at once. */
const MAX_PENDING = 50
/** Runs executing at once in one platform (a bucket trigger over many tests waits its turn). */
const MAX_CONCURRENT = 32
/**
 * Runs of one account executing at once: half the slots, so that one account's flood (paused
 * runs, a bucket trigger over many tests) always leaves the other half to the other accounts.
 */
const MAX_PER_ACCOUNT = 16
/**
 * Times a local run is taken over from a platform instance that died before it ends failed: a run
 * whose test brings its instance down each time (a memory blow-up) must not go round for ever.
 */
const MAX_TAKEOVERS = 3

/**
 * Runs tests asynchronously: a run is stored `queued` at once and the caller answered; runs of one
 * test execute one after another (never the same test twice at once), runs of different tests
 * concurrently, in slots shared fairly between accounts (FairSlots: a cap per account, a freed
 * slot to the waiting account with the fewest runs executing). A scheduled tick finding its test
 * busy is skipped rather than queued, so a slow test cannot pile up runs. Each finished run prunes
 * the test's results to `retention`.
 */
export class RunQueue {
  readonly #o: RunQueueOptions
  /** The tail of each test's chain of runs, and how many runs wait in it. */
  readonly #chains = new Map<string, { tail: Promise<void>; pending: number }>()
  readonly #schedulesOf = new Map<string, Set<string>>()
  /** The schedules armed here, by id, as they were when armed (to see another instance's changes). */
  readonly #armed = new Map<string, MonitorSchedule>()
  #closed = false
  readonly #slots: FairSlots
  readonly #leaseMs: number
  readonly #runWaitMs: number
  /** When this queue started: agents get a run wait from then to show life before any is judged. */
  readonly #startedAt: number
  /**
   * The lease this instance holds its local runs under: renewed while it lives, so that another
   * platform instance starting on the same store leaves them alone, and fails them once it is gone.
   */
  readonly #leaseId = `platform:${randomUUID()}`
  readonly #leaseTimer: NodeJS.Timeout

  constructor(options: RunQueueOptions) {
    this.#o = options
    const total = options.maxConcurrent ?? MAX_CONCURRENT
    this.#slots = new FairSlots(total, Math.min(options.maxPerAccount ?? MAX_PER_ACCOUNT, total))
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
    this.#runWaitMs = options.runWaitMs ?? DEFAULT_RUN_WAIT_MS
    this.#startedAt = options.now()
    // Often enough for both: leases are renewed thrice per lease, stranded runs found within a
    // third of the wait.
    this.#leaseTimer = setInterval(
      () => {
        this.#keepLeases().catch((err: unknown) =>
          this.#o.log.warn({ err }, 'cannot renew the leases of local test runs'),
        )
      },
      Math.min(this.#leaseMs, this.#runWaitMs) / 3,
    )
    this.#leaseTimer.unref()
  }

  get leaseMs(): number {
    return this.#leaseMs
  }

  get runWaitMs(): number {
    return this.#runWaitMs
  }

  busy(testId: string): boolean {
    return (this.#chains.get(testId)?.pending ?? 0) > 0
  }

  /**
   * Renews this instance's leases on its local runs, and takes over the local runs of instances
   * whose lease ended (a platform killed while another one keeps running): they run here again,
   * from the start.
   */
  async #keepLeases(): Promise<void> {
    if (this.#closed) return
    const now = this.#o.now()
    if (this.#chains.size > 0) {
      await this.#o.store.monitoring.renewLocalLeases(this.#leaseId, now + this.#leaseMs)
    }
    await this.#takeOverAbandoned(now)
    await this.#failAbandoned(now)
    await this.#failStranded(now)
    await this.#resyncSchedules()
  }

  /**
   * Fails the runs waiting for agents that are not there (none of their region, or their pinned
   * agent, claimed or heartbeated for the run wait): a run must not wait forever. They notify as
   * any failed run does.
   */
  async #failStranded(now: number): Promise<void> {
    // Agents could not reach a platform that was down: their silence counts from its start.
    if (now - this.#startedAt < this.#runWaitMs) return
    const waited = Math.round(this.#runWaitMs / 1000)
    const failed = await this.#o.store.monitoring.failStrandedRuns(
      now,
      now - this.#runWaitMs,
      (run) =>
        run.pinnedAgent !== null
          ? `not run: its agent ${run.pinnedAgent} has not claimed runs or sent a heartbeat for ${waited} s (or was deleted)`
          : `not run: no agent of region ${run.region ?? ''} has claimed runs or sent a heartbeat for ${waited} s`,
      STRANDED_PER_SWEEP,
    )
    if (failed.length === 0) return
    this.#o.log.warn({ runs: failed.length }, 'test runs no agent could take marked failed')
    for (const run of failed) await this.notifyCompleted(run)
  }

  /**
   * Arms the schedules another platform instance on the store created or changed, and disarms
   * those it deleted, so that every instance fires every schedule (the slot's unique key makes
   * one run of it) and a schedule keeps firing when the instance it was made on is gone.
   */
  async #resyncSchedules(): Promise<void> {
    const stored = await this.#o.store.monitoring.listAllSchedules()
    if (this.#closed) return
    const ids = new Set(stored.map((s) => s.id))
    for (const [id, armed] of this.#armed) {
      if (!ids.has(id)) this.#disarm(armed)
    }
    for (const schedule of stored) {
      const armed = this.#armed.get(schedule.id)
      if (
        armed === undefined ||
        armed.interval !== schedule.interval ||
        armed.environmentId !== schedule.environmentId
      ) {
        this.#arm(schedule)
      }
    }
  }

  #disarm(schedule: MonitorSchedule): void {
    this.#o.timers.remove(schedule.id)
    this.#armed.delete(schedule.id)
    this.#schedulesOf.get(schedule.testId)?.delete(schedule.id)
  }

  /**
   * Queues here the local runs whose instance is gone (lease ended), under this instance's lease.
   * Those taken over MAX_TAKEOVERS times already are left to #failAbandoned.
   */
  async #takeOverAbandoned(now: number): Promise<void> {
    if (this.#closed) return
    const ids = await this.#o.store.localRuns.takeOver({
      leaseId: this.#leaseId,
      now,
      expires: now + this.#leaseMs,
      maxAttempts: MAX_TAKEOVERS,
    })
    if (ids.length === 0) return
    this.#o.log.warn({ runs: ids.length }, 'took over the test runs of a platform that stopped')
    for (const run of await this.#o.store.monitoring.getRunsByIds(ids)) {
      const input = await this.#inputOf(run)
      if (input === undefined) {
        await this.#o.store.monitoring.updateRun(run.id, {
          result: 'fail',
          finished: this.#o.now(),
          doc: { ...run.doc, error: 'its test, bucket or environment was deleted' },
        })
        continue
      }
      this.#enqueue(run, input, await this.#accountOf(input.bucket))
    }
  }

  /** What a stored run was started with (its trigger's variables are in its doc). */
  async #inputOf(run: MonitorRun): Promise<RunStart | undefined> {
    const store = this.#o.store.monitoring
    const test = await store.getTestById(run.testId)
    const bucket = await store.getBucket(run.bucketKey)
    const environment = await store.getEnvironment(run.bucketKey, run.environmentId)
    if (test === undefined || bucket === undefined || environment === undefined) return undefined
    const initial = run.doc['initial_variables']
    const variables: Record<string, string> = {}
    if (typeof initial === 'object' && initial !== null && !Array.isArray(initial)) {
      for (const [name, value] of Object.entries(initial)) {
        if (typeof value === 'string') variables[name] = value
      }
    }
    return {
      test,
      bucket,
      environment,
      variables,
      source: run.source === 'scheduled' ? 'scheduled' : 'trigger',
    }
  }

  async #failAbandoned(now: number): Promise<void> {
    const interrupted = await this.#o.store.monitoring.failUnfinishedRuns(
      now,
      'the platform stopped before this run finished',
    )
    if (interrupted > 0) {
      this.#o.log.warn({ runs: interrupted }, 'unfinished test runs marked failed')
    }
  }

  /**
   * Starts the runs of a trigger or a schedule tick: one per target of the environment (its
   * regions served by agents, its remote agents, else the local runner; or the `regions` given).
   * With `slot`, a scheduled
   * tick: each target's run is stored once per slot whoever fires it (undefined when another
   * scheduler stored it first), and a target whose previous run has not started yet is skipped.
   */
  async startAll(
    input: RunStart,
    options: { slot?: string; regions?: readonly string[] } = {},
  ): Promise<MonitorRun[]> {
    const { slot } = options
    const chain = await this.environmentChain(input.bucket.key, input.environment.id)
    const targets = await runTargets(
      this.#o.store,
      input.bucket.workspaceId,
      chain,
      options.regions,
    )
    const runs: MonitorRun[] = []
    for (const target of targets) {
      if (slot !== undefined) {
        const waiting = isLocal(target)
          ? this.busy(input.test.id)
          : (await this.#unclaimed(input.test.id, target, 1)) > 0
        if (waiting) continue
      }
      const run = await this.#begin(
        input,
        target,
        slot === undefined ? undefined : `${slot}:${targetKey(target)}`,
      )
      if (run !== undefined) runs.push(run)
    }
    return runs
  }

  /**
   * Stores a queued run and, on the local runner, schedules its execution (an agent of its region
   * claims the others); resolves once the run is stored. 429 when the test already has MAX_PENDING
   * runs waiting for the same runner or region (a trigger loop cannot fill the store).
   */
  async start(
    input: RunStart,
    target: RunTarget = { region: null, pinnedAgent: null },
  ): Promise<MonitorRun> {
    const run = await this.#begin(input, target)
    if (run === undefined) throw new Error('a run without a slot key is always stored')
    return run
  }

  /** Runs of a test waiting for an agent of the target, counted up to `limit`. */
  async #unclaimed(testId: string, target: RunTarget, limit: number): Promise<number> {
    return await this.#o.store.monitoring.countUnclaimedRuns(
      testId,
      target.region,
      target.pinnedAgent,
      limit,
    )
  }

  /** `start`, with a `slotKey`: undefined when a run of that key is stored already. */
  async #begin(
    input: RunStart,
    target: RunTarget,
    slotKey?: string,
  ): Promise<MonitorRun | undefined> {
    const local = isLocal(target)
    const pending = local
      ? (this.#chains.get(input.test.id)?.pending ?? 0)
      : await this.#unclaimed(input.test.id, target, MAX_PENDING)
    if (pending >= MAX_PENDING) throw createError('ERR_API_RATE_LIMITED')
    const account = await this.#accountOf(input.bucket)
    const now = this.#o.now()
    const record = {
      id: randomUUID(),
      testId: input.test.id,
      bucketKey: input.bucket.key,
      environmentId: input.environment.id,
      result: 'queued' as const,
      source: input.source,
      created: now,
      finished: null,
      doc: {
        test_name: input.test.name,
        environment_name: input.environment.doc['name'] ?? null,
        initial_variables: input.variables,
        ...placementView(target),
        requests: [],
      },
      region: target.region,
      pinnedAgent: target.pinnedAgent,
      ...(local ? { leaseId: this.#leaseId, leaseExpires: now + this.#leaseMs } : {}),
    }
    const run =
      slotKey === undefined
        ? await this.#o.store.monitoring.createRun(record)
        : await this.#o.store.monitoring.createRunOnce({ ...record, slotKey })
    if (run === undefined || !local) return run
    this.#enqueue(run, input, account)
    return run
  }

  /** Executes a stored local run after the test's earlier ones, in one of its account's slots. */
  #enqueue(run: MonitorRun, input: RunStart, account: string): void {
    const chain = this.#chains.get(input.test.id) ?? { tail: Promise.resolve(), pending: 0 }
    chain.pending++
    chain.tail = chain.tail
      .then(async () => await this.#inSlot(account, async () => await this.#execute(run, input)))
      .finally(() => {
        chain.pending--
        if (chain.pending === 0 && this.#chains.get(input.test.id) === chain) {
          this.#chains.delete(input.test.id)
        }
      })
    this.#chains.set(input.test.id, chain)
  }

  /** Runs `fn` in one of the account's fair share of slots. */
  async #inSlot(account: string, fn: () => Promise<void>): Promise<void> {
    const release = await this.#slots.acquire(account)
    try {
      await fn()
    } finally {
      release()
    }
  }

  /** The account a bucket's runs count against: its workspace's (the workspace itself if unknown). */
  async #accountOf(bucket: MonitorBucket): Promise<string> {
    const workspace = await this.#o.store.workspaces.get(bucket.workspaceId)
    return workspace === undefined
      ? `workspace:${bucket.workspaceId}`
      : `account:${workspace.accountId}`
  }

  async #execute(run: MonitorRun, input: RunStart): Promise<void> {
    const store = this.#o.store.monitoring
    try {
      const test = await store.getTestById(input.test.id)
      if (test === undefined || this.#closed) return
      const started = this.#o.now()
      await store.updateRun(run.id, {
        result: 'working',
        doc: { ...run.doc, started_at: started / 1000 },
      })
      const environments = await this.environmentChain(input.bucket.key, input.environment.id)
      let outcome: ExecuteOutcome
      try {
        outcome = await this.#o.execute({
          test,
          bucket: input.bucket,
          environments,
          integrations: await integrationsOf(
            this.#o.store,
            input.bucket.workspaceId,
            nearestIntegrations(environments),
          ),
          variables: input.variables,
          runId: run.id,
          loadTest: async (id, environmentId) => {
            const sub = await store.getTest(input.bucket.key, id)
            const envId = environmentId ?? sub?.defaultEnvironmentId ?? null
            if (sub === undefined || envId === null) return undefined
            return { test: sub, environments: await this.environmentChain(input.bucket.key, envId) }
          },
          previousResults: async () =>
            (await store.listRuns(test.id, 50))
              .filter((r) => r.id !== run.id && (r.result === 'pass' || r.result === 'fail'))
              .map((r) => r.result as 'pass' | 'fail'),
        })
      } catch (err) {
        this.#o.log.warn({ err, testId: test.id, runId: run.id }, 'test run failed')
        outcome = { pass: false, doc: { error: err instanceof Error ? err.message : String(err) } }
      }
      const finished = this.#o.now()
      await store.updateRun(run.id, {
        result: outcome.pass ? 'pass' : 'fail',
        finished,
        doc: {
          ...run.doc,
          started_at: started / 1000,
          ...outcome.doc,
          finished_at: finished / 1000,
        },
      })
      await store.pruneRuns(test.id, this.#o.retention)
    } catch (err) {
      // The test was deleted under the run, or the store closed: nothing left to record.
      this.#o.log.debug({ err, runId: run.id }, 'test run dropped')
    }
  }

  /** An environment and its ancestors, root first. */
  async environmentChain(bucketKey: string, environmentId: string): Promise<MonitorEnvironment[]> {
    return await environmentChain(this.#o.store, bucketKey, environmentId)
  }

  /**
   * After an agent completed a run: sends the environment's notifications, as the local runner
   * does after its runs, and records their outcome in the result.
   */
  async notifyCompleted(run: MonitorRun): Promise<void> {
    const notify = this.#o.notify
    if (notify === undefined || this.#closed) return
    const store = this.#o.store.monitoring
    try {
      const test = await store.getTestById(run.testId)
      const bucket = await store.getBucket(run.bucketKey)
      if (test === undefined || bucket === undefined) return
      const environments = await this.environmentChain(bucket.key, run.environmentId)
      const notifications = await notify({
        test,
        bucket,
        environments,
        integrations: await integrationsOf(
          this.#o.store,
          bucket.workspaceId,
          nearestIntegrations(environments),
        ),
        runId: run.id,
        previousResults: async () =>
          (await store.listRuns(test.id, 50))
            .filter((r) => r.id !== run.id && (r.result === 'pass' || r.result === 'fail'))
            .map((r) => r.result as 'pass' | 'fail'),
        result: run.doc as unknown as TestRunResult,
      })
      if (notifications.length > 0) {
        await store.updateRun(run.id, { doc: { ...run.doc, notifications } })
      }
    } catch (err) {
      this.#o.log.warn({ err, runId: run.id }, 'notifications of an agent run failed')
    }
  }

  /**
   * At platform start: local runs left queued or working by a platform that is gone (their lease
   * ended) are taken over (run again here; failed with a note after MAX_TAKEOVERS), and every
   * stored schedule is armed again (schedules survive restarts). Runs another instance holds under a live lease, and runs of regions waiting for or
   * held by an agent, are left alone.
   */
  async loadSchedules(): Promise<void> {
    await this.#takeOverAbandoned(this.#o.now())
    await this.#failAbandoned(this.#o.now())
    for (const schedule of await this.#o.store.monitoring.listAllSchedules()) this.#arm(schedule)
  }

  /** Re-reads a test's schedules after a change (in the background). */
  syncSchedules(testId: string): void {
    this.#o.store.monitoring.listSchedules(testId).then(
      (schedules) => {
        this.forgetTest(testId)
        for (const schedule of schedules) this.#arm(schedule)
      },
      (err: unknown) => this.#o.log.error({ err, testId }, 'cannot load schedules'),
    )
  }

  /** Stops the schedules of a test (deleted, or about to be re-read). */
  forgetTest(testId: string): void {
    for (const id of this.#schedulesOf.get(testId) ?? []) {
      this.#o.timers.remove(id)
      this.#armed.delete(id)
    }
    this.#schedulesOf.delete(testId)
  }

  #arm(schedule: MonitorSchedule): void {
    if (this.#closed) return
    let ids = this.#schedulesOf.get(schedule.testId)
    if (ids === undefined) this.#schedulesOf.set(schedule.testId, (ids = new Set()))
    ids.add(schedule.id)
    this.#armed.set(schedule.id, schedule)
    this.#o.timers.add(schedule, () => {
      this.#tick(schedule).catch((err: unknown) =>
        this.#o.log.error({ err, scheduleId: schedule.id }, 'scheduled run failed'),
      )
    })
  }

  async #tick(schedule: MonitorSchedule): Promise<void> {
    if (this.#closed) return
    // The slot this tick fires for: every scheduler firing the same slot names the same runs.
    const slot = Math.floor(this.#o.now() / tickMs(schedule.interval, this.#o.scheduleScale))
    const test = await this.#o.store.monitoring.getTestById(schedule.testId)
    if (test === undefined) return
    // Another instance may have deleted the schedule since this one armed it.
    const current = await this.#o.store.monitoring.listSchedules(schedule.testId)
    if (!current.some((s) => s.id === schedule.id)) return
    const bucket = await this.#o.store.monitoring.getBucket(test.bucketKey)
    const environment = await this.#o.store.monitoring.getEnvironment(
      test.bucketKey,
      schedule.environmentId,
    )
    if (bucket === undefined || environment === undefined) return
    await this.startAll(
      { test, bucket, environment, variables: {}, source: 'scheduled' },
      { slot: `${schedule.id}:${slot}` },
    )
  }

  /** Stops every schedule and waits for the runs under way. */
  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#leaseTimer)
    this.#o.timers.stop()
    await Promise.allSettled([...this.#chains.values()].map(async (c) => await c.tail))
    // Runs this instance will not execute now are left to the next start-up to fail at once.
    await this.#o.store.monitoring.renewLocalLeases(this.#leaseId, 0).catch(() => 0)
  }
}
