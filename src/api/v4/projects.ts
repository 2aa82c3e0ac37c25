import { createError } from '../../errors/index.js'
import type { Project } from '../../store/index.js'
import { findVisibleWorkspace, visibleWorkspaceIds } from '../access/authorize.js'
import { satisfies } from '../access/roles.js'
import { epochSeconds } from '../format.js'
import type { Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'

const readCreate = validatorOf<{ name: string; workspaceId: number; description?: string | null }>({
  type: 'object',
  required: ['name', 'workspaceId'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    workspaceId: { type: 'integer', minimum: 1 },
    description: { type: ['string', 'null'], maxLength: 2000 },
  },
})

function projectView(p: Project, accountId: number) {
  return {
    id: p.id,
    name: p.name,
    description: p.description ?? '',
    workspaceId: p.workspaceId,
    accountId,
    userId: p.userId,
    isDefault: p.isDefault,
    created: epochSeconds(p.created),
    updated: epochSeconds(p.updated),
  }
}

/**
 * Projects (named by the administration specification; clients use them to find their bearings):
 * every workspace has a default project. A project belongs to its workspace: one the caller cannot
 * see is 404.
 */
export const projectRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/projects',
    family: 'v4',
    handler: async (ctx) => {
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const raw = ctx.query.get('workspaceId')
      let workspaceIds: number[]
      if (raw !== null && raw !== '') {
        if (!/^\d{1,15}$/.test(raw)) throw invalidField('/workspaceId', 'must be an integer')
        const seen = await findVisibleWorkspace(ctx, Number(raw))
        if (seen === undefined) throw createError('ERR_API_NOT_FOUND', [`Workspace ${raw}`])
        workspaceIds = [seen.workspace.id]
      } else {
        workspaceIds = await visibleWorkspaceIds(ctx)
      }
      const name = ctx.query.get('name')
      const page = await ctx.deps.store.tenancy.projects(
        name === null || name === '' ? { workspaceIds } : { workspaceIds, name },
        query,
      )
      const accounts = new Map<number, number>()
      for (const p of page.items) {
        if (!accounts.has(p.workspaceId)) {
          accounts.set(
            p.workspaceId,
            (await ctx.deps.store.workspaces.get(p.workspaceId))?.accountId ?? 0,
          )
        }
      }
      return {
        result: page.items.map((p) => projectView(p, accounts.get(p.workspaceId) ?? 0)),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v4/projects',
    family: 'v4',
    handler: async (ctx) => {
      const input = readCreate(await ctx.json())
      const seen = await findVisibleWorkspace(ctx, input.workspaceId)
      if (seen === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Workspace ${input.workspaceId}`])
      }
      if (!satisfies(seen.role, 'tester')) {
        throw createError('ERR_API_FORBIDDEN', [
          'creating a project needs the workspace role tester or stronger',
        ])
      }
      if (!seen.workspace.enabled) {
        throw createError('ERR_API_FORBIDDEN', [
          `workspace ${seen.workspace.id} is disabled: it accepts no changes until a manager enables it`,
        ])
      }
      const project = await ctx.deps.store.write(async (tx) =>
        tx.tenancy.createProject({
          workspaceId: input.workspaceId,
          name: input.name,
          description: input.description ?? null,
          isDefault: false,
          userId: ctx.principal.user.id,
        }),
      )
      return { status: 201, result: projectView(project, seen.workspace.accountId) }
    },
  },
  {
    method: 'GET',
    path: '/api/v4/projects/:projectId',
    family: 'v4',
    handler: async (ctx) => {
      const id = ctx.intParam('projectId')
      const project = await ctx.deps.store.tenancy.project(id)
      const seen =
        project === undefined ? undefined : await findVisibleWorkspace(ctx, project.workspaceId)
      if (project === undefined || seen === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Project ${id}`])
      }
      return { result: projectView(project, seen.workspace.accountId) }
    },
  },
]
