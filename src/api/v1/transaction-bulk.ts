import { createError, type ErrorDetail } from '../../errors/index.js'
import type { Route } from '../http/types.js'
import { invalidField, validatorOf } from '../validation.js'
import { okBody } from './delete-body.js'
import { tagNamesOf } from './transaction-input.js'

/** What a bulk PATCH does to the listed transactions. */
type BulkAction = 'DELETE' | 'ADD_TAGS' | 'REMOVE_TAGS' | 'SET_TAGS'

/**
 * Action names accepted, after upper-casing and turning spaces and dashes into `_`. The mock
 * services specification shows `DELETE` and says "a tag operation also exists" without naming it:
 * these aliases cover the spellings a client is likely to use.
 */
const actions: Readonly<Record<string, BulkAction>> = {
  DELETE: 'DELETE',
  DELETE_TRANSACTIONS: 'DELETE',
  ADD_TAGS: 'ADD_TAGS',
  ADD_TAG: 'ADD_TAGS',
  TAG: 'ADD_TAGS',
  TAGS: 'ADD_TAGS',
  ADD: 'ADD_TAGS',
  REMOVE_TAGS: 'REMOVE_TAGS',
  REMOVE_TAG: 'REMOVE_TAGS',
  DELETE_TAGS: 'REMOVE_TAGS',
  DELETE_TAG: 'REMOVE_TAGS',
  UNTAG: 'REMOVE_TAGS',
  SET_TAGS: 'SET_TAGS',
  REPLACE_TAGS: 'SET_TAGS',
}

/**
 * The action of a bulk request, or 400 naming `/action` and the accepted names.
 *
 * @example
 * bulkActionOf('add-tags') // 'ADD_TAGS'
 */
function bulkActionOf(raw: string): BulkAction {
  const action =
    actions[
      raw
        .trim()
        .toUpperCase()
        .replace(/[\s-]+/g, '_')
    ]
  if (action === undefined) {
    throw invalidField(
      '/action',
      `"${raw.slice(0, 40)}" is not an action: use DELETE, ADD_TAGS, REMOVE_TAGS or SET_TAGS`,
    )
  }
  return action
}

interface BulkInput {
  action: string
  tags?: string[] | null
  transactions: number[]
}

const readBulk = validatorOf<BulkInput>({
  type: 'object',
  required: ['action', 'transactions'],
  properties: {
    action: { type: 'string', minLength: 1 },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    transactions: {
      type: 'array',
      minItems: 1,
      maxItems: 10000,
      items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
})

/**
 * `PATCH /api/v1/workspaces/{workspaceId}/transactions` `{action, tags, transactions}`: one action
 * on many transactions, all or nothing. Every id must be a transaction of the workspace (404
 * listing the others, nothing changed). `DELETE` deletes them; `ADD_TAGS` / `REMOVE_TAGS` add or
 * remove `tags` (creating tags that do not exist yet); `SET_TAGS` replaces their tags (`[]`
 * clears). The answer is `{body: [ids], statusCode: 'OK', statusCodeValue: 200}`.
 */
export const transactionBulkRoutes: Route[] = [
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/:workspaceId/transactions',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readBulk(await ctx.json())
      const action = bulkActionOf(input.action)
      const details: ErrorDetail[] = []
      const tags = tagNamesOf(input.tags, '/tags', (path, message) =>
        details.push({ path, message }),
      )
      if (action !== 'DELETE') {
        if (!Array.isArray(input.tags)) {
          details.push({ path: '/tags', message: `is required for ${action}` })
        } else if (action !== 'SET_TAGS' && input.tags.length === 0) {
          details.push({ path: '/tags', message: `must name at least one tag for ${action}` })
        }
      }
      const first = details[0]
      if (first !== undefined) {
        throw createError('ERR_API_VALIDATION', [`${first.path} ${first.message}`], { details })
      }
      const ids = [...new Set(input.transactions)]
      const by = ctx.principal.user.email
      const affected = await ctx.deps.store.write(async (tx) => {
        const found = await tx.transactions.list(
          workspace.id,
          { ids },
          { limit: ids.length, skip: 0 },
        )
        const known = new Set(found.items.map((t) => t.id))
        const missing = input.transactions.flatMap((id, i) =>
          known.has(id)
            ? []
            : [
                {
                  path: `/transactions/${i}`,
                  message: `transaction ${id} does not exist in this workspace`,
                },
              ],
        )
        if (missing.length > 0) {
          throw createError(
            'ERR_API_NOT_FOUND',
            [
              `Transactions ${[...new Set(input.transactions.filter((id) => !known.has(id)))].join(', ')}`,
            ],
            { details: missing },
          )
        }
        switch (action) {
          case 'DELETE':
            return tx.transactions.deleteMany(workspace.id, ids)
          case 'ADD_TAGS':
            await tx.tags.ensure(ctx.principal.account.id, tags, by)
            return tx.transactions.changeTags(workspace.id, ids, { add: tags }, by)
          case 'REMOVE_TAGS':
            return tx.transactions.changeTags(workspace.id, ids, { remove: tags }, by)
          case 'SET_TAGS': {
            await tx.tags.ensure(ctx.principal.account.id, tags, by)
            for (const id of ids) await tx.transactions.update(workspace.id, id, { tags, by })
            return ids
          }
        }
      })
      return okBody(affected)
    },
  },
]
