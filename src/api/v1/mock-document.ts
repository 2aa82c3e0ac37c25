import { createError } from '../../errors/index.js'
import {
  MAX_TRANSACTIONS,
  normalizeDocument,
  transactionCountProblem,
  type DocumentInput,
  type MockServiceDocument,
  type Transaction,
} from '../../dsl/index.js'
import { importOffThread } from './upload/index.js'
import type { AssetBytes, MockService, Repositories, StoredTransaction } from '../../store/index.js'

/**
 * The document `understudy run` serves for a mock service (docs/decisions.md#mock-service-document:
 * the record plus its resolved transactions):
 * - TRANSACTIONAL: the transactions of `mockServiceTransactions` (with their priorities), or, when
 *   the list is empty, every transaction of the service; `noMatchingRequestTxnId` is added when it
 *   is not among them, so that it can answer unmatched requests.
 * - SV: the transactions imported from its asset file (any format the importers read).
 * Throws 422 ERR_API_UNPROCESSABLE naming what is missing (a deleted transaction, an asset file).
 *
 * Stored transactions were validated and normalized when they were written, and an asset's
 * transactions by the importer: the document is assembled from them as they are, not turned back
 * into input and validated again. The runtime validates the whole document once, at its own
 * boundary (`PUT /config`), and its ERR_DSL_INVALID (with the JSON pointers) reaches the
 * tracking's errors unchanged.
 *
 * @example
 * const document = await mockServiceDocument(store, files, mock)
 */
export async function mockServiceDocument(
  repos: Repositories,
  files: AssetBytes,
  mock: MockService,
): Promise<MockServiceDocument> {
  const service = await repos.services.get(mock.workspaceId, mock.serviceId)
  let transactions: Transaction[]
  if (mock.type === 'SV') {
    transactions = await assetTransactions(repos, files, mock)
  } else {
    transactions = (await transactionsOf(repos, mock)).map(transactionOf)
  }
  transactions = await withConfiguration(repos, mock, transactions)
  refuseTooMany(mock, transactions.length)
  return normalizeDocument(
    {
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
      proxy: mock.proxy ?? null,
      mockServiceTransactions:
        mock.type === 'SV'
          ? []
          : mock.mockServiceTransactions.map((e) => (e.priority === null ? { txnId: e.txnId } : e)),
      // Stored as the document writes them, validated by the same schema when set
      cors: mock.cors,
      faults: mock.faults,
      templateSeed: mock.templateSeed,
      matchHost: mock.matchHost,
    } as DocumentInput,
    transactions,
  )
}

/**
 * 422 for a mock service past the runtime's bound on transactions (docs/limits.md): its runtime
 * would refuse the document anyway, after the platform had read and sent all of it.
 */
function refuseTooMany(mock: MockService, count: number): void {
  const problem = transactionCountProblem(count)
  if (problem !== null) {
    throw createError('ERR_API_UNPROCESSABLE', [
      `mock service ${mock.id} ${problem}; select fewer in mockServiceTransactions or split the service`,
    ])
  }
}

async function transactionsOf(
  repos: Repositories,
  mock: MockService,
): Promise<StoredTransaction[]> {
  const ids = mock.mockServiceTransactions.map((e) => e.txnId)
  if (
    mock.noMatchingRequestTxnId !== null &&
    ids.length > 0 &&
    !ids.includes(mock.noMatchingRequestTxnId)
  ) {
    ids.push(mock.noMatchingRequestTxnId)
  }
  refuseTooMany(mock, ids.length)
  if (ids.length === 0) {
    // One more than the bound is enough to know it is passed, without reading millions of rows.
    const page = await repos.transactions.list(
      mock.workspaceId,
      { serviceId: mock.serviceId },
      { limit: MAX_TRANSACTIONS + 1, skip: 0 },
    )
    refuseTooMany(mock, Math.max(page.total, page.items.length))
    return page.items
  }
  const page = await repos.transactions.list(
    mock.workspaceId,
    { ids },
    { limit: ids.length, skip: 0 },
  )
  const found = new Map(page.items.map((t) => [t.id, t]))
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length > 0) {
    throw createError('ERR_API_UNPROCESSABLE', [
      `mock service ${mock.id} refers to transactions that do not exist: ${missing.join(', ')}`,
    ])
  }
  return ids.map((id) => found.get(id) as StoredTransaction)
}

function transactionOf(t: StoredTransaction): Transaction {
  const txn: Transaction = {
    id: t.id,
    name: t.name,
    tags: t.tags,
    serviceId: t.serviceId,
    dsl: t.dsl,
  }
  if (t.description !== null) txn.description = t.description
  return txn
}

async function assetTransactions(
  repos: Repositories,
  files: AssetBytes,
  mock: MockService,
): Promise<Transaction[]> {
  if (mock.assetId === null) {
    throw createError('ERR_API_UNPROCESSABLE', [
      `mock service ${mock.id} is of type SV but has no assetId`,
    ])
  }
  const asset = await repos.assets.get(mock.workspaceId, mock.assetId)
  if (asset === undefined) {
    throw createError('ERR_API_UNPROCESSABLE', [
      `asset ${mock.assetId} of mock service ${mock.id} does not exist`,
    ])
  }
  const bytes = await files.get(asset.fileId)
  if (bytes === undefined) {
    throw createError('ERR_API_UNPROCESSABLE', [`the file of asset ${asset.id} is missing`])
  }
  const imported = await importOffThread('document', {
    bytes,
    fileName: asset.name,
    movable: false,
  })
  return imported.document.transactions
}

// --- configurations ---
/**
 * Puts the values of the mock service's configuration into its responses: every `${config.KEY}`
 * in a response's text content, header values and reason phrase becomes the value of KEY (an
 * unknown KEY is left as written). Done when the document is built (deploy, configure), so the
 * runtime serves plain precompiled responses; a binary or non-UTF-8 body is left untouched.
 */
async function withConfiguration(
  repos: Repositories,
  mock: MockService,
  transactions: Transaction[],
): Promise<Transaction[]> {
  const configurationId = await repos.mockSettings.configurationOf(mock.id)
  if (configurationId === null) return transactions
  const configuration = await repos.mockSettings.get(
    mock.workspaceId,
    'configuration',
    configurationId,
  )
  const map = configuration?.body['configurationMap']
  if (typeof map !== 'object' || map === null) return transactions
  const values = new Map<string, string>()
  for (const [key, entry] of Object.entries(map as Record<string, { value?: unknown }>)) {
    values.set(key, entry.value === null || entry.value === undefined ? '' : String(entry.value))
  }
  const fill = (text: string): string =>
    text.replace(
      /\$\{config\.([A-Za-z0-9_.-]+)\}/g,
      (whole, key: string) => values.get(key) ?? whole,
    )
  return transactions.map((t) => {
    const response = t.dsl.responseDsl
    if (response === undefined) return t
    const next = { ...response }
    if (typeof next.content === 'string' && next.binary !== true) {
      const bytes = Buffer.from(next.content, 'base64')
      const text = bytes.toString('utf8')
      if (Buffer.from(text, 'utf8').equals(bytes) && text.includes('${config.')) {
        next.content = Buffer.from(fill(text), 'utf8').toString('base64')
      }
    }
    if (next.headers !== undefined) {
      next.headers = next.headers.map((h) =>
        typeof h.value === 'string' ? { name: h.name, value: fill(h.value) } : h,
      )
    }
    if (typeof next.statusMessage === 'string') next.statusMessage = fill(next.statusMessage)
    return { ...t, dsl: { ...t.dsl, responseDsl: next } }
  })
}
