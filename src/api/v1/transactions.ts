import { createError } from '../../errors/index.js'
import {
  type StoredTransaction,
  type TransactionFilter,
  type Workspace,
} from '../../store/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField } from '../validation.js'
import { optionalIntQuery, serviceGone, serviceNames, serviceOf } from './catalog-lookups.js'
import { okBody } from './delete-body.js'
import { readTransactionBatch, readTransactionChanges } from './transaction-input.js'
import { uploadTransactions } from './upload/index.js'
import { transactionView } from './views.js'
import { exportFile, wantsExportFile, withMockServiceFilter } from './transaction-export.js'

/** The fields sorting accepts. */
const sortable = [
  'id',
  'name',
  'created',
  'updated',
  'createdBy',
  'updatedBy',
  'serviceId',
  'dslType',
]

function path(rest = ''): string {
  return `/api/v1/workspaces/:workspaceId/transactions${rest}`
}

/**
 * The filters of the transaction list (the mock services specification leaves their names out):
 * `serviceId`; `name` (exact); `search` (alias `contains`: case-insensitive substring of the name
 * or description); `tags` (alias `tag`; comma-separated and/or repeated; a transaction must carry
 * all of them); `dslType` (GENERIC_DSL, HAR_DSL, ...; case-insensitive).
 *
 * @example
 * transactionFilterOf(new URLSearchParams('serviceId=3&tags=smoke,orders&search=pet'))
 */
function transactionFilterOf(query: URLSearchParams): TransactionFilter {
  const filter: TransactionFilter = {}
  const serviceId = optionalIntQuery(query, 'serviceId')
  if (serviceId !== undefined) filter.serviceId = serviceId
  const name = query.get('name')
  if (name !== null && name !== '') filter.name = name
  const search = query.get('search') ?? query.get('contains')
  if (search !== null && search.trim() !== '') filter.contains = search.trim()
  const tags = [...query.getAll('tags'), ...query.getAll('tag')]
    .flatMap((v) => v.split(','))
    .map((t) => t.trim())
    .filter((t) => t !== '')
  if (tags.length > 0) filter.tags = [...new Set(tags)]
  const dslType = query.get('dslType')
  if (dslType !== null && dslType.trim() !== '') filter.dslType = dslType.trim().toUpperCase()
  return filter
}

/**
 * Transactions as responses show them, with their services' names (one lookup per service).
 *
 * @example
 * const views = await viewsOf(ctx, workspace.id, page.items)
 */
export async function viewsOf(
  ctx: ApiContext,
  workspaceId: number,
  items: readonly StoredTransaction[],
) {
  const names = await serviceNames(
    ctx.deps.store,
    workspaceId,
    items.map((t) => t.serviceId),
  )
  return items.map((t) => transactionView(t, names.get(t.serviceId) ?? ''))
}

async function existing(ctx: ApiContext, workspaceId: number): Promise<StoredTransaction> {
  const id = ctx.intParam('transactionId')
  const txn = await ctx.deps.store.transactions.get(workspaceId, id)
  if (txn === undefined) throw createError('ERR_API_NOT_FOUND', [`Transaction ${id}`])
  return txn
}

/** `POST /transactions` with JSON: the query's `serviceId` is required. */
async function createTransactions(ctx: ApiContext, workspace: Workspace): Promise<HandlerResult> {
  const serviceId = optionalIntQuery(ctx.query, 'serviceId')
  if (serviceId === undefined) {
    throw invalidField('/serviceId', 'is required (query parameter ?serviceId=)')
  }
  const drafts = readTransactionBatch(await ctx.json())
  const service = await serviceOf(ctx.deps.store, workspace.id, serviceId, '/serviceId')
  const by = ctx.principal.user.email
  const created = await ctx.deps.store
    .write(async (tx) => {
      await tx.tags.ensure(
        ctx.principal.account.id,
        drafts.flatMap((d) => d.tags),
        by,
      )
      const out: StoredTransaction[] = []
      for (const draft of drafts) {
        out.push(
          await tx.transactions.create({
            workspaceId: workspace.id,
            serviceId: service.id,
            dslType: 'GENERIC_DSL',
            ...draft,
            by,
          }),
        )
      }
      return out
    })
    .catch((err: unknown) => {
      throw serviceGone(err, service.id)
    })
  const views = created.map((t) => transactionView(t, service.name))
  // the mock services specification shows one Transaction as the result; a batch of several answers
  // the array
  return { result: views.length === 1 ? views[0] : views }
}

/**
 * `/api/v1/workspaces/{workspaceId}/transactions` (the mock services specification,
 * docs/api.md#transactions): create from JSON or from an uploaded file (multipart, see
 * upload/routes.ts), list with filters and `total`, get, update by PUT (201 with the updated
 * Transaction), delete (`{body, statusCode, statusCodeValue}`). Bulk PATCH and conflicts are in
 * transaction-bulk.ts and conflicts.ts.
 */
export const transactionRoutes: Route[] = [
  {
    method: 'POST',
    path: path(),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      return ctx.isMultipart()
        ? uploadTransactions(ctx, workspace)
        : createTransactions(ctx, workspace)
    },
  },
  {
    method: 'GET',
    path: path(),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const filter = await withMockServiceFilter(ctx, workspace, transactionFilterOf(ctx.query))
      const query = listQueryOf(ctx.query, sortable)
      if (wantsExportFile(ctx.query)) {
        // the export holds every transaction selected, past the page cap of lists
        const all = await ctx.deps.store.transactions.list(workspace.id, filter, {
          limit: Number.MAX_SAFE_INTEGER,
          skip: 0,
          ...(query.sort === undefined ? {} : { sort: query.sort }),
        })
        return exportFile(await viewsOf(ctx, workspace.id, all.items), workspace.id)
      }
      const page = await ctx.deps.store.transactions.list(workspace.id, filter, query)
      return {
        result: await viewsOf(ctx, workspace.id, page.items),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
      }
    },
  },
  {
    method: 'GET',
    path: path('/:transactionId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const [view] = await viewsOf(ctx, workspace.id, [await existing(ctx, workspace.id)])
      return { result: view }
    },
  },
  {
    method: 'PUT',
    path: path('/:transactionId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('transactionId')
      const changes = readTransactionChanges(await ctx.json())
      if (changes.id !== undefined && changes.id !== id) {
        throw invalidField('/id', `must be the id of the path (${id}) when given`)
      }
      if (changes.serviceId !== undefined) {
        await serviceOf(ctx.deps.store, workspace.id, changes.serviceId, '/serviceId')
      }
      const by = ctx.principal.user.email
      // `id` only names the record; everything else in `changes` is what changes
      const { id: _id, ...patch } = changes
      const updated = await ctx.deps.store
        .write(async (tx) => {
          if (patch.tags !== undefined) {
            await tx.tags.ensure(ctx.principal.account.id, patch.tags, by)
          }
          return tx.transactions.update(workspace.id, id, { ...patch, by })
        })
        .catch((err: unknown) => {
          throw serviceGone(err, changes.serviceId ?? 0)
        })
      if (updated === undefined) throw createError('ERR_API_NOT_FOUND', [`Transaction ${id}`])
      const [view] = await viewsOf(ctx, workspace.id, [updated])
      return { status: 201, result: view }
    },
  },
  {
    method: 'DELETE',
    path: path('/:transactionId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('transactionId')
      const deleted = await ctx.deps.store.write(async (tx) =>
        tx.transactions.delete(workspace.id, id),
      )
      if (!deleted) throw createError('ERR_API_NOT_FOUND', [`Transaction ${id}`])
      return okBody(null)
    },
  },
]
