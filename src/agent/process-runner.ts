import type { MockServiceDocument } from '../dsl/index.js'
import {
  fetchHealth,
  LocalDeployer,
  type RuntimeAdmin,
  type RuntimeCommand,
} from '../deploy/index.js'
import type { Logger } from '../log/index.js'
import type { MockService, Tracking } from '../store/index.js'
import { AgentStore } from './agent-store.js'
import type { MockRunner, Outcome, RunView, WorkItem } from './work.js'

const BY = 'agent'

interface ProcessRunnerOptions {
  /** `<dataDir>/mocks/<id>.json` holds each mock service's document, as on the platform. */
  dataDir: string
  log: Logger
  /** Interface the runtimes listen on. */
  host: string
  /** Host name in the endpoints reported (`--advertise-host`). */
  endpointHost: string
  /** How to start `understudy` (default: this Node with `dist/src/cli/main.js`); for tests. */
  command?: RuntimeCommand
}

/**
 * Runs mock services as the platform's local deployer does, with its very code (LocalDeployer:
 * one `understudy run` per mock service, restarts after crashes, configuration pushed to the
 * admin API without a restart), over the agent's in-memory records instead of the platform's store.
 *
 * @example
 * const runner = new ProcessRunner({ dataDir: './agent-data', log, host: '0.0.0.0', endpointHost: 'lab-1.example.com' })
 * await runner.deploy(item, { port: 47001, tlsPort: null })
 */
export class ProcessRunner implements MockRunner {
  readonly #store: AgentStore
  readonly #deployer: LocalDeployer
  readonly #pids = new Map<number, number>()
  readonly #listeners: Array<(id: number) => void> = []

  constructor(options: ProcessRunnerOptions) {
    this.#store = new AgentStore((id) => {
      for (const listener of this.#listeners) listener(id)
    })
    this.#deployer = new LocalDeployer({
      store: this.#store,
      dataDir: options.dataDir,
      log: options.log,
      host: options.host,
      endpointHost: options.endpointHost,
      ...(options.command === undefined ? {} : { command: options.command }),
    })
  }

  async deploy(item: WorkItem, ports: { port: number; tlsPort: number | null }): Promise<Outcome> {
    const record = this.#store.put(recordOf(item, ports))
    const tracking = await this.#deployer.deploy(record, documentOf(item), BY)
    return await this.#settle(item.mockServiceId, tracking)
  }

  async configure(
    item: WorkItem,
    ports: { port: number; tlsPort: number | null },
  ): Promise<Outcome> {
    const record = this.#store.put(recordOf(item, ports))
    const tracking = await this.#deployer.configure(record, documentOf(item), BY)
    return await this.#settle(item.mockServiceId, tracking)
  }

  async stop(item: WorkItem): Promise<Outcome> {
    const record = this.#store.record(item.mockServiceId)
    if (record === undefined) return { ok: true, errors: [], warnings: [] }
    const tracking = await this.#deployer.stop(record, BY)
    return await this.#settle(item.mockServiceId, tracking)
  }

  async remove(mockServiceId: number): Promise<void> {
    await this.#deployer.remove(mockServiceId)
    this.#store.forget(mockServiceId)
    this.#pids.delete(mockServiceId)
  }

  view(mockServiceId: number): RunView | undefined {
    const record = this.#store.record(mockServiceId)
    if (record === undefined) return undefined
    return {
      status: record.status,
      endpoints: { http: record.httpEndpoint, https: record.httpsEndpoint },
      pid:
        this.#deployer.localAdmin(mockServiceId) === null
          ? null
          : (this.#pids.get(mockServiceId) ?? null),
      port: record.port,
    }
  }

  isRunning(mockServiceId: number): boolean {
    const record = this.#store.record(mockServiceId)
    return (
      this.#deployer.localAdmin(mockServiceId) !== null ||
      (record !== undefined && record.status === 'PENDING')
    )
  }

  async admin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    return this.#deployer.admin(mockServiceId)
  }

  logs(mockServiceId: number, limit: number): string[] {
    return this.#deployer.logsOf(mockServiceId, limit)
  }

  async figures(): Promise<{ memoryUsage: number; transactionsCount: number }> {
    const env = await this.#deployer.environment()
    return { memoryUsage: env.memoryUsage, transactionsCount: env.totalTxnCount }
  }

  onChange(listener: (mockServiceId: number) => void): void {
    this.#listeners.push(listener)
  }

  async shutdown(): Promise<void> {
    await this.#deployer.shutdown()
  }

  async #settle(mockServiceId: number, tracking: Tracking): Promise<Outcome> {
    const ended = (await this.#deployer.settled(tracking.trackingId)) ?? tracking
    const admin = this.#deployer.localAdmin(mockServiceId)
    if (admin !== null) {
      const health = await fetchHealth(admin, 2000).catch(() => null)
      if (typeof health?.pid === 'number') this.#pids.set(mockServiceId, health.pid)
    }
    return { ok: ended.status === 'FINISHED', errors: ended.errors, warnings: ended.warnings }
  }
}

function documentOf(item: WorkItem): MockServiceDocument {
  return item.document as unknown as MockServiceDocument
}

/** The record the local deployer works from: what the desired state says, and the ports given here. */
function recordOf(item: WorkItem, ports: { port: number; tlsPort: number | null }): MockService {
  const now = Date.now()
  return {
    id: item.mockServiceId,
    workspaceId: 0,
    serviceId: 0,
    name: item.name,
    description: null,
    type: 'TRANSACTIONAL',
    status: 'STOPPED',
    harborId: item.harborId,
    shipId: item.shipId,
    bridgeId: null,
    registryId: null,
    vseId: null,
    platformVseId: null,
    endpointPreference: item.endpointPreference,
    liveSystemHost: null,
    liveSystemPort: null,
    thinkTime: null,
    capacity: null,
    replicas: item.replicas,
    noMatchingRequestPreference: 'return404',
    noMatchingRequestTxnId: null,
    mockServiceTransactions: [],
    tags: [],
    groupTag: null,
    assetId: null,
    httpEndpoint: null,
    httpsEndpoint: null,
    port: ports.port === 0 ? null : ports.port,
    tlsPort: ports.tlsPort === 0 ? null : ports.tlsPort,
    deployDate: null,
    pendingUpdate: false,
    cors: null,
    faults: null,
    templateSeed: null,
    matchHost: false,
    created: now,
    updated: now,
    createdBy: BY,
    updatedBy: BY,
  }
}
