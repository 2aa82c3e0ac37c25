import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { PROTECTED_PORTS_ENV, type RestartPolicy } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import { writeProtectedPorts, type EgressSettings } from '../net/index.js'
import type {
  AgentLogRepository,
  KeptInspectionRepository,
  MockService,
  Repositories,
  Tracking,
  TrackingAction,
} from '../store/index.js'
import { fetchHealth, putConfig, type RuntimeAdmin } from './admin-client.js'
import { DocumentFiles } from './document-file.js'
import { InspectionHistory } from './inspection-history.js'
import { LogPublisher } from './log-publisher.js'
import {
  createManaged,
  describeExit,
  serialize,
  trackingErrorOf,
  type LaunchSpec,
  type Managed,
  type Running,
} from './managed.js'
import { residentBytes } from './memory.js'
import { defaultRuntimeCommand, type RuntimeCommand } from './runtime-command.js'
import { launchRuntime } from './launch.js'
import type { RuntimeProcess } from './runtime-process.js'
import type { LeasedRuntimes, RuntimeOwnership } from './runtime-leases.js'
import type { Deployer, EnvironmentFigures } from './types.js'

type DeployRepositories = Pick<Repositories, 'mockServices' | 'trackings'>
/** The record fields the deployer writes. */
type RecordPatch = Omit<Parameters<Repositories['mockServices']['update']>[1], 'by'>

/** The part of the store the deployer uses (a full Store is one). */
export interface DeployerStore extends DeployRepositories {
  write: <T>(fn: (tx: DeployRepositories) => Promise<T>) => Promise<T>
}

export interface LocalDeployerOptions {
  store: DeployerStore
  /** `<dataDir>/mocks/<id>.json` holds each mock service's document. */
  dataDir: string
  log: Logger
  /** Interface the runtimes listen on (`--host`); default 127.0.0.1. */
  host?: string
  /**
   * Address the runtimes' admin APIs listen on and other platform instances reach them at
   * (`--runtime-admin-host`); default 127.0.0.1.
   */
  adminHost?: string
  /** Host name in `httpEndpoint`/`httpsEndpoint`; default `host`, or 127.0.0.1 when `host` is a wildcard. */
  endpointHost?: string
  /** How to start `understudy` (default: this Node with `dist/src/cli/main.js`); for tests. */
  command?: RuntimeCommand
  /** More flags for every `understudy run`, such as `['--log-level', 'warn']`. */
  runtimeArgs?: readonly string[]
  /** How long a runtime may take to print its ready lines and answer its health check; default 20 s. */
  readyTimeoutMs?: number
  /** How long `stop` waits for the drain before SIGKILL; default 15 s (runtimes drain for at most 10 s). */
  stopTimeoutMs?: number
  /** How long `configure` waits for the runtime to swap; default 60 s. */
  configureTimeoutMs?: number
  /** When a runtime that died on its own is started again (then RUNNING), or given up (FAILED). */
  restart?: Partial<RestartPolicy>
  /** Log lines kept per mock service; default 1,000. */
  logLines?: number
  /**
   * The egress policy the runtimes apply to what they send (`proxyUrl`, `bypasslive`, webhooks):
   * passed as `--egress` / `--egress-allow`; default the runtime's own default.
   */
  egress?: Pick<EgressSettings, 'level' | 'allow'>
  /**
   * The leases of the platform instance (runtime-leases.ts): with them, every action first holds
   * the mock service's lease, what runs is recorded in the store, admin tokens are derived so
   * that any instance reaches any runtime, and `admin` answers for runtimes other instances run.
   * Without (the agent), the runtimes are this process's alone.
   */
  leases?: RuntimeOwnership
  /**
   * Where a platform instance sharing its store with others keeps what every instance reads: the
   * inspection records of stopped runtimes, and the runtimes' log lines (batched). Without it (one
   * instance, or the agent), the data dir and this process's memory.
   */
  shared?: {
    keptInspections: KeptInspectionRepository
    logLines: Pick<AgentLogRepository, 'put'>
  }
}

/** Starts again at most this many times when the system picked a port another record keeps. */
const PORT_CLASH_ATTEMPTS = 3

const defaultRestart: RestartPolicy = {
  attempts: 5,
  immediate: 0,
  initialDelayMs: 500,
  maxDelayMs: 10_000,
  healthyAfterMs: 60_000,
}

/**
 * The local deployer (docs/deploy.md): one `understudy run` child process per mock service on
 * this machine, with `--replicas` workers sharing its port, driven through its admin listener.
 * Actions on one mock service run one at a time in call order. docs/deploy.md describes the
 * lifecycle, the statuses and the restart policy.
 *
 * @example
 * const deployer = new LocalDeployer({ store, dataDir: './data', log })
 * const tracking = await deployer.deploy(mock, document, 'ada@example.com')
 * (await deployer.settled(tracking.trackingId))?.status // 'FINISHED'
 */
export class LocalDeployer implements Deployer, LeasedRuntimes {
  readonly #store: DeployerStore
  readonly #leases: RuntimeOwnership | null
  readonly #files: DocumentFiles
  readonly #log: Logger
  readonly #host: string
  readonly #adminHost: string | undefined
  readonly #endpointHost: string
  readonly #command: RuntimeCommand
  readonly #runtimeArgs: readonly string[]
  /**
   * The file listing the ports no tenant's request may reach on this machine (docs/security.md
   * "Egress"): the platform's own and every running runtime's admin port, rewritten whenever a
   * runtime starts or ends. Every runtime's egress check, and the platform's, reads it.
   */
  readonly protectedPortsFile: string
  readonly #readyTimeoutMs: number
  readonly #stopTimeoutMs: number
  readonly #configureTimeoutMs: number
  readonly #restart: RestartPolicy
  readonly #logLines: number
  readonly #env: Record<string, string>
  /** Ports refused to every tenant's requests besides the runtimes' admin ports: the platform's own. */
  readonly #fixedPorts = new Set<number>()
  readonly #entries = new Map<number, Managed>()
  /** What each mock service's runtime recorded before it last stopped (inspection-history.ts). */
  readonly history: InspectionHistory
  /** Copies the runtimes' log lines to the store, when it is shared. */
  readonly #published: LogPublisher | null
  /** Actions under way, by tracking id. */
  readonly #runs = new Map<string, Promise<void>>()
  #closing = false

  constructor(options: LocalDeployerOptions) {
    this.#store = options.store
    this.#leases = options.leases ?? null
    this.#files = new DocumentFiles(options.dataDir)
    this.history = new InspectionHistory({
      dataDir: options.dataDir,
      log: options.log,
      store: options.shared?.keptInspections,
    })
    this.#published =
      options.shared === undefined
        ? null
        : new LogPublisher({ lines: options.shared.logLines, log: options.log })
    this.#log = options.log
    this.#host = options.host ?? '127.0.0.1'
    this.#adminHost = options.adminHost
    this.#endpointHost =
      options.endpointHost ??
      (['0.0.0.0', '::', '[::]'].includes(this.#host) ? '127.0.0.1' : this.#host)
    this.#command = options.command ?? defaultRuntimeCommand()
    const egress =
      options.egress === undefined
        ? []
        : [
            '--egress',
            options.egress.level,
            ...(options.egress.allow.length === 0
              ? []
              : ['--egress-allow', options.egress.allow.join(',')]),
          ]
    this.#runtimeArgs = [...egress, ...(options.runtimeArgs ?? [])]
    this.protectedPortsFile = join(options.dataDir, 'protected-ports')
    this.#env = { [PROTECTED_PORTS_ENV]: this.protectedPortsFile }
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 20_000
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 15_000
    this.#configureTimeoutMs = options.configureTimeoutMs ?? 60_000
    this.#restart = { ...defaultRestart, ...options.restart }
    this.#logLines = options.logLines ?? 1000
  }

  async deploy(mock: MockService, document: MockServiceDocument, by: string): Promise<Tracking> {
    return await this.#track(
      mock,
      'deploy',
      by,
      async () => await this.#start(mock, async () => document, by),
    )
  }

  async configure(mock: MockService, document: MockServiceDocument, by: string): Promise<Tracking> {
    return await this.#track(mock, 'configure', by, async (entry) => {
      const running = entry.running
      if (running === null) return await this.#start(mock, async () => document, by)
      const spec = this.#specOf(mock, document, running)
      if (
        spec.replicas !== running.spec.replicas ||
        spec.https !== running.spec.https ||
        spec.port !== running.port ||
        (spec.https && spec.tlsPort !== running.tlsPort)
      ) {
        const warnings = await this.#start(mock, async () => document, by)
        return [
          ...warnings,
          {
            code: 'RESTARTED',
            message:
              'Replicas, ports or the endpoint preference changed: the runtime was restarted',
          },
        ]
      }
      const stamped = this.#stamp(mock, document)
      await putConfig(running.admin, stamped, this.#configureTimeoutMs)
      await this.#files.write(mock.id, stamped)
      await this.#leases?.record(mock.id, { document: stamped })
      await this.#update(mock.id, { status: 'RUNNING', pendingUpdate: false }, by)
      this.#note(entry, 'info', 'runtime reconfigured', {
        transactions: stamped.transactions.length,
      })
      return []
    })
  }

  async stop(mock: MockService, by: string): Promise<Tracking> {
    return await this.#track(mock, 'stop', by, async (entry) => {
      await this.#stopRuntime(entry)
      entry.restarts.reset()
      // The lines up to the stop, for the instances that read them from the store from now on.
      await this.#published?.flush()
      await this.#update(
        mock.id,
        { status: 'STOPPED', httpEndpoint: null, httpsEndpoint: null },
        by,
      )
      return []
    })
  }

  async remove(mockServiceId: number): Promise<void> {
    // Another instance running it stops its copy first (a handover), so none outlives the record.
    await this.#leases?.acquire(mockServiceId)
    const entry = this.#entries.get(mockServiceId)
    if (entry !== undefined) {
      await serialize(entry, async () => {
        entry.generation++
        entry.restarts.cancel()
        await this.#stopRuntime(entry, false)
      })
      this.#entries.delete(mockServiceId)
    }
    this.#published?.forget(mockServiceId)
    await this.history.forget(mockServiceId)
    await this.#files.remove(mockServiceId)
    await this.#leases?.forget(mockServiceId)
  }

  async admin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    return (
      this.localAdmin(mockServiceId) ?? (await this.#leases?.remoteAdmin(mockServiceId)) ?? null
    )
  }

  /** The admin API of the runtime this process runs for the mock service, or null. */
  localAdmin(mockServiceId: number): RuntimeAdmin | null {
    return this.#entries.get(mockServiceId)?.running?.admin ?? null
  }

  get stopping(): boolean {
    return this.#closing
  }

  runningIds(): number[] {
    return [...this.#entries.values()].filter((e) => e.running !== null).map((e) => e.id)
  }

  active(mockServiceId: number): boolean {
    const entry = this.#entries.get(mockServiceId)
    return entry !== undefined && (entry.busy > 0 || entry.running !== null)
  }

  async relinquish(mockServiceId: number): Promise<void> {
    const entry = this.#entries.get(mockServiceId)
    if (entry === undefined) return
    await serialize(entry, async () => {
      entry.generation++
      entry.restarts.cancel()
      await this.#stopRuntime(entry)
    })
  }

  async takeOver(mock: MockService, document: MockServiceDocument): Promise<Tracking> {
    return await this.deploy(mock, document, 'platform')
  }

  /**
   * Adds a port of this machine that no tenant's request may reach (the platform's own API port,
   * once it listens) to the protected-ports file.
   *
   * @example
   * deployer.protect(8080)
   */
  protect(port: number): void {
    this.#fixedPorts.add(port)
    this.#writeProtectedPorts()
  }

  logsOf(mockServiceId: number, limit?: number): string[] {
    const entry = this.#entries.get(mockServiceId)
    if (entry === undefined) return []
    // On a shared store, a runtime this instance no longer runs may run on another one since:
    // the newest lines are then the store's (kept there when this one stopped).
    if (this.#published !== null && entry.busy === 0 && entry.running === null) return []
    return entry.logs.snapshot(limit ?? entry.logs.capacity)
  }

  async settled(trackingId: string): Promise<Tracking | undefined> {
    await this.#runs.get(trackingId)
    return await this.#store.trackings.get(trackingId)
  }

  async restore(by: string): Promise<Tracking[]> {
    const mocks = await this.#store.mockServices.listByStatus(['RUNNING', 'PENDING'])
    const mine: Array<{ mock: MockService; leased: MockServiceDocument | null }> = []
    for (const mock of mocks) {
      if (this.#leases === null) {
        mine.push({ mock, leased: null })
        continue
      }
      // Another live instance runs it: restoring it here too would run two copies.
      const lease = await this.#leases.adopt(mock.id)
      if (lease === undefined) continue
      mine.push({ mock, leased: lease.document as unknown as MockServiceDocument | null })
    }
    return await Promise.all(
      mine.map(
        async ({ mock, leased }) =>
          await this.#track(
            mock,
            'deploy',
            by,
            async () =>
              await this.#start(
                mock,
                async () => {
                  // The document last deployed by any instance, else the one this data dir kept.
                  const document = leased ?? (await this.#files.read(mock.id))
                  if (document === undefined) {
                    throw createError('ERR_DEPLOY_FAILED', [
                      `no document was saved for mock service ${mock.id}`,
                    ])
                  }
                  return document
                },
                by,
              ),
          ),
      ),
    )
  }

  async environment(): Promise<EnvironmentFigures> {
    const running = [...this.#entries.values()].filter((e) => e.running !== null)
    const figures = await Promise.all(
      running.map(async (entry) => {
        const current = entry.running as Running
        const health = await fetchHealth(current.admin, 2000).catch(() => null)
        const pids = new Set<number>()
        for (const pid of [
          current.process.pid,
          health?.pid,
          ...(health?.workers ?? []).map((w) => w.pid),
        ]) {
          if (typeof pid === 'number') pids.add(pid)
        }
        let memory = 0
        for (const pid of pids) memory += (await residentBytes(pid)) ?? 0
        return { id: entry.id, memory, transactions: health?.transactions ?? 0 }
      }),
    )
    figures.push(...(await this.#othersFigures(new Set(running.map((e) => e.id)))))
    let memoryUsage = (await residentBytes(process.pid)) ?? process.memoryUsage().rss
    let totalTxnCount = 0
    const txnCountByMockService: Record<number, number> = {}
    for (const f of figures) {
      memoryUsage += f.memory
      totalTxnCount += f.transactions
      txnCountByMockService[f.id] = f.transactions
    }
    return {
      status: 'RUNNING',
      lastHeartBeat: Date.now(),
      memoryUsage,
      msRunningCount: figures.length,
      totalTxnCount,
      runningMockServiceIds: figures.map((f) => f.id).sort((a, b) => a - b),
      txnCountByMockService,
    }
  }

  /**
   * The runtimes other platform instances on the store run (their records RUNNING, their leases
   * another's): each counted, with its transactions read through its admin API. Their memory is
   * their machine's, not readable here: it stays out of the figures.
   */
  async #othersFigures(
    own: ReadonlySet<number>,
  ): Promise<Array<{ id: number; memory: number; transactions: number }>> {
    const leases = this.#leases
    if (leases === null) return []
    const records = await this.#store.mockServices.listByStatus(['RUNNING'])
    const others = await Promise.all(
      records
        .filter((mock) => !own.has(mock.id))
        .map(async (mock) => {
          const admin = await leases.remoteAdmin(mock.id).catch(() => null)
          if (admin === null) return null
          const health = await fetchHealth(admin, 2000).catch(() => null)
          return { id: mock.id, memory: 0, transactions: health?.transactions ?? 0 }
        }),
    )
    return others.filter((f) => f !== null)
  }

  async shutdown(): Promise<void> {
    this.#closing = true
    await Promise.all(
      [...this.#entries.values()].map(async (entry) => {
        entry.restarts.cancel()
        const starting = entry.starting
        const running = entry.running
        entry.running = null
        if (running !== null) await this.history.keep(entry.id, running.admin)
        await Promise.all([starting?.kill(), running?.process.stop(this.#stopTimeoutMs)])
        // Actions under way end (FAILED: the platform is stopping); records keep their status, so
        // that `restore` brings RUNNING mock services back when the platform starts again.
        await entry.queue
      }),
    )
    await this.#published?.flush()
  }

  /**
   * Creates the tracking (RUNNING, or PENDING behind other actions on the same mock service),
   * queues the work, and returns the tracking at once; the work's end sets FINISHED (with its
   * warnings) or FAILED (with the error).
   */
  async #track(
    mock: MockService,
    action: TrackingAction,
    by: string,
    work: (entry: Managed) => Promise<Tracking['warnings']>,
  ): Promise<Tracking> {
    const entry = this.#entry(mock.id)
    const queued = entry.busy > 0
    entry.busy++
    const created = this.#store.write(
      async (tx) =>
        await tx.trackings.create({
          trackingId: randomUUID(),
          workspaceId: mock.workspaceId,
          mockServiceId: mock.id,
          action,
          status: queued ? 'PENDING' : 'RUNNING',
          errors: [],
          warnings: [],
          createdBy: by,
        }),
    )
    const run = serialize(entry, async () => {
      const tracking = await created
      try {
        if (queued) await this.#finishTracking(tracking.trackingId, { status: 'RUNNING' })
        entry.generation++
        if (this.#closing) throw createError('ERR_DEPLOY_FAILED', ['the platform is stopping'])
        await this.#leases?.acquire(mock.id)
        const warnings = await work(entry)
        await this.#finishTracking(tracking.trackingId, {
          status: 'FINISHED',
          warnings,
          ended: Date.now(),
        })
      } catch (err) {
        const error = trackingErrorOf(err)
        this.#note(entry, 'error', `${action} failed`, { trackingId: tracking.trackingId, error })
        await this.#finishTracking(tracking.trackingId, {
          status: 'FAILED',
          errors: [error],
          ended: Date.now(),
        })
      }
    }).finally(() => {
      entry.busy--
    })
    const tracking = await created.catch(async (err: unknown) => {
      await run.catch(() => {})
      throw err
    })
    this.#runs.set(
      tracking.trackingId,
      run.catch(() => {}).finally(() => this.#runs.delete(tracking.trackingId)),
    )
    return tracking
  }

  /**
   * Writes the document and starts the runtime (ending the running one first: a deploy of a
   * running mock service restarts it on the same ports), then records RUNNING and the endpoints.
   */
  async #start(
    mock: MockService,
    load: () => Promise<MockServiceDocument>,
    by: string,
  ): Promise<Tracking['warnings']> {
    const entry = this.#entry(mock.id)
    entry.restarts.cancel()
    entry.restarts.reset()
    const document = this.#stamp(mock, await load())
    await this.#update(mock.id, { status: 'PENDING' }, by)
    const file = await this.#files.write(mock.id, document)
    await this.#leases?.record(mock.id, { document })
    const previous = entry.running
    await this.#stopRuntime(entry)
    const spec = this.#specOf(mock, document, previous)
    try {
      let running = await this.#launch(entry, spec, file)
      // A port the system picked may be one a stopped mock service keeps for its next deploy:
      // start again elsewhere rather than take it (rare; ephemeral ports are many).
      for (let attempt = 1; attempt <= PORT_CLASH_ATTEMPTS; attempt++) {
        const clash = await this.#clashingPort(mock, spec, running)
        if (clash === null) break
        this.#note(entry, 'info', 'port kept by another mock service; starting again', {
          port: clash,
        })
        await this.#stopRuntime(entry)
        running = await this.#launch(entry, spec, file)
      }
    } catch (err) {
      if (!this.#closing) {
        await this.#update(
          mock.id,
          { status: 'FAILED', httpEndpoint: null, httpsEndpoint: null },
          by,
        )
      }
      throw err
    }
    await this.#update(mock.id, { ...this.#runningFields(entry), deployDate: Date.now() }, by)
    return []
  }

  /** A port the system gave this runtime that another mock service's record keeps, or null. */
  async #clashingPort(
    mock: MockService,
    spec: LaunchSpec,
    running: Running,
  ): Promise<number | null> {
    const picked: number[] = []
    if (spec.port === 0) picked.push(running.port)
    if (spec.tlsPort === 0 && running.tlsPort !== null) picked.push(running.tlsPort)
    if (picked.length === 0) return null
    const kept = await this.#store.mockServices.usedPorts()
    // This mock service's own record may list a port too (a tlsPort kept while the port is new).
    const own = [mock.port, mock.tlsPort]
    return picked.find((port) => kept.includes(port) && !own.includes(port)) ?? null
  }

  /** Starts the runtime (launch.ts) and makes it this mock service's running one. */
  async #launch(entry: Managed, spec: LaunchSpec, file: string): Promise<Running> {
    let child: RuntimeProcess | null = null
    // With leases, the token derives from a start id any instance of the database can read.
    const startId = randomUUID()
    try {
      const running = await launchRuntime({
        ...(this.#leases === null ? {} : { token: this.#leases.token(entry.id, startId) }),
        command: this.#command,
        host: this.#host,
        ...(this.#adminHost === undefined ? {} : { adminHost: this.#adminHost }),
        runtimeArgs: this.#runtimeArgs,
        env: this.#env,
        spec,
        file,
        readyTimeoutMs: this.#readyTimeoutMs,
        onLine: (line) => this.#childLine(entry, line),
        onSpawn: (spawned) => {
          child = spawned
          entry.starting = spawned
        },
      })
      if (entry.starting !== running.process) {
        // A shutdown ended the start under way.
        await running.process.kill()
        throw createError('ERR_DEPLOY_FAILED', ['the platform is stopping'])
      }
      entry.running = running
      this.#writeProtectedPorts()
      const { process: started, endpoints } = running
      await this.#leases?.record(entry.id, {
        startId,
        adminUrl: endpoints.admin,
        pid: started.pid,
      })
      this.#background(
        entry,
        started.exited.then((exit) => this.#onExit(entry, started, describeExit(exit))),
      )
      this.#note(entry, 'info', 'runtime started', {
        pid: started.pid,
        http: endpoints.http,
        https: endpoints.https,
        admin: endpoints.admin,
        replicas: spec.replicas,
      })
      return running
    } finally {
      if (child !== null && entry.starting === child) entry.starting = null
    }
  }

  /** Drains and ends the running runtime, if any, keeping its inspection records first unless told not to. */
  async #stopRuntime(entry: Managed, keepHistory = true): Promise<void> {
    const running = entry.running
    if (running === null) return
    entry.running = null
    if (keepHistory) await this.history.keep(entry.id, running.admin)
    const exit = await running.process.stop(this.#stopTimeoutMs)
    this.#writeProtectedPorts()
    await this.#leases?.record(entry.id, { startId: null, adminUrl: null, pid: null })
    this.#note(entry, 'info', 'runtime stopped', {
      pid: running.process.pid,
      how: describeExit(exit),
    })
  }

  /** A runtime ended without being asked to: restart it (in the queue, after actions already waiting). */
  #onExit(entry: Managed, child: RuntimeProcess, how: string): void {
    if (entry.running?.process !== child || this.#closing) return
    const previous = entry.running
    entry.running = null
    // Its admin port is free again: another listener (a mock service's own port) may get it.
    this.#writeProtectedPorts()
    entry.restarts.ended(Date.now() - child.startedAt)
    const generation = entry.generation
    this.#background(
      entry,
      serialize(entry, async () => {
        if (entry.generation === generation) {
          await this.#afterCrash(entry, previous, `runtime ${how}`, generation)
        }
      }),
    )
  }

  async #afterCrash(
    entry: Managed,
    previous: Running,
    reason: string,
    generation: number,
  ): Promise<void> {
    if (this.#closing) return
    const scheduled = entry.restarts.schedule(() => {
      this.#background(
        entry,
        serialize(entry, async () => {
          if (entry.generation !== generation || this.#closing) return
          const spec = { ...previous.spec, port: previous.port, tlsPort: previous.tlsPort }
          try {
            await this.#launch(entry, spec, previous.file)
          } catch (err) {
            await this.#afterCrash(
              entry,
              previous,
              `restart failed: ${(err as Error).message}`,
              generation,
            )
            return
          }
          this.#note(entry, 'info', 'runtime restarted', {})
          await this.#update(entry.id, this.#runningFields(entry))
        }),
      )
    })
    const { attempts } = entry.restarts.policy
    if (scheduled === null) {
      this.#note(entry, 'error', `${reason}; gave up after ${attempts} restarts`, {})
      await this.#update(entry.id, { status: 'FAILED', httpEndpoint: null, httpsEndpoint: null })
      return
    }
    this.#note(
      entry,
      'warn',
      `${reason}; restarting in ${scheduled.delayMs} ms (attempt ${scheduled.attempt} of ${attempts})`,
      {},
    )
    await this.#update(entry.id, { status: 'PENDING' })
  }

  /** Rewrites the protected-ports file: the fixed ports and every running runtime's admin port. */
  #writeProtectedPorts(): void {
    const ports = new Set(this.#fixedPorts)
    for (const entry of this.#entries.values()) {
      if (entry.running !== null) ports.add(Number(new URL(entry.running.admin.url).port))
    }
    try {
      writeProtectedPorts(this.protectedPortsFile, ports)
    } catch (err) {
      this.#log.error(
        { err, file: this.protectedPortsFile },
        'cannot write the protected ports file',
      )
    }
  }

  #entry(id: number): Managed {
    let entry = this.#entries.get(id)
    if (entry === undefined) {
      entry = createManaged(id, this.#logLines, this.#restart)
      this.#entries.set(id, entry)
    }
    return entry
  }

  /** The document as the runtime gets it: with the mock service's id, so that inspection and logs name it. */
  #stamp(mock: MockService, document: MockServiceDocument): MockServiceDocument {
    return { ...document, id: mock.id, name: document.name ?? mock.name }
  }

  /** Ports: the record's (kept from the last deploy), else the running runtime's, else any free one. */
  #specOf(mock: MockService, document: MockServiceDocument, running: Running | null): LaunchSpec {
    const https = (mock.endpointPreference ?? document.endpointPreference) === 'HTTPS'
    return {
      port: mock.port ?? running?.port ?? 0,
      tlsPort: https ? (mock.tlsPort ?? running?.tlsPort ?? 0) : null,
      https,
      replicas: Math.max(1, mock.replicas ?? document.replicas ?? 1),
    }
  }

  #runningFields(entry: Managed): RecordPatch {
    const running = entry.running
    if (running === null) return {}
    return {
      status: 'RUNNING',
      httpEndpoint: this.#endpoint(running.endpoints.http),
      httpsEndpoint:
        running.endpoints.https === null ? null : this.#endpoint(running.endpoints.https),
      port: running.port,
      tlsPort: running.tlsPort,
      pendingUpdate: false,
    }
  }

  #endpoint(url: string): string {
    const parsed = new URL(url)
    parsed.hostname = this.#endpointHost
    return parsed.origin
  }

  async #update(id: number, patch: RecordPatch, by?: string): Promise<void> {
    await this.#store.write(
      async (tx) => await tx.mockServices.update(id, by === undefined ? patch : { ...patch, by }),
    )
  }

  async #finishTracking(
    trackingId: string,
    patch: Partial<Pick<Tracking, 'status' | 'errors' | 'warnings' | 'ended'>>,
  ): Promise<void> {
    await this.#store.write(async (tx) => await tx.trackings.update(trackingId, patch))
  }

  /** Work nobody awaits (crash handling, restarts): a failure is logged, never unhandled. */
  #background(entry: Managed, work: Promise<unknown>): void {
    work.catch((err: unknown) =>
      this.#note(entry, 'error', 'restart handling failed', {
        err: err instanceof Error ? err.message : String(err),
      }),
    )
  }

  /** A platform-side line in the mock service's log, and the same event in the platform's log. */
  #note(
    entry: Managed,
    level: 'info' | 'warn' | 'error',
    message: string,
    fields: Record<string, unknown>,
  ): void {
    const pinoLevel = level === 'info' ? 30 : level === 'warn' ? 40 : 50
    entry.logs.write(
      JSON.stringify({
        level: pinoLevel,
        time: Date.now(),
        source: 'platform',
        serviceMockId: entry.id,
        ...fields,
        msg: message,
      }),
    )
    this.#published?.changed(entry.id, entry.logs)
    this.#log[level]({ serviceMockId: entry.id, ...fields }, message)
  }

  /** A line of the runtime's standard error: kept for the mock service's log, and debug in the platform's. */
  #childLine(entry: Managed, line: string): void {
    entry.logs.write(line)
    this.#published?.changed(entry.id, entry.logs)
    if (this.#log.isLevelEnabled('debug')) {
      this.#log.debug({ serviceMockId: entry.id, line }, 'runtime log')
    }
  }
}
