import { createError } from '../../errors/index.js'
import { isConstraintViolation, type Repositories, type Service } from '../../store/index.js'
import { invalidField } from '../validation.js'

/*
 * Small helpers shared by the catalog resources (services, transactions, assets): reading query
 * parameters with the failing one named, and resolving service ids to records and names.
 */

/**
 * An optional integer query parameter (`?serviceId=3`): undefined when absent or empty, 400 naming
 * it when it is not a positive integer.
 *
 * @example
 * const serviceId = optionalIntQuery(ctx.query, 'serviceId')
 */
export function optionalIntQuery(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name)
  if (raw === null || raw.trim() === '') return undefined
  return intOf(raw.trim(), `/${name}`)
}

/**
 * A positive integer given as text (a query parameter or a multipart field), else 400 naming
 * `pointer`.
 *
 * @example
 * intOf(form.fields['serviceId'] ?? '', '/serviceId')
 */
export function intOf(raw: string, pointer: string): number {
  if (!/^\d{1,15}$/.test(raw)) {
    throw invalidField(pointer, `must be a positive integer, not "${raw.slice(0, 40)}"`)
  }
  return Number(raw)
}

/**
 * A boolean given as text: `true`/`1`/`yes`/`on` and `false`/`0`/`no`/`off` (any case), absent or
 * empty = `fallback`; anything else is 400 naming `pointer`.
 *
 * @example
 * const verbose = booleanOf(ctx.query.get('verbose'), '/verbose')
 */
export function booleanOf(
  raw: string | null | undefined,
  pointer: string,
  fallback = false,
): boolean {
  if (raw === null || raw === undefined || raw.trim() === '') return fallback
  const value = raw.trim().toLowerCase()
  if (['true', '1', 'yes', 'on'].includes(value)) return true
  if (['false', '0', 'no', 'off'].includes(value)) return false
  throw invalidField(pointer, `must be true or false, not "${raw.slice(0, 40)}"`)
}

/**
 * The service `id` of a workspace, else 404 ERR_API_NOT_FOUND (also for a service of another
 * workspace: the repository is scoped). `pointer` names where the id was given, in `details`.
 *
 * @example
 * const service = await serviceOf(ctx.deps.store, workspace.id, serviceId, '/serviceId')
 */
export async function serviceOf(
  repos: Repositories,
  workspaceId: number,
  id: number,
  pointer?: string,
): Promise<Service> {
  const service = await repos.services.get(workspaceId, id)
  if (service === undefined) {
    const options =
      pointer === undefined
        ? {}
        : {
            details: [
              {
                path: pointer,
                message: `names service ${id}, which does not exist in workspace ${workspaceId}`,
              },
            ],
          }
    throw createError('ERR_API_NOT_FOUND', [`Service ${id}`], options)
  }
  return service
}

/**
 * The names of the services of `ids` (for `serviceName` in lists), one lookup per distinct id.
 *
 * @example
 * const names = await serviceNames(store, 1, page.items.map((t) => t.serviceId))
 */
export async function serviceNames(
  repos: Repositories,
  workspaceId: number,
  ids: Iterable<number | null>,
): Promise<Map<number, string>> {
  const names = new Map<number, string>()
  for (const id of ids) {
    if (id === null || names.has(id)) continue
    const service = await repos.services.get(workspaceId, id)
    names.set(id, service?.name ?? '')
  }
  return names
}

/**
 * 409 ERR_API_CONFLICT naming the field whose value is taken.
 *
 * @example
 * throw conflict('A service named "pets" already exists in this workspace', '/name')
 */
export function conflict(message: string, pointer: string) {
  return createError('ERR_API_CONFLICT', [message], {
    details: [{ path: pointer, message: 'is already in use' }],
  })
}

/**
 * What a write that referenced a service throws when the schema refused the reference: the
 * service was deleted between our check and the write, so 404 like a service that never was.
 *
 * @example
 * await store.write(...).catch((err: unknown) => { throw serviceGone(err, serviceId) })
 */
export function serviceGone(err: unknown, serviceId: number): unknown {
  return isConstraintViolation(err, 'foreign-key')
    ? createError('ERR_API_NOT_FOUND', [`Service ${serviceId}`])
    : err
}
