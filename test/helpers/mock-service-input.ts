import type { MockService } from '../../src/store/index.js'

/** The fields of a mock service record that a create sets. */
type MockServiceFields = Omit<MockService, 'id' | 'created' | 'updated' | 'createdBy' | 'updatedBy'>

/**
 * Everything a mock service create takes (a STOPPED TRANSACTIONAL mock service, capacity 100, one
 * replica), with `overrides`.
 *
 * @example
 * await store.mockServices.create(mockServiceInput(workspace.id, service.id, { name: 'orders' }))
 */
export function mockServiceInput(
  workspaceId: number,
  serviceId: number,
  overrides: Partial<MockServiceFields> = {},
  by = 'ada@example.com',
): MockServiceFields & { by: string } {
  return {
    workspaceId,
    serviceId,
    name: 'pets mock',
    description: null,
    type: 'TRANSACTIONAL',
    status: 'STOPPED',
    harborId: null,
    shipId: null,
    bridgeId: null,
    registryId: null,
    vseId: null,
    platformVseId: null,
    endpointPreference: 'HTTP',
    liveSystemHost: null,
    liveSystemPort: null,
    thinkTime: null,
    capacity: 100,
    replicas: 1,
    noMatchingRequestPreference: 'return404',
    noMatchingRequestTxnId: null,
    mockServiceTransactions: [],
    tags: [],
    groupTag: null,
    assetId: null,
    httpEndpoint: null,
    httpsEndpoint: null,
    port: null,
    tlsPort: null,
    deployDate: null,
    pendingUpdate: false,
    cors: null,
    faults: null,
    templateSeed: null,
    matchHost: false,
    ...overrides,
    by,
  }
}
