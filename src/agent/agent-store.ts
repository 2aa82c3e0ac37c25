import type { DeployerStore } from '../deploy/index.js'
import type { MockService, Repositories, Tracking } from '../store/index.js'

type MockRepo = Repositories['mockServices']
type TrackingRepo = Repositories['trackings']

/** Trackings kept: the agent needs only the ones under way and just ended. */
const TRACKINGS_KEPT = 1000

/**
 * The records the local deployer keeps while it works, in the agent's memory: one mock service
 * record per mock service the ship runs (the ports it got, status, endpoints) and the deployer's
 * own trackings. The platform's store is the platform's; the agent learns from its desired state
 * and reports back what these records say.
 *
 * @example
 * const store = new AgentStore((id) => reporter.changed(id))
 * store.put(record)
 */
export class AgentStore implements DeployerStore {
  readonly #mocks = new Map<number, MockService>()
  readonly #trackings = new Map<string, Tracking>()
  readonly #onChange: (mockServiceId: number) => void

  constructor(onChange: (mockServiceId: number) => void) {
    this.#onChange = onChange
  }

  /** Sets the record of a mock service (from the desired state), keeping what the deployer wrote. */
  put(record: MockService): MockService {
    const current = this.#mocks.get(record.id)
    const merged: MockService =
      current === undefined
        ? record
        : {
            ...record,
            status: current.status,
            httpEndpoint: current.httpEndpoint,
            httpsEndpoint: current.httpsEndpoint,
            deployDate: current.deployDate,
          }
    this.#mocks.set(record.id, merged)
    return merged
  }

  record(id: number): MockService | undefined {
    return this.#mocks.get(id)
  }

  forget(id: number): void {
    this.#mocks.delete(id)
  }

  readonly mockServices: MockRepo = {
    create: async () => {
      throw new Error('the agent creates no mock service records')
    },
    get: async (_workspaceId, id) => this.#mocks.get(id),
    getById: async (id) => this.#mocks.get(id),
    list: async () => ({ items: [...this.#mocks.values()], total: this.#mocks.size }),
    listByStatus: async (statuses) =>
      [...this.#mocks.values()].filter((m) => statuses.includes(m.status)),
    update: async (id, patch) => {
      const current = this.#mocks.get(id)
      if (current === undefined) return undefined
      const { by: _by, ...fields } = patch
      const next = { ...current, ...fields, updated: Date.now() } as MockService
      this.#mocks.set(id, next)
      this.#onChange(id)
      return next
    },
    delete: async (_workspaceId, id) => this.#mocks.delete(id),
    countByService: async () => 0,
    usedPorts: async () => {
      const ports: number[] = []
      for (const m of this.#mocks.values()) {
        if (m.port !== null) ports.push(m.port)
        if (m.tlsPort !== null) ports.push(m.tlsPort)
      }
      return ports
    },
  }

  readonly trackings: TrackingRepo = {
    create: async (input) => {
      const now = Date.now()
      const tracking: Tracking = { ...input, created: now, updated: now, ended: null }
      if (this.#trackings.size >= TRACKINGS_KEPT) {
        for (const [id, t] of this.#trackings) {
          if (t.ended !== null) this.#trackings.delete(id)
          if (this.#trackings.size < TRACKINGS_KEPT / 2) break
        }
      }
      this.#trackings.set(tracking.trackingId, tracking)
      return tracking
    },
    get: async (id) => this.#trackings.get(id),
    update: async (id, patch) => {
      const current = this.#trackings.get(id)
      if (current === undefined) return undefined
      const next = { ...current, ...patch, updated: Date.now() }
      this.#trackings.set(id, next)
      return next
    },
    latestOf: async (mockServiceId, action) =>
      [...this.#trackings.values()]
        .filter((t) => t.mockServiceId === mockServiceId && t.action === action)
        .at(-1),
  }

  readonly write = async <T>(
    fn: (tx: Pick<Repositories, 'mockServices' | 'trackings'>) => Promise<T>,
  ): Promise<T> => await fn(this)
}
