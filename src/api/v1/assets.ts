import { createError, type ErrorDetail } from '../../errors/index.js'
import type { Asset } from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { validatorOf } from '../validation.js'
import { downloadUrl } from './asset-links.js'
import { createAsset } from './asset-upload.js'
import { optionalIntQuery, serviceGone, serviceNames, serviceOf } from './catalog-lookups.js'
import { okBody } from './delete-body.js'
import { tagNamesOf } from './transaction-input.js'
import { assetView } from './views.js'

const sortable = [
  'id',
  'name',
  'created',
  'updated',
  'createdBy',
  'updatedBy',
  'serviceId',
  'type',
  'size',
]

function path(rest = ''): string {
  return `/api/v1/workspaces/:workspaceId/assets${rest}`
}

interface AssetPatch {
  name?: string
  description?: string | null
  primaryMetadata?: Record<string, unknown> | null
  secondaryMetadata?: Record<string, unknown> | null
  serviceId?: number | null
  tags?: string[] | null
}

// the mock services specification's PATCH members, plus `name` (a rename). Other members (an Asset
// sent back whole) are read-only and ignored.
const readPatch = validatorOf<AssetPatch>({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
    primaryMetadata: { type: ['object', 'null'] },
    secondaryMetadata: { type: ['object', 'null'] },
    serviceId: { type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
  },
})

interface ValidateName {
  name: string
  serviceId?: number | null
  idToIgnore?: number | null
}

const readValidateName = validatorOf<ValidateName>({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    serviceId: { type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    idToIgnore: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
})

async function existing(ctx: ApiContext, workspaceId: number): Promise<Asset> {
  const id = ctx.intParam('assetId')
  const asset = await ctx.deps.store.assets.get(workspaceId, id)
  if (asset === undefined) throw createError('ERR_API_NOT_FOUND', [`Asset ${id}`])
  return asset
}

async function viewOf(ctx: ApiContext, asset: Asset) {
  const names = await serviceNames(ctx.deps.store, asset.workspaceId, [asset.serviceId])
  return assetView(asset, asset.serviceId === null ? null : (names.get(asset.serviceId) ?? null))
}

/**
 * `/api/v1/workspaces/{workspaceId}/assets` (the mock services specification, docs/api.md#assets):
 * upload (asset-upload.ts), list (`?serviceId=`, paged, `total`), get, PATCH (200), delete (the
 * `{body, statusCode, statusCodeValue}` body; 409 while a mock service is built from the asset; the
 * file goes too), a download link (asset-links.ts), and `validate-name` (`result` true when no
 * other asset of the service has the name).
 */
export const assetRoutes: Route[] = [
  { method: 'POST', path: path(), family: 'v1', handler: createAsset },
  {
    method: 'GET',
    path: path(),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const serviceId = optionalIntQuery(ctx.query, 'serviceId')
      const query = listQueryOf(ctx.query, sortable)
      const page = await ctx.deps.store.assets.list(
        workspace.id,
        serviceId === undefined ? {} : { serviceId },
        query,
      )
      const names = await serviceNames(
        ctx.deps.store,
        workspace.id,
        page.items.map((a) => a.serviceId),
      )
      return {
        result: page.items.map((a) =>
          assetView(a, a.serviceId === null ? null : (names.get(a.serviceId) ?? null)),
        ),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
      }
    },
  },
  {
    method: 'POST',
    path: path('/validate-name'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readValidateName(await ctx.json())
      const taken = await ctx.deps.store.assets.findByName(
        workspace.id,
        input.serviceId ?? null,
        input.name.trim(),
        input.idToIgnore ?? undefined,
      )
      return { result: taken === undefined }
    },
  },
  {
    method: 'GET',
    path: path('/:assetId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      return { result: await viewOf(ctx, await existing(ctx, workspace.id)) }
    },
  },
  {
    method: 'PATCH',
    path: path('/:assetId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('assetId')
      const input = readPatch(await ctx.json())
      const details: ErrorDetail[] = []
      const tags = Array.isArray(input.tags)
        ? tagNamesOf(input.tags, '/tags', (p, message) => details.push({ path: p, message }))
        : undefined
      const first = details[0]
      if (first !== undefined) {
        throw createError('ERR_API_VALIDATION', [`${first.path} ${first.message}`], { details })
      }
      if (typeof input.serviceId === 'number') {
        await serviceOf(ctx.deps.store, workspace.id, input.serviceId, '/serviceId')
      }
      const by = ctx.principal.user.email
      const patch: Parameters<typeof ctx.deps.store.assets.update>[2] = { by }
      if (input.name !== undefined) patch.name = input.name.trim()
      if (input.description !== undefined) {
        patch.description = input.description === '' ? null : input.description
      }
      if (input.primaryMetadata !== undefined) patch.primaryMetadata = input.primaryMetadata ?? {}
      if (input.secondaryMetadata !== undefined) {
        patch.secondaryMetadata = input.secondaryMetadata ?? {}
      }
      // null detaches the asset from its service
      if (input.serviceId !== undefined) patch.serviceId = input.serviceId
      if (tags !== undefined) patch.tags = tags
      const updated = await ctx.deps.store
        .write(async (tx) => {
          if (tags !== undefined) await tx.tags.ensure(ctx.principal.account.id, tags, by)
          return tx.assets.update(workspace.id, id, patch)
        })
        .catch((err: unknown) => {
          throw serviceGone(err, input.serviceId ?? 0)
        })
      if (updated === undefined) throw createError('ERR_API_NOT_FOUND', [`Asset ${id}`])
      return { result: await viewOf(ctx, updated) }
    },
  },
  {
    method: 'DELETE',
    path: path('/:assetId'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('assetId')
      const asset = await ctx.deps.store.write(async (tx) => {
        const found = await tx.assets.get(workspace.id, id)
        if (found === undefined) throw createError('ERR_API_NOT_FOUND', [`Asset ${id}`])
        // the schema would silently detach it (SET NULL), leaving a mock service that cannot deploy
        const mocks = await tx.mockServices.list(workspace.id, {}, { limit: -1, skip: 0 })
        const users = mocks.items.filter((m) => m.assetId === id).map((m) => m.id)
        if (users.length > 0) {
          throw createError('ERR_API_CONFLICT', [
            `Asset ${id} is used by mock service ${users.join(', ')}; delete or change those first`,
          ])
        }
        await tx.assets.delete(workspace.id, id)
        return found
      })
      // after the commit: a failed write keeps its file, a deleted asset leaves none
      await ctx.deps.files.delete(asset.fileId)
      return okBody(null)
    },
  },
  {
    method: 'GET',
    path: path('/:assetId/download'),
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const asset = await existing(ctx, workspace.id)
      return { result: downloadUrl(ctx.deps.options.baseUrl, ctx.deps.options.signingKey, asset) }
    },
  },
]
