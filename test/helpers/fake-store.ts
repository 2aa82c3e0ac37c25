import type { DeployerStore } from '../../src/deploy/index.js'
import type {
  ListQuery,
  MockService,
  MockServiceRepository,
  MockServiceStatus,
  Page,
  Tracking,
  TrackingRepository,
} from '../../src/store/index.js'
import { mockServiceInput } from './mock-service-input.js'

/*
 * An in-memory stand-in for the two repositories the deployer uses (mock services and trackings)
 * and `write`, which here runs the function without a transaction. Records are copied in and out,
 * as a database would, so that a test cannot change the store through an object it holds.
 */

const copy = <T>(value: T): T => structuredClone(value)

function page<T>(items: T[], query: ListQuery): Page<T> {
  return {
    items: items.slice(query.skip, query.limit > 0 ? query.skip + query.limit : undefined),
    total: items.length,
  }
}

class FakeMockServices implements MockServiceRepository {
  readonly rows = new Map<number, MockService>()
  #nextId = 1

  async create(input: Parameters<MockServiceRepository['create']>[0]): Promise<MockService> {
    const { by, ...fields } = input
    const now = Date.now()
    const record: MockService = {
      ...fields,
      id: this.#nextId++,
      created: now,
      updated: now,
      createdBy: by,
      updatedBy: by,
    }
    this.rows.set(record.id, copy(record))
    return copy(record)
  }

  async get(workspaceId: number, id: number): Promise<MockService | undefined> {
    const row = this.rows.get(id)
    return row === undefined || row.workspaceId !== workspaceId ? undefined : copy(row)
  }

  async getById(id: number): Promise<MockService | undefined> {
    const row = this.rows.get(id)
    return row === undefined ? undefined : copy(row)
  }

  async list(
    workspaceId: number,
    filter: { serviceId?: number },
    query: ListQuery,
  ): Promise<Page<MockService>> {
    const rows = [...this.rows.values()].filter(
      (r) =>
        r.workspaceId === workspaceId &&
        (filter.serviceId === undefined || r.serviceId === filter.serviceId),
    )
    return page(rows.map(copy), query)
  }

  async listByStatus(statuses: readonly MockServiceStatus[]): Promise<MockService[]> {
    return [...this.rows.values()].filter((r) => statuses.includes(r.status)).map(copy)
  }

  async update(
    id: number,
    patch: Parameters<MockServiceRepository['update']>[1],
  ): Promise<MockService | undefined> {
    const row = this.rows.get(id)
    if (row === undefined) return undefined
    const { by, ...fields } = patch
    const next: MockService = { ...row, ...fields, updated: Date.now() }
    if (by !== undefined) next.updatedBy = by
    this.rows.set(id, copy(next))
    return copy(next)
  }

  async delete(workspaceId: number, id: number): Promise<boolean> {
    const row = this.rows.get(id)
    if (row === undefined || row.workspaceId !== workspaceId) return false
    return this.rows.delete(id)
  }

  async countByService(workspaceId: number, serviceId: number): Promise<number> {
    return [...this.rows.values()].filter(
      (r) => r.workspaceId === workspaceId && r.serviceId === serviceId,
    ).length
  }

  async usedPorts(): Promise<number[]> {
    const ports: number[] = []
    for (const row of this.rows.values()) {
      if (row.port !== null) ports.push(row.port)
      if (row.tlsPort !== null) ports.push(row.tlsPort)
    }
    return ports
  }
}

class FakeTrackings implements TrackingRepository {
  readonly rows = new Map<string, Tracking>()

  async create(input: Parameters<TrackingRepository['create']>[0]): Promise<Tracking> {
    const now = Date.now()
    const record: Tracking = { ...input, created: now, updated: now, ended: null }
    this.rows.set(record.trackingId, copy(record))
    return copy(record)
  }

  async get(trackingId: string): Promise<Tracking | undefined> {
    const row = this.rows.get(trackingId)
    return row === undefined ? undefined : copy(row)
  }

  async update(
    trackingId: string,
    patch: Parameters<TrackingRepository['update']>[1],
  ): Promise<Tracking | undefined> {
    const row = this.rows.get(trackingId)
    if (row === undefined) return undefined
    const next = { ...row, ...patch, updated: Date.now() }
    this.rows.set(trackingId, copy(next))
    return copy(next)
  }

  async latestOf(mockServiceId: number, action: Tracking['action']): Promise<Tracking | undefined> {
    const rows = [...this.rows.values()].filter(
      (r) => r.mockServiceId === mockServiceId && r.action === action,
    )
    const last = rows[rows.length - 1]
    return last === undefined ? undefined : copy(last)
  }
}

/** The fake store: the deployer's repositories, and every status a tracking went through. */
export class FakeStore implements DeployerStore {
  readonly mockServices = new FakeMockServices()
  readonly trackings = new FakeTrackings()

  async write<T>(
    fn: (tx: Pick<DeployerStore, 'mockServices' | 'trackings'>) => Promise<T>,
  ): Promise<T> {
    return await fn(this)
  }
}

/**
 * Creates a mock service record (STOPPED, no port) in the fake store.
 *
 * @example
 * const mock = await createMock(store, { replicas: 2 })
 */
export async function createMock(
  store: FakeStore,
  overrides: Parameters<MockServiceRepository['update']>[1] = {},
): Promise<MockService> {
  const record = await store.mockServices.create(
    mockServiceInput(1, 1, { name: 'orders', capacity: null, replicas: null }),
  )
  if (Object.keys(overrides).length === 0) return record
  return (await store.mockServices.update(record.id, overrides)) as MockService
}
