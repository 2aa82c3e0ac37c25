import type { StoredTransaction } from '../../store/index.js'
import { findConflicts, groupName } from '../../match/index.js'
import type { Route } from '../http/types.js'
import { optionalIntQuery, serviceNames } from './catalog-lookups.js'
import { transactionView } from './views.js'

// The definition of a conflict (docs/api.md, "Conflicts") lives in src/match/conflicts.ts, which
// `serve` shares to warn about transactions that can never be reached.

/**
 * `GET /api/v1/workspaces/{workspaceId}/transactions/conflicts[?serviceId=]`: `result` maps each
 * group name to its conflicting Transactions (a name repeated within a workspace gets ` (2)`,
 * ` (3)`...). `{}` when there is no conflict.
 */
export const conflictRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/transactions/conflicts',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const serviceId = optionalIntQuery(ctx.query, 'serviceId')
      const page = await ctx.deps.store.transactions.list(
        workspace.id,
        serviceId === undefined ? {} : { serviceId },
        { limit: -1, skip: 0 },
      )
      const groups: StoredTransaction[][] = findConflicts(page.items)
      const names = await serviceNames(
        ctx.deps.store,
        workspace.id,
        groups.map((g) => g[0]?.serviceId ?? null),
      )
      const result: Record<string, unknown[]> = {}
      for (const group of groups) {
        const serviceName = names.get(group[0]?.serviceId ?? 0) ?? ''
        const base = groupName(serviceName, group)
        let name = base
        for (let n = 2; Object.hasOwn(result, name); n++) name = `${base} (${n})`
        result[name] = group.map((t) => transactionView(t, serviceName))
      }
      return { result }
    },
  },
]
