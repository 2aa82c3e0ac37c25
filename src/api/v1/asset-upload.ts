import { createError, type ErrorDetail } from '../../errors/index.js'
import type { AssetType, Service } from '../../store/index.js'
import type { ApiContext, HandlerResult, MultipartForm, UploadedFile } from '../http/types.js'
import { serviceGone, serviceOf } from './catalog-lookups.js'
import { assetView } from './views.js'

/** The asset types of the mock services specification. */
const assetTypes: readonly AssetType[] = [
  'MAR',
  'FILE_IN_ROOT',
  'FILE_IN_PATH',
  'FILE_IN_CLASSPATH',
]

/** A warning of the asset create response: the mock services specification's `errors` entries, severity `WARN`. */
interface AssetWarning {
  code: string
  message: string
  severity: 'WARN'
}

/** The upload form, read and checked. */
interface AssetForm {
  type: AssetType
  platformVseId: number | null
  serviceId: number | null
  name: string
  folderId: string | null
  description: string | null
  file: UploadedFile
  warnings: AssetWarning[]
}

/** A trimmed field, or null when absent or blank. */
function fieldOf(form: MultipartForm, name: string): string | null {
  const value = form.fields[name]?.trim() ?? ''
  return value === '' ? null : value
}

/**
 * Reads the multipart fields of the mock services specification's asset create, every problem
 * listed (400 ERR_API_VALIDATION): `type` required (case-insensitive); `platformVseId` an integer,
 * required and at least 1 for the three non-MAR types (0 or absent for MAR, stored as none);
 * `serviceId` a positive integer when given; `filename` (default: the file part's name),
 * `folderId`, `description`; exactly one file part, of any field name. A `fileId` is not taken: the
 * platform names the stored bytes itself, and says so in a warning.
 */
function readAssetForm(form: MultipartForm): AssetForm {
  const details: ErrorDetail[] = []
  const warnings: AssetWarning[] = []
  const report = (path: string, message: string) => details.push({ path, message })
  const rawType = fieldOf(form, 'type')?.toUpperCase() ?? null
  const type = assetTypes.find((t) => t === rawType)
  if (rawType === null) report('/type', `is required: one of ${assetTypes.join(', ')}`)
  else if (type === undefined) report('/type', `must be one of ${assetTypes.join(', ')}`)
  const integer = (name: string): number | null => {
    const raw = fieldOf(form, name)
    if (raw === null) return null
    if (/^\d{1,15}$/.test(raw)) return Number(raw)
    report(`/${name}`, `must be an integer, not "${raw.slice(0, 40)}"`)
    return null
  }
  let platformVseId = integer('platformVseId')
  if (type !== undefined && type !== 'MAR') {
    if (fieldOf(form, 'platformVseId') === null) {
      report('/platformVseId', `is required for type ${type}`)
    } else if (platformVseId === 0) {
      report(
        '/platformVseId',
        `must name a virtual service environment (at least 1) for type ${type}`,
      )
    }
  }
  // the mock services specification: zero for plain MAR files, i.e. no environment
  if (platformVseId === 0) platformVseId = null
  const serviceId = integer('serviceId')
  if (serviceId === 0) report('/serviceId', 'must be a positive integer')
  if (fieldOf(form, 'fileId') !== null) {
    warnings.push({
      code: 'WARN_API_ASSET_FILE_ID_IGNORED',
      message: 'fileId is assigned by the platform; the given value was ignored',
      severity: 'WARN',
    })
  }
  if (form.files.length === 0) {
    report('/file', "is required: send the asset's bytes as a file part of the form")
  }
  if (form.files.length > 1) report('/file', `must be one file per asset, not ${form.files.length}`)
  const file = form.files[0]
  const name = fieldOf(form, 'filename') ?? file?.filename.trim() ?? ''
  if (file !== undefined && name === '') {
    report('/filename', 'is required when the file part has no file name')
  }
  if (name.length > 255) report('/filename', 'must be at most 255 characters')
  const folderId = fieldOf(form, 'folderId')
  if (folderId !== null && folderId.length > 255) {
    report('/folderId', 'must be at most 255 characters')
  }
  const description = fieldOf(form, 'description')
  if (description !== null && description.length > 4000) {
    report('/description', 'must be at most 4000 characters')
  }
  const first = details[0]
  if (first !== undefined || type === undefined || file === undefined) {
    throw createError(
      'ERR_API_VALIDATION',
      [first === undefined ? 'invalid form' : `${first.path} ${first.message}`],
      { details },
    )
  }
  return { type, platformVseId, serviceId, name, folderId, description, file, warnings }
}

/**
 * `POST /api/v1/workspaces/{workspaceId}/assets` (multipart): stores the bytes (temporary file,
 * then rename), then the record in one write; when that write fails the file is deleted, so no
 * bytes are left that no asset names. 201 with the Asset and `errors`: warnings such as a name
 * already used by another asset of the service (allowed: the mock services specification offers
 * validate-name for clients that want unique names). Past `uploadLimit` the body is refused with
 * 413.
 *
 * @example
 * // curl -F type=MAR -F platformVseId=0 -F serviceId=3 -F file=@pets.mar .../api/v1/workspaces/1/assets
 * { method: 'POST', path: '/api/v1/workspaces/:workspaceId/assets', family: 'v1', handler: createAsset }
 */
export async function createAsset(ctx: ApiContext): Promise<HandlerResult> {
  const workspace = await ctx.workspace()
  const input = readAssetForm(await ctx.multipart())
  let service: Service | null = null
  if (input.serviceId !== null) {
    service = await serviceOf(ctx.deps.store, workspace.id, input.serviceId, '/serviceId')
  }
  const stored = await ctx.deps.files.put(input.file.bytes)
  const by = ctx.principal.user.email
  try {
    const { asset, warnings } = await ctx.deps.store.write(async (tx) => {
      const warnings = [...input.warnings]
      const taken = await tx.assets.findByName(workspace.id, input.serviceId, input.name)
      if (taken !== undefined) {
        const where =
          input.serviceId === null
            ? 'among the assets without a service'
            : `in service ${input.serviceId}`
        warnings.push({
          code: 'WARN_API_ASSET_NAME_IN_USE',
          message: `An asset named "${input.name}" already exists ${where} (asset ${taken.id})`,
          severity: 'WARN',
        })
      }
      const asset = await tx.assets.create({
        workspaceId: workspace.id,
        serviceId: input.serviceId,
        name: input.name,
        description: input.description,
        type: input.type,
        fileId: stored.fileId,
        folderId: input.folderId,
        platformVseId: input.platformVseId,
        tags: [],
        primaryMetadata: {},
        secondaryMetadata: {},
        size: stored.size,
        sha256: stored.sha256,
        contentType: input.file.contentType === '' ? null : input.file.contentType,
        by,
      })
      return { asset, warnings }
    })
    return { status: 201, result: { ...assetView(asset, service?.name ?? null), errors: warnings } }
  } catch (err) {
    await ctx.deps.files.delete(stored.fileId)
    throw serviceGone(err, input.serviceId ?? 0)
  }
}
