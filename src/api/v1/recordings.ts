import { createError, isUnderstudyError } from '../../errors/index.js'
import type { TransactionDsl } from '../../dsl/index.js'
import type { MockService, Repositories, Workspace } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { mockServiceOf } from './mock-lookup.js'
import { adminCall } from './runtime-admin.js'
import { readTransactionBatch } from './transaction-input.js'

/*
 * A deployed mock service in `noMatchingRequestPreference: record` records in its runtime
 * (admin `GET /recordings`); the platform pulls that recording into the mock service's service in
 * the store. Decision (docs/api.md "Recording"): the platform pulls, no runtime calls back:
 * - before every deploy, configure and stop of the mock service (so switching the mode with PATCH
 *   then `configure` serves what was recorded, and nothing recorded is lost by a stop), and
 * - on demand: `POST .../service-mocks/{id}/recordings` saves now, `GET` reads without saving.
 * Saving twice updates, never duplicates: a recorded transaction whose request (the whole
 * `requestDsl`) equals that of a transaction of the service replaces its response.
 */

/** What one save did. */
interface SavedRecordings {
  /** Transactions recorded by the runtime. */
  recorded: number
  created: number[]
  updated: number[]
}

interface RecordingsView {
  count: number
  transactions: unknown[]
}

/** The runtime's recording, or null when the mock service is not running or holds none reachable. */
async function runtimeRecordings(
  ctx: ApiContext,
  mock: MockService,
): Promise<RecordingsView | null> {
  const adminUrl = await ctx.deps.deployer.admin(mock.id)
  if (adminUrl === null) return null
  try {
    return (await adminCall<RecordingsView>(adminUrl, 'GET', '/recordings')).result
  } catch (err) {
    // A runtime that cannot convert a recording holds none reachable (an older runtime with
    // --replicas said so too): nothing to save.
    if (isUnderstudyError(err) && /recordings are not reachable/.test(err.message)) return null
    throw err
  }
}

/** The key that makes a recorded request and a stored transaction the same one. */
function requestKey(dsl: TransactionDsl): string {
  return canonical(dsl.requestDsl)
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * Pulls the runtime's recording into the store (see above). Nothing happens when the mock service
 * is not running or recorded nothing. Throws 503 when the runtime does not answer.
 *
 * @example
 * const saved = await saveRecordings(ctx, workspace, mock) // { recorded: 4, created: [12, 13, 14, 15], updated: [] }
 */
export async function saveRecordings(
  ctx: ApiContext,
  workspace: Workspace,
  mock: MockService,
): Promise<SavedRecordings> {
  const view = await runtimeRecordings(ctx, mock)
  if (view === null || view.transactions.length === 0) {
    return { recorded: 0, created: [], updated: [] }
  }
  // The runtime's transactions are checked as any transaction sent to the platform.
  const drafts = readTransactionBatch({ transactions: view.transactions })
  const by = ctx.principal.user.email
  return ctx.deps.store.write(async (tx) => {
    const existing = await tx.transactions.list(
      workspace.id,
      { serviceId: mock.serviceId },
      { limit: Number.MAX_SAFE_INTEGER, skip: 0 },
    )
    const byRequest = new Map(existing.items.map((t) => [requestKey(t.dsl), t]))
    const created: number[] = []
    const updated: number[] = []
    for (const draft of drafts) {
      const key = requestKey(draft.dsl)
      const same = byRequest.get(key)
      if (same !== undefined) {
        await tx.transactions.update(workspace.id, same.id, { dsl: draft.dsl, by })
        updated.push(same.id)
        continue
      }
      const stored = await tx.transactions.create({
        workspaceId: workspace.id,
        serviceId: mock.serviceId,
        dslType: 'HAR_DSL',
        ...draft,
        by,
      })
      byRequest.set(key, stored)
      created.push(stored.id)
    }
    await includeInMock(tx, mock, created, by)
    return { recorded: drafts.length, created, updated }
  })
}

/**
 * A mock service with an explicit transaction list serves the new recordings too (one with an
 * empty list serves every transaction of its service already).
 */
async function includeInMock(
  tx: Repositories,
  mock: MockService,
  created: number[],
  by: string,
): Promise<void> {
  if (created.length === 0 || mock.mockServiceTransactions.length === 0) return
  const current = await tx.mockServices.getById(mock.id)
  if (current === undefined) return
  const refs = [
    ...current.mockServiceTransactions,
    ...created.map((txnId) => ({ txnId, priority: null })),
  ]
  await tx.mockServices.update(mock.id, { mockServiceTransactions: refs, by })
}

const base = '/api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/recordings'

export const recordingRoutes: Route[] = [
  {
    method: 'GET',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const { mock } = await mockServiceOf(ctx)
      const view = await runtimeRecordings(ctx, mock)
      return { result: view ?? { count: 0, transactions: [] } }
    },
  },
  {
    method: 'POST',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const { workspace, mock } = await mockServiceOf(ctx)
      if ((await ctx.deps.deployer.admin(mock.id)) === null) {
        throw createError('ERR_API_CONFLICT', [
          `Service mock ${mock.id} is not running: it holds no recording`,
        ])
      }
      return { result: await saveRecordings(ctx, workspace, mock) }
    },
  },
]
