import { describe, expect, it } from 'vitest'
import { mockServiceDocument } from '../../../src/api/v1/mock-document.js'
import { MAX_TRANSACTIONS } from '../../../src/dsl/index.js'
import type { AssetFiles, MockService, Repositories } from '../../../src/store/index.js'

/** Repositories that hold a service of `total` transactions and record what was asked of them. */
function reposWith(total: number, asked: Array<{ limit: number }>): Repositories {
  return {
    services: { get: async () => ({ name: 'big' }) },
    transactions: {
      list: async (
        _workspaceId: number,
        _filter: unknown,
        page: { limit: number; skip: number },
      ) => {
        asked.push({ limit: page.limit })
        return { items: [], total }
      },
    },
    mockSettings: { configurationOf: async () => null },
  } as unknown as Repositories
}

const mock = (ids: number[]): MockService =>
  ({
    id: 7,
    workspaceId: 1,
    serviceId: 2,
    type: 'TRANSACTIONAL',
    mockServiceTransactions: ids.map((txnId) => ({ txnId, priority: null })),
    noMatchingRequestTxnId: null,
  }) as unknown as MockService

// The runtime refuses more than MAX_TRANSACTIONS; the platform refuses to deploy such a mock
// service (422) before it reads its transactions, rather than assembling and sending all of them.
describe('deploying a mock service past the transaction bound', () => {
  it('refuses every transaction of a service past the bound, having asked for no more than one past it', async () => {
    const asked: Array<{ limit: number }> = []
    await expect(
      mockServiceDocument(reposWith(MAX_TRANSACTIONS + 1, asked), {} as AssetFiles, mock([])),
    ).rejects.toMatchObject({
      code: 'ERR_API_UNPROCESSABLE',
      statusCode: 422,
      message: expect.stringContaining(
        'has 250,001 transactions: a mock service may have at most 250,000',
      ) as unknown,
    })
    expect(asked).toEqual([{ limit: MAX_TRANSACTIONS + 1 }])
  })

  it('refuses a selection past the bound before looking any of it up', async () => {
    const asked: Array<{ limit: number }> = []
    const ids = Array.from({ length: MAX_TRANSACTIONS + 1 }, (_, i) => i + 1)
    await expect(
      mockServiceDocument(reposWith(0, asked), {} as AssetFiles, mock(ids)),
    ).rejects.toMatchObject({ code: 'ERR_API_UNPROCESSABLE', statusCode: 422 })
    expect(asked).toEqual([])
  })
})
