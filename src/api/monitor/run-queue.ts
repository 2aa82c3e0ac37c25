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
import { FairSlots } from './fair-slots.js'
import { integrationsOf } from './run-context.js'
import { LOCAL_REGION } from './run-context.js'

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
  timers: ScheduleTimers
  /** Runs kept per test. */
  retention: number
  /** Runs executing at once across all tests (default MAX_CONCURRENT); the others wait `queued`. */
  maxConcurrent?: number
  /** Runs of one account executing at once (default MAX_PER_ACCOUNT, at most maxConcurrent). */
  maxPerAccount?: number
  now: () => number
}

interface RunStart {
  test: MonitorTest
  bucket: MonitorBucket
  environment: MonitorEnvironment
  variables: Record<string, string>
  source: 'trigger' | 'scheduled'
}

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
  #closed = false
  readonly #slots: FairSlots

  constructor(options: RunQueueOptions) {
    this.#o = options
    const total = options.maxConcurrent ?? MAX_CONCURRENT
    this.#slots = new FairSlots(total, Math.min(options.maxPerAccount ?? MAX_PER_ACCOUNT, total))
  }

  busy(testId: string): boolean {
    return (this.#chains.get(testId)?.pending ?? 0) > 0
  }

  /**
   * Stores a queued run and schedules its execution; resolves once the run is stored. 429 when
   * the test already has MAX_PENDING runs waiting (a trigger loop cannot fill the store).
   */
  async start(input: RunStart): Promise<MonitorRun> {
    if ((this.#chains.get(input.test.id)?.pending ?? 0) >= MAX_PENDING) {
      throw createError('ERR_API_RATE_LIMITED')
    }
    const account = await this.#accountOf(input.bucket)
    const now = this.#o.now()
    const run = await this.#o.store.monitoring.createRun({
      id: randomUUID(),
      testId: input.test.id,
      bucketKey: input.bucket.key,
      environmentId: input.environment.id,
      result: 'queued',
      source: input.source,
      created: now,
      finished: null,
      doc: {
        test_name: input.test.name,
        environment_name: input.environment.doc['name'] ?? null,
        initial_variables: input.variables,
        region: LOCAL_REGION,
        agent: null,
        requests: [],
      },
    })
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
    return run
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

  /** An environment and its ancestors, root first; an ancestor that no longer exists ends the chain. */
  async environmentChain(bucketKey: string, environmentId: string): Promise<MonitorEnvironment[]> {
    const chain: MonitorEnvironment[] = []
    let id: string | null = environmentId
    while (id !== null && chain.length < 11) {
      const env: MonitorEnvironment | undefined = await this.#o.store.monitoring.getEnvironment(
        bucketKey,
        id,
      )
      if (env === undefined) break
      chain.unshift(env)
      id =
        typeof env.doc['parent_environment_id'] === 'string'
          ? env.doc['parent_environment_id']
          : null
    }
    return chain
  }

  /**
   * At platform start: runs left queued or working by the previous process fail with a note, and
   * every stored schedule is armed again (schedules survive restarts).
   */
  async loadSchedules(): Promise<void> {
    const interrupted = await this.#o.store.monitoring.failUnfinishedRuns(
      this.#o.now(),
      'the platform stopped before this run finished',
    )
    if (interrupted > 0) {
      this.#o.log.warn({ runs: interrupted }, 'unfinished test runs marked failed')
    }
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
    for (const id of this.#schedulesOf.get(testId) ?? []) this.#o.timers.remove(id)
    this.#schedulesOf.delete(testId)
  }

  #arm(schedule: MonitorSchedule): void {
    if (this.#closed) return
    let ids = this.#schedulesOf.get(schedule.testId)
    if (ids === undefined) this.#schedulesOf.set(schedule.testId, (ids = new Set()))
    ids.add(schedule.id)
    this.#o.timers.add(schedule, () => {
      this.#tick(schedule).catch((err: unknown) =>
        this.#o.log.error({ err, scheduleId: schedule.id }, 'scheduled run failed'),
      )
    })
  }

  async #tick(schedule: MonitorSchedule): Promise<void> {
    if (this.#closed || this.busy(schedule.testId)) return
    const test = await this.#o.store.monitoring.getTestById(schedule.testId)
    if (test === undefined) return
    const bucket = await this.#o.store.monitoring.getBucket(test.bucketKey)
    const environment = await this.#o.store.monitoring.getEnvironment(
      test.bucketKey,
      schedule.environmentId,
    )
    if (bucket === undefined || environment === undefined) return
    await this.start({ test, bucket, environment, variables: {}, source: 'scheduled' })
  }

  /** Stops every schedule and waits for the runs under way. */
  async close(): Promise<void> {
    this.#closed = true
    this.#o.timers.stop()
    await Promise.allSettled([...this.#chains.values()].map(async (c) => await c.tail))
  }
}
