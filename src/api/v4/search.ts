import { createError } from '../../errors/index.js'
import {
  compileSearch,
  searchMetadata,
  type CompiledSearchPlan,
  type SearchScope,
} from '../../store/index.js'
import { findVisibleWorkspace, membershipOf, visibleWorkspaceIds } from '../access/authorize.js'
import type { ApiContext, Route } from '../http/types.js'
import { validatorOf } from '../validation.js'

interface SearchBody {
  entity: string
  accountId?: number | null
  workspaceId?: number | null
  fields?: unknown[]
  filters?: Record<string, unknown> | null
  ordering?: unknown[]
  skip?: number
  limit?: number
}

/** The envelope-level shape; fields, filters and ordering are checked by the compiler, which names the failing part. */
const readSearch = validatorOf<SearchBody>({
  type: 'object',
  required: ['entity'],
  additionalProperties: false,
  properties: {
    entity: { type: 'string', minLength: 1, maxLength: 100 },
    accountId: { type: ['integer', 'null'], minimum: 1 },
    workspaceId: { type: ['integer', 'null'], minimum: 1 },
    fields: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } },
    filters: { type: ['object', 'null'] },
    ordering: { type: 'array', maxItems: 5 },
    skip: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: -1 },
  },
})

/** What the caller may search: its accounts (or the one named) and the workspaces it sees in them (or the one named). */
async function scopeOf(ctx: ApiContext, body: SearchBody): Promise<SearchScope> {
  if (body.workspaceId !== undefined && body.workspaceId !== null) {
    const seen = await findVisibleWorkspace(ctx, body.workspaceId)
    if (
      seen === undefined ||
      (body.accountId != null && seen.workspace.accountId !== body.accountId)
    ) {
      throw createError('ERR_API_NOT_FOUND', [`Workspace ${body.workspaceId}`])
    }
    return { accountIds: [seen.workspace.accountId], workspaceIds: [seen.workspace.id] }
  }
  if (body.accountId !== undefined && body.accountId !== null) {
    if (membershipOf(ctx, body.accountId) === undefined) {
      throw createError('ERR_API_NOT_FOUND', [`Account ${body.accountId}`])
    }
    return {
      accountIds: [body.accountId],
      workspaceIds: await visibleWorkspaceIds(ctx, body.accountId),
    }
  }
  return {
    accountIds: ctx.principal.memberships.map((m) => m.accountId),
    workspaceIds: await visibleWorkspaceIds(ctx),
  }
}

/** A flat row (`c0`, `c1`...) as a hit: `service.name` becomes `{ service: { name } }`, booleans come back from 0/1. */
function hitOf(row: Record<string, unknown>, plan: CompiledSearchPlan): Record<string, unknown> {
  const hit: Record<string, unknown> = {}
  plan.outputs.forEach(({ key, boolean, json }, i) => {
    const raw = row[`c${i}`] ?? null
    const value =
      boolean && raw !== null
        ? raw === 1
        : json && typeof raw === 'string'
          ? (JSON.parse(raw) as unknown)
          : raw
    const dot = key.indexOf('.')
    if (dot === -1) {
      hit[key] = value
    } else {
      const relation = key.slice(0, dot)
      const nested = (hit[relation] ??= {}) as Record<string, unknown>
      nested[key.slice(dot + 1)] = value
    }
  })
  return hit
}

/**
 * `POST /api/v4/search` (the administration specification): one parameterised SQL query over what
 * the caller may see, answering `accountId`, `workspaceId` (an array), `limit`, `skip`, `total` and
 * the hits; and `GET /api/v4/search/metadata`, the searchable entities, fields, relations and
 * operators.
 */
export const searchRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v4/search',
    family: 'v4',
    handler: async (ctx) => {
      const body = readSearch(await ctx.json())
      const scope = await scopeOf(ctx, body)
      const plan = compileSearch(body, scope, ctx.deps.store.search.dialect)
      const { rows, total } = await ctx.deps.store.search.run(plan)
      return {
        result: rows.map((row) => hitOf(row, plan)),
        paging: { limit: plan.limit, skip: plan.skip, total },
        extra: {
          accountId: body.accountId ?? ctx.principal.account.id,
          workspaceId: scope.workspaceIds,
          hidden: 0,
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/search/metadata',
    family: 'v4',
    handler: async () => ({ result: searchMetadata() }),
  },
]
