import { createError } from '../../errors/index.js'
import type { MockService, Workspace } from '../../store/index.js'
import type { ApiContext } from '../http/types.js'

/**
 * The workspace of the path and its mock service of `param` (default `serviceMockId`): 404 when
 * the mock service is not in that workspace.
 */
export async function mockServiceOf(
  ctx: ApiContext,
  param = 'serviceMockId',
): Promise<{ workspace: Workspace; mock: MockService }> {
  const workspace = await ctx.workspace()
  const id = ctx.intParam(param)
  const mock = await ctx.deps.store.mockServices.get(workspace.id, id)
  if (mock === undefined) throw createError('ERR_API_NOT_FOUND', [`Mock service ${id}`])
  return { workspace, mock }
}
