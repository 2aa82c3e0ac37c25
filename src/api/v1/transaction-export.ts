import { createError } from '../../errors/index.js'
import type { TransactionFilter, Workspace } from '../../store/index.js'
import type { ApiContext, HandlerResult } from '../http/types.js'
import { booleanOf, optionalIntQuery } from './catalog-lookups.js'
import { invalidField } from '../validation.js'

/*
 * The export of the product's clients:
 * `GET /transactions?serviceMockId=M&exportAsFile=true&type=GENERIC_DSL&limit=-1` answers
 * `{transactions: [...]}` (every transaction in full, as GET shows them) as a file download, the
 * document `understudy serve`, `understudy import` and the transaction upload read back.
 */

/** Narrows a list filter to a mock service's transactions (`?serviceMockId=`); unchanged without it. */
export async function withMockServiceFilter(
  ctx: ApiContext,
  workspace: Workspace,
  filter: TransactionFilter,
): Promise<TransactionFilter> {
  const mockId = optionalIntQuery(ctx.query, 'serviceMockId')
  if (mockId === undefined) return filter
  const mock = await ctx.deps.store.mockServices.get(workspace.id, mockId)
  if (mock === undefined) throw createError('ERR_API_NOT_FOUND', [`Mock service ${mockId}`])
  const ids = mock.mockServiceTransactions.map((e) => e.txnId)
  // an empty selection serves the whole service (mock-document.ts): export the same
  return ids.length === 0 ? { ...filter, serviceId: mock.serviceId } : { ...filter, ids }
}

/** True when the query asks for the export file; 400 for an export type other than GENERIC_DSL. */
export function wantsExportFile(query: URLSearchParams): boolean {
  if (!booleanOf(query.get('exportAsFile'), '/exportAsFile')) return false
  const type = query.get('type')
  if (type !== null && type !== '' && type.toUpperCase() !== 'GENERIC_DSL') {
    throw invalidField('/type', 'must be GENERIC_DSL: the export writes the transaction DSL')
  }
  return true
}

/** The export document as an attachment. */
export function exportFile(transactions: unknown[], workspaceId: number): HandlerResult {
  const body = JSON.stringify({ transactions }, null, 2)
  return {
    status: 200,
    raw: body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="transactions-${workspaceId}.json"`,
    },
  }
}
