import { createError } from '../../errors/index.js'
import { isConstraintViolation, type Repositories, type Tag } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { conflict } from './catalog-lookups.js'
import { tagView } from './views.js'

interface TagInput {
  id?: number
  name: string
  description?: string | null
}

// As for services: unknown members (a Tag read back) are ignored; names are trimmed, non-blank.
const readTag = validatorOf<TagInput>({
  type: 'object',
  required: ['name'],
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
  },
})

const sortable = ['id', 'name', 'created', 'updated', 'createdBy', 'updatedBy']

async function writeNamed<T>(
  ctx: ApiContext,
  name: string,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.deps.store.write(fn)
  } catch (err) {
    if (isConstraintViolation(err, 'unique')) {
      throw conflict(`A tag named "${name}" already exists`, '/name')
    }
    throw err
  }
}

async function existing(ctx: ApiContext): Promise<Tag> {
  const id = ctx.intParam('tagId')
  const tag = await ctx.deps.store.tags.get(ctx.principal.account.id, id)
  if (tag === undefined) throw createError('ERR_API_NOT_FOUND', [`Tag ${id}`])
  return tag
}

/**
 * `/api/v1/tags` (the mock services specification, docs/api.md#tags): tags belong to the API key's
 * account, so the paths carry no workspace. Create (201; a taken name is 409), list (paged, sorted,
 * `total`), get by id or by name, update by PUT (201, with `created`/`updated` in ISO 8601 as the
 * spec's sample shows), and delete (200 with `result: {}`, the spec's "empty object"). Deleting a
 * tag does not remove its name from transactions: they carry tag names, not references.
 */
export const tagRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/tags',
    family: 'v1',
    handler: async (ctx) => {
      const input = readTag(await ctx.json())
      const name = input.name.trim()
      const accountId = ctx.principal.account.id
      const tag = await writeNamed(ctx, name, async (tx) => {
        if ((await tx.tags.getByName(accountId, name)) !== undefined) {
          throw conflict(`A tag named "${name}" already exists`, '/name')
        }
        return tx.tags.create({
          accountId,
          name,
          description: input.description ?? null,
          by: ctx.principal.user.email,
        })
      })
      return { status: 201, result: tagView(tag) }
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tags',
    family: 'v1',
    handler: async (ctx) => {
      const query = listQueryOf(ctx.query, sortable)
      const page = await ctx.deps.store.tags.list(ctx.principal.account.id, query)
      return {
        result: page.items.map((t) => tagView(t)),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
      }
    },
  },
  {
    // a static segment: find-my-way prefers it to `/tags/:tagId`
    method: 'GET',
    path: '/api/v1/tags/name/:name',
    family: 'v1',
    handler: async (ctx) => {
      const name = ctx.params['name'] ?? ''
      const tag = await ctx.deps.store.tags.getByName(ctx.principal.account.id, name)
      if (tag === undefined) throw createError('ERR_API_NOT_FOUND', [`Tag "${name}"`])
      return { result: tagView(tag) }
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tags/:tagId',
    family: 'v1',
    handler: async (ctx) => ({ result: tagView(await existing(ctx)) }),
  },
  {
    method: 'PUT',
    path: '/api/v1/tags/:tagId',
    family: 'v1',
    handler: async (ctx) => {
      const id = ctx.intParam('tagId')
      const input = readTag(await ctx.json())
      if (input.id !== undefined && input.id !== id) {
        throw invalidField('/id', `must be the id of the path (${id}) when given`)
      }
      const name = input.name.trim()
      const accountId = ctx.principal.account.id
      const tag = await writeNamed(ctx, name, async (tx) => {
        const other = await tx.tags.getByName(accountId, name)
        if (other !== undefined && other.id !== id) {
          throw conflict(`A tag named "${name}" already exists`, '/name')
        }
        const by = ctx.principal.user.email
        return tx.tags.update(
          accountId,
          id,
          input.description === undefined
            ? { name, by }
            : { name, description: input.description, by },
        )
      })
      if (tag === undefined) throw createError('ERR_API_NOT_FOUND', [`Tag ${id}`])
      return { status: 201, result: tagView(tag, true) }
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/tags/:tagId',
    family: 'v1',
    handler: async (ctx) => {
      const id = ctx.intParam('tagId')
      const deleted = await ctx.deps.store.write(async (tx) =>
        tx.tags.delete(ctx.principal.account.id, id),
      )
      if (!deleted) throw createError('ERR_API_NOT_FOUND', [`Tag ${id}`])
      return { result: {} }
    },
  },
]
