import { createError } from '../../errors/index.js'
import {
  isConstraintViolation,
  type MockService,
  type MockSetting,
  type MockSettingKind,
  type Repositories,
  type Workspace,
} from '../../store/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { epochSeconds } from '../format.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { conflict } from './catalog-lookups.js'
import { mockServiceOf } from './mock-lookup.js'
import { mockServiceRecord } from './mock-record.js'

/*
 * Mock service configurations and templates.
 *
 * A configuration is `{name, description, configurationMap: {KEY: {type, value}}}`. A mock service
 * uses one through `configurationId` (PATCH or a template); when its document is built (deploy,
 * configure), every `${config.KEY}` in a response's content, headers and reason phrase becomes
 * the value (mock-document.ts), so the runtime serves plain precompiled responses.
 *
 * A template holds the settings of a mock service, taken from one (`serviceMockId`), and
 * `PATCH service-mocks/{id}/apply-template/{templateId}` copies them onto another.
 */

/** Settings a template carries: the behaviour fields of a mock service record. */
const templateFields = [
  'thinkTime',
  'capacity',
  'replicas',
  'noMatchingRequestPreference',
  'noMatchingRequestTxnId',
  'liveSystemHost',
  'liveSystemPort',
  'endpointPreference',
  'mockServiceTransactions',
  'tags',
  'groupTag',
  'cors',
  'faults',
  'templateSeed',
  'matchHost',
] as const

const configurationValue = {
  type: 'object',
  required: ['value'],
  properties: {
    type: { type: ['string', 'null'], maxLength: 50 },
    value: { type: ['string', 'number', 'boolean', 'null'] },
  },
}
const configurationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
    configurationMap: {
      type: 'object',
      maxProperties: 1000,
      propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,200}$' },
      additionalProperties: configurationValue,
    },
  },
}
interface ConfigurationInput {
  name?: string
  description?: string | null
  configurationMap?: Record<string, { type?: string | null; value: unknown }>
}
const readConfigurationCreate = validatorOf<ConfigurationInput & { name: string }>({
  ...configurationSchema,
  required: ['name', 'configurationMap'],
})
const readConfigurationUpdate = validatorOf<ConfigurationInput>(configurationSchema)

interface TemplateInput {
  name: string
  description?: string | null
  serviceMockId?: number
}
const readTemplateCreate = validatorOf<TemplateInput>({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
    serviceMockId: { type: 'integer', minimum: 1 },
  },
})

function settingView(s: MockSetting) {
  const base = {
    id: s.id,
    workspaceId: s.workspaceId,
    name: s.name,
    description: s.description,
    created: epochSeconds(s.created),
    updated: epochSeconds(s.updated),
    createdBy: s.createdBy,
    updatedBy: s.updatedBy,
  }
  return { ...base, ...s.body }
}

async function named<T>(
  ctx: ApiContext,
  name: string,
  fn: (tx: Repositories) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.deps.store.write(fn)
  } catch (err) {
    if (isConstraintViolation(err, 'unique')) {
      throw conflict(`"${name}" already exists in this workspace`, '/name')
    }
    throw err
  }
}

/** A configuration or template of the workspace, 404 otherwise. */
async function settingOf(
  repos: Repositories,
  workspace: Workspace,
  kind: MockSettingKind,
  id: number,
): Promise<MockSetting> {
  const found = await repos.mockSettings.get(workspace.id, kind, id)
  if (found === undefined) {
    throw createError('ERR_API_NOT_FOUND', [
      `${kind === 'template' ? 'Mock service template' : 'Mock service configuration'} ${id}`,
    ])
  }
  return found
}

function listRoute(kind: MockSettingKind, path: string): Route {
  return {
    method: 'GET',
    path,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const page = await ctx.deps.store.mockSettings.list(workspace.id, kind, query)
      return {
        result: page.items.map(settingView),
        paging: { limit: query.limit, skip: query.skip, total: page.total },
      }
    },
  }
}

function getRoute(kind: MockSettingKind, path: string): Route {
  return {
    method: 'GET',
    path: `${path}/:settingId`,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      return {
        result: settingView(
          await settingOf(ctx.deps.store, workspace, kind, ctx.intParam('settingId')),
        ),
      }
    },
  }
}

async function updateConfiguration(ctx: ApiContext): Promise<HandlerResult> {
  const workspace = await ctx.workspace()
  const id = ctx.intParam('settingId')
  const input = readConfigurationUpdate(await ctx.json())
  const current = await settingOf(ctx.deps.store, workspace, 'configuration', id)
  const by = ctx.principal.user.email
  const patch: {
    name?: string
    description?: string | null
    body?: Record<string, unknown>
    by: string
  } = { by }
  if (input.name !== undefined) patch.name = input.name.trim()
  if (input.description !== undefined) patch.description = input.description
  if (input.configurationMap !== undefined) {
    patch.body = { configurationMap: input.configurationMap }
  }
  const updated = await named(ctx, patch.name ?? current.name, async (tx) =>
    tx.mockSettings.update(workspace.id, 'configuration', id, patch),
  )
  return { result: settingView(updated ?? current) }
}

const configurations = '/api/v1/workspaces/:workspaceId/service-mock-configurations'
const templates = '/api/v1/workspaces/:workspaceId/service-mock-templates'

export const mockSettingRoutes: Route[] = [
  listRoute('configuration', configurations),
  getRoute('configuration', configurations),
  {
    method: 'POST',
    path: configurations,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readConfigurationCreate(await ctx.json())
      const name = input.name.trim()
      const created = await named(ctx, name, async (tx) =>
        tx.mockSettings.create({
          workspaceId: workspace.id,
          kind: 'configuration',
          name,
          description: input.description ?? null,
          body: { configurationMap: input.configurationMap ?? {} },
          by: ctx.principal.user.email,
        }),
      )
      return { status: 201, result: settingView(created) }
    },
  },
  {
    method: 'PUT',
    path: `${configurations}/:settingId`,
    family: 'v1',
    handler: updateConfiguration,
  },
  {
    method: 'PATCH',
    path: `${configurations}/:settingId`,
    family: 'v1',
    handler: updateConfiguration,
  },
  listRoute('template', templates),
  getRoute('template', templates),
  {
    method: 'POST',
    path: templates,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readTemplateCreate(await ctx.json())
      const raw = ctx.query.get('serviceMockId')
      const mockId =
        input.serviceMockId ?? (raw !== null && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined)
      if (mockId === undefined) {
        throw invalidField('/serviceMockId', 'is required: a template is made from a mock service')
      }
      const mock = await ctx.deps.store.mockServices.get(workspace.id, mockId)
      if (mock === undefined) throw createError('ERR_API_NOT_FOUND', [`Mock service ${mockId}`])
      const body: Record<string, unknown> = {
        serviceId: mock.serviceId,
        serviceMockId: mock.id,
        configurationId: await ctx.deps.store.mockSettings.configurationOf(mock.id),
      }
      for (const field of templateFields) body[field] = mock[field]
      const name = input.name.trim()
      const created = await named(ctx, name, async (tx) =>
        tx.mockSettings.create({
          workspaceId: workspace.id,
          kind: 'template',
          name,
          description: input.description ?? null,
          body,
          by: ctx.principal.user.email,
        }),
      )
      return { status: 201, result: settingView(created) }
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/apply-template/:templateId',
    family: 'v1',
    handler: async (ctx) => {
      const { workspace, mock } = await mockServiceOf(ctx)
      const template = await settingOf(
        ctx.deps.store,
        workspace,
        'template',
        ctx.intParam('templateId'),
      )
      const body = template.body
      const fields: Record<string, unknown> = {}
      for (const field of templateFields) if (field in body) fields[field] = body[field]
      // transactions belong to a service: they come along only onto a mock service of the same one
      if (body['serviceId'] !== mock.serviceId) delete fields['mockServiceTransactions']
      if (fields['noMatchingRequestTxnId'] !== undefined && body['serviceId'] !== mock.serviceId) {
        fields['noMatchingRequestTxnId'] = null
        if (fields['noMatchingRequestPreference'] === 'returnTransaction') {
          fields['noMatchingRequestPreference'] = 'return404'
        }
      }
      const by = ctx.principal.user.email
      const configurationId =
        typeof body['configurationId'] === 'number' ? body['configurationId'] : null
      const updated = await ctx.deps.store.write(async (tx) => {
        const pendingUpdate = mock.status === 'RUNNING' || mock.pendingUpdate
        const next = await tx.mockServices.update(mock.id, {
          ...(fields as Partial<MockService>),
          pendingUpdate,
          by,
        })
        if (
          configurationId !== null &&
          (await tx.mockSettings.get(workspace.id, 'configuration', configurationId)) !== undefined
        ) {
          await tx.mockSettings.setConfiguration(mock.id, configurationId)
        }
        return next
      })
      return { result: await mockServiceRecord(ctx.deps.store, updated ?? mock) }
    },
  },
]
