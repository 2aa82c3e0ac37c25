import { createError } from '../../errors/index.js'
import { isConstraintViolation, type Repositories, type Service } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { conflict } from './catalog-lookups.js'
import { okBody } from './delete-body.js'
import { serviceView } from './views.js'

interface ServiceInput {
  id?: number
  name: string
  description?: string | null
}

// Unknown members are ignored rather than refused: clients PUT back the Service they read
// (created, updatedBy...). `name` must hold a non-blank character; it is stored trimmed.
const serviceSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
  },
}
const readService = validatorOf<ServiceInput>(serviceSchema)

/** The fields sorting accepts (`sort=name`, `sort=-updated`). */
const sortable = ['id', 'name', 'created', 'updated', 'createdBy', 'updatedBy']

function path(rest = ''): string {
  return `/api/v1/workspaces/:workspaceId/services${rest}`
}

/** Runs a write that may break the name's uniqueness; a race past our own check is still a 409. */
async function writeNamed<T>(
  ctx: ApiContext,
  name: string,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.deps.store.write(fn)
  } catch (err) {
    if (isConstraintViolation(err, 'unique')) {
      throw conflict(`A service named "${name}" already exists in this workspace`, '/name')
    }
    throw err
  }
}

async function existing(ctx: ApiContext, workspaceId: number): Promise<Service> {
  const id = ctx.intParam('serviceId')
  const service = await ctx.deps.store.services.get(workspaceId, id)
  if (service === undefined) throw createError('ERR_API_NOT_FOUND', [`Service ${id}`])
  return service
}

/**
 * `/api/v1/workspaces/{workspaceId}/services` (the mock services specification,
 * docs/api.md#services): create (201), list (paged, sorted, with `total`), get (200, where the
 * spec's sample shows 201), update by PUT (201), and delete (the `{body, statusCode,
 * statusCodeValue}` body; 409 while a mock service uses the service; its transactions go with it).
 * Names are unique per workspace: 409 otherwise.
 */
export const serviceRoutes: Route[] = [
  {
    method: 'POST',
    path: path(),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readService(await ctx.json())
      const name = input.name.trim()
      const by = ctx.principal.user.email
      const service = await writeNamed(ctx, name, async (tx) => {
        if ((await tx.services.getByName(workspace.id, name)) !== undefined) {
          throw conflict(`A service named "${name}" already exists in this workspace`, '/name')
        }
        return tx.services.create({
          workspaceId: workspace.id,
          name,
          description: input.description ?? null,
          by,
        })
      })
      return { status: 201, result: serviceView(service) }
    },
  },
  {
    method: 'GET',
    path: path(),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const query = listQueryOf(ctx.query, sortable)
      const page = await ctx.deps.store.services.list(workspace.id, query)
      return {
        result: page.items.map(serviceView),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
      }
    },
  },
  {
    method: 'GET',
    path: path('/:serviceId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      return { result: serviceView(await existing(ctx, workspace.id)) }
    },
  },
  {
    method: 'PUT',
    path: path('/:serviceId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('serviceId')
      const input = readService(await ctx.json())
      if (input.id !== undefined && input.id !== id) {
        throw invalidField('/id', `must be the id of the path (${id}) when given`)
      }
      const name = input.name.trim()
      const by = ctx.principal.user.email
      const service = await writeNamed(ctx, name, async (tx) => {
        const other = await tx.services.getByName(workspace.id, name)
        if (other !== undefined && other.id !== id) {
          throw conflict(`A service named "${name}" already exists in this workspace`, '/name')
        }
        // `description` left out keeps the current one; null clears it.
        const patch =
          input.description === undefined
            ? { name, by }
            : { name, description: input.description, by }
        return tx.services.update(workspace.id, id, patch)
      })
      if (service === undefined) throw createError('ERR_API_NOT_FOUND', [`Service ${id}`])
      return { status: 201, result: serviceView(service) }
    },
  },
  {
    method: 'DELETE',
    path: path('/:serviceId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('serviceId')
      const inUse = () =>
        createError('ERR_API_CONFLICT', [
          `Service ${id} is used by a mock service; delete the mock service first`,
        ])
      try {
        await ctx.deps.store.write(async (tx) => {
          if ((await tx.services.get(workspace.id, id)) === undefined) {
            throw createError('ERR_API_NOT_FOUND', [`Service ${id}`])
          }
          if ((await tx.mockServices.countByService(workspace.id, id)) > 0) throw inUse()
          await tx.services.delete(workspace.id, id)
        })
      } catch (err) {
        // the schema refuses too (NO ACTION foreign key), for a mock service created meanwhile
        if (isConstraintViolation(err, 'foreign-key')) throw inUse()
        throw err
      }
      return okBody(null)
    },
  },
]
