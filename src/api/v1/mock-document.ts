import { createError } from '../../errors/index.js'
import { readDefinition, type MockServiceDocument, type TransactionInput } from '../../dsl/index.js'
import { importOffThread } from '../import-off-thread.js'
import type { AssetFiles, MockService, Repositories, StoredTransaction } from '../../store/index.js'

/**
 * The document `understudy run` serves for a mock service (DESIGN.md section 5: "the mock-service
 * document (record + resolved transactions)"):
 * - TRANSACTIONAL: the transactions of `mockServiceTransactions` (with their priorities), or, when
 *   the list is empty, every transaction of the service; `noMatchingRequestTxnId` is added when it
 *   is not among them, so that it can answer unmatched requests.
 * - SV: the transactions imported from its asset file (any format the importers read).
 * Throws 422 ERR_API_UNPROCESSABLE naming what is missing (a deleted transaction, an asset file).
 *
 * @example
 * const document = await mockServiceDocument(store, files, mock)
 */
export async function mockServiceDocument (repos: Repositories, files: AssetFiles, mock: MockService): Promise<MockServiceDocument> {
  const service = await repos.services.get(mock.workspaceId, mock.serviceId)
  let transactions: TransactionInput[]
  if (mock.type === 'SV') {
    transactions = await assetTransactions(repos, files, mock)
  } else {
    transactions = (await transactionsOf(repos, mock)).map(inputOf)
  }
  const fields = {
    id: mock.id,
    name: mock.name,
    description: mock.description,
    serviceId: mock.serviceId,
    serviceName: service?.name ?? null,
    thinkTime: mock.thinkTime,
    capacity: mock.capacity,
    replicas: mock.replicas,
    noMatchingRequestPreference: mock.noMatchingRequestPreference,
    noMatchingRequestTxnId: mock.noMatchingRequestTxnId,
    liveSystemHost: mock.liveSystemHost,
    liveSystemPort: mock.liveSystemPort,
    endpointPreference: mock.endpointPreference,
    mockServiceTransactions: mock.type === 'SV' ? [] : mock.mockServiceTransactions.map((e) => (e.priority === null ? { txnId: e.txnId } : e)),
    transactions,
  }
  try {
    return readDefinition(fields)
  } catch (err) {
    throw createError('ERR_API_UNPROCESSABLE', [`mock service ${mock.id} cannot be served: ${(err as Error).message}`], { cause: err })
  }
}

async function transactionsOf (repos: Repositories, mock: MockService): Promise<StoredTransaction[]> {
  const ids = mock.mockServiceTransactions.map((e) => e.txnId)
  if (mock.noMatchingRequestTxnId !== null && ids.length > 0 && !ids.includes(mock.noMatchingRequestTxnId)) ids.push(mock.noMatchingRequestTxnId)
  if (ids.length === 0) {
    const page = await repos.transactions.list(mock.workspaceId, { serviceId: mock.serviceId }, { limit: Number.MAX_SAFE_INTEGER, skip: 0 })
    return page.items
  }
  const page = await repos.transactions.list(mock.workspaceId, { ids }, { limit: ids.length, skip: 0 })
  const found = new Map(page.items.map((t) => [t.id, t]))
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length > 0) {
    throw createError('ERR_API_UNPROCESSABLE', [`mock service ${mock.id} refers to transactions that do not exist: ${missing.join(', ')}`])
  }
  return ids.map((id) => found.get(id) as StoredTransaction)
}

function inputOf (t: StoredTransaction): TransactionInput {
  return { id: t.id, name: t.name, description: t.description, tags: t.tags, serviceId: t.serviceId, dsl: t.dsl }
}

async function assetTransactions (repos: Repositories, files: AssetFiles, mock: MockService): Promise<TransactionInput[]> {
  if (mock.assetId === null) throw createError('ERR_API_UNPROCESSABLE', [`mock service ${mock.id} is of type SV but has no assetId`])
  const asset = await repos.assets.get(mock.workspaceId, mock.assetId)
  if (asset === undefined) throw createError('ERR_API_UNPROCESSABLE', [`asset ${mock.assetId} of mock service ${mock.id} does not exist`])
  const bytes = await files.get(asset.fileId)
  if (bytes === undefined) throw createError('ERR_API_UNPROCESSABLE', [`the file of asset ${asset.id} is missing`])
  const imported = await importOffThread({ bytes, fileName: asset.name })
  return imported.document.transactions.map((t) => ({ ...t, dsl: t.dsl }))
}
