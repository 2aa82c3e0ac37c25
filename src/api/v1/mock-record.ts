import type { MockService, Repositories } from '../../store/index.js'
import { mockServiceView } from './service-mock-views.js'

/**
 * A mock service as v1 answers it: the record view with its service's name and the
 * configuration it uses (a field the product's clients read).
 *
 * @example
 * const record = await mockServiceRecord(ctx.deps.store, mock)
 */
export async function mockServiceRecord(repos: Repositories, mock: MockService) {
  const service = await repos.services.get(mock.workspaceId, mock.serviceId)
  return mockServiceView(mock, service, await repos.mockSettings.configurationOf(mock.id))
}
