import type { MockServiceDocument } from '../dsl/index.js'
import {
  kubernetesRuntimeAdmin,
  type KubernetesPlacement,
  type RuntimeAdmin,
  type RuntimeDriver,
} from '../deploy/index.js'
import { isUnderstudyError } from '../errors/index.js'
import { LogRing } from '../log/index.js'
import type { MockRunner, Outcome, RunView, WorkItem } from './work.js'

const LOG_LINES = 200

/**
 * Runs mock services as Kubernetes objects through the Kubernetes driver (ConfigMap,
 * Deployment, Service per mock service; a new document pushed to every pod without a restart).
 * The cluster gives the ports and endpoints (the Service's DNS name, node port, load balancer,
 * Ingress): `--port-range` does not apply. Kubernetes keeps the pods running whatever happens to
 * the agent; a restarted agent reads the objects back and applies only those that changed, so
 * that nothing in the cluster is touched (or restarted) for nothing.
 *
 * @example
 * const runner = new KubernetesRunner(new KubernetesDriver(await connectCluster({ kind: 'default' }), { namespace: 'mocks', image }))
 */
export class KubernetesRunner implements MockRunner {
  readonly #driver: RuntimeDriver
  readonly #placements = new Map<number, KubernetesPlacement>()
  readonly #failed = new Map<number, string>()
  readonly #logs = new Map<number, LogRing>()

  constructor(driver: RuntimeDriver) {
    this.#driver = driver
  }

  async deploy(item: WorkItem): Promise<Outcome> {
    return await this.#act(item.mockServiceId, async () => await this.#driver.deploy(specOf(item)))
  }

  async configure(item: WorkItem): Promise<Outcome> {
    return await this.#act(
      item.mockServiceId,
      async () => await this.#driver.configure(specOf(item)),
    )
  }

  async stop(item: WorkItem): Promise<Outcome> {
    return await this.#act(item.mockServiceId, async () => {
      await this.#driver.stop(item.mockServiceId)
      return await this.#driver.status(item.mockServiceId)
    })
  }

  async remove(mockServiceId: number): Promise<void> {
    await this.#driver.remove(mockServiceId)
    this.#placements.delete(mockServiceId)
    this.#failed.delete(mockServiceId)
    this.#logs.delete(mockServiceId)
  }

  view(mockServiceId: number): RunView | undefined {
    const placement = this.#placements.get(mockServiceId)
    if (placement === undefined) {
      return this.#failed.has(mockServiceId)
        ? { status: 'FAILED', endpoints: { http: null, https: null }, pid: null, port: null }
        : undefined
    }
    const status =
      placement.status === 'STARTING'
        ? 'PENDING'
        : this.#failed.has(mockServiceId)
          ? 'FAILED'
          : placement.status
    const http = placement.endpoints.find((e) => e.startsWith('http://')) ?? null
    return {
      status,
      endpoints: { http: status === 'RUNNING' ? http : null, https: null },
      pid: null,
      port: null,
    }
  }

  isRunning(mockServiceId: number): boolean {
    const status = this.#placements.get(mockServiceId)?.status
    return status === 'RUNNING' || status === 'STARTING'
  }

  async admin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    // Inspection and verification fanned in over every pod; the rest asked of one ready pod.
    return this.isRunning(mockServiceId)
      ? kubernetesRuntimeAdmin(this.#driver, mockServiceId)
      : null
  }

  logs(mockServiceId: number, limit: number): string[] {
    return this.#logs.get(mockServiceId)?.snapshot(limit) ?? []
  }

  async figures(): Promise<{ memoryUsage: number; transactionsCount: number }> {
    // Pods' memory is the cluster's to measure; the agent reports its own.
    return { memoryUsage: process.memoryUsage().rss, transactionsCount: 0 }
  }

  onChange(): void {
    // The cluster restarts crashed pods by itself; states are read back on every action.
  }

  async shutdown(): Promise<void> {
    // Pods keep serving without the agent.
  }

  async #act(
    mockServiceId: number,
    work: () => Promise<KubernetesPlacement | null>,
  ): Promise<Outcome> {
    try {
      const placement = await work()
      if (placement !== null) this.#placements.set(mockServiceId, placement)
      this.#failed.delete(mockServiceId)
      this.#note(mockServiceId, 30, 'kubernetes objects applied', placement?.status ?? 'gone')
      return { ok: true, errors: [], warnings: [] }
    } catch (err) {
      const error = {
        code: isUnderstudyError(err) ? err.code : 'ERR_DEPLOY_FAILED',
        message: (err as Error).message,
      }
      this.#failed.set(mockServiceId, error.message)
      this.#note(mockServiceId, 50, error.message, 'FAILED')
      return { ok: false, errors: [error], warnings: [] }
    }
  }

  #note(mockServiceId: number, level: number, msg: string, status: string): void {
    let ring = this.#logs.get(mockServiceId)
    if (ring === undefined) {
      ring = new LogRing(LOG_LINES)
      this.#logs.set(mockServiceId, ring)
    }
    ring.write(
      JSON.stringify({
        level,
        time: Date.now(),
        source: 'agent',
        serviceMockId: mockServiceId,
        status,
        msg,
      }),
    )
  }
}

function specOf(item: WorkItem) {
  return {
    mockServiceId: item.mockServiceId,
    name: item.name,
    replicas: item.replicas,
    document: item.document as unknown as MockServiceDocument,
  }
}
