import { createError } from '../../errors/index.js'
import type { PostServeCall } from '../../dsl/index.js'
import { validateTemplate } from '../../dsl/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { invalidField } from '../validation.js'
import { mockServiceOf } from './mock-lookup.js'
import { adminCall } from './runtime-admin.js'
import { viewsOf } from './transactions.js'

/*
 * Dynamic behaviour on the control plane: template validation, scenario states of a running mock
 * service, and transaction actions (WEBHOOK / HTTP_CALL) stored as the DSL's `postServe`.
 */

const base = '/api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/scenarios'

/** Calls a running mock service's admin `/scenarios`; a stopped one has no scenario state. */
async function scenarioCall(
  ctx: ApiContext,
  method: string,
  suffix: string,
  body?: unknown,
): Promise<HandlerResult> {
  const { mock } = await mockServiceOf(ctx)
  const admin = await ctx.deps.deployer.admin(mock.id)
  if (admin === null) {
    if (method === 'GET') return { result: { scenarios: [], postServe: null } }
    throw createError('ERR_API_CONFLICT', [
      `Service mock ${mock.id} is not running: its scenarios have no state`,
    ])
  }
  return { result: (await adminCall(admin, method, `/scenarios${suffix}`, body)).result }
}

const actionTypes = new Set(['WEBHOOK', 'HTTP_CALL'])

/** Reads a transaction action (the product's shape, or ours) as a postServe call. */
function readAction(input: unknown): PostServeCall {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalidField('/', 'must be an object {type, url, method, headers, body, delay}')
  }
  const a = input as Record<string, unknown>
  const type = typeof a['type'] === 'string' ? a['type'].toUpperCase() : 'WEBHOOK'
  if (!actionTypes.has(type)) throw invalidField('/type', 'must be WEBHOOK or HTTP_CALL')
  const url = a['url']
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) {
    throw invalidField('/url', 'must be an absolute http(s) URL')
  }
  const method = a['method'] ?? 'POST'
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) {
    throw invalidField('/method', 'must be an HTTP method')
  }
  const call: PostServeCall = { url, method: method.toUpperCase() }
  const headers = a['headers']
  if (headers !== undefined && headers !== null) {
    const list = Array.isArray(headers)
      ? headers
      : Object.entries(headers as Record<string, unknown>).map(([name, value]) => ({ name, value }))
    call.headers = list.map((h: unknown, i) => {
      const entry = h as { name?: unknown; value?: unknown }
      if (typeof entry?.name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(entry.name)) {
        throw invalidField(`/headers/${i}/name`, 'must be a header name')
      }
      if (typeof entry.value !== 'string') {
        throw invalidField(`/headers/${i}/value`, 'must be a string')
      }
      return { name: entry.name, value: entry.value }
    })
  }
  if (a['body'] !== undefined && a['body'] !== null) {
    if (typeof a['body'] !== 'string') {
      throw invalidField('/body', 'must be a string (a Handlebars template)')
    }
    const check = validateTemplate(a['body'])
    if (!check.valid) throw invalidField('/body', check.message)
    call.body = a['body']
  }
  if (a['delay'] !== undefined && a['delay'] !== null) {
    if (
      typeof a['delay'] !== 'number' ||
      !Number.isInteger(a['delay']) ||
      a['delay'] < 0 ||
      a['delay'] > 3_600_000
    ) {
      throw invalidField('/delay', 'must be an integer of ms from 0 to 3600000')
    }
    if (a['delay'] > 0) call.delay = a['delay']
  }
  return call
}

export const dynamicRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/system/validations/handlebars',
    family: 'v1',
    handler: async (ctx) => {
      const input = (await ctx.json()) as { template?: unknown } | null
      if (input === null || typeof input !== 'object' || typeof input.template !== 'string') {
        throw invalidField('/template', 'must be a string')
      }
      return { result: validateTemplate(input.template) }
    },
  },
  { method: 'GET', path: base, family: 'v1', handler: async (ctx) => scenarioCall(ctx, 'GET', '') },
  {
    method: 'DELETE',
    path: base,
    family: 'v1',
    handler: async (ctx) => scenarioCall(ctx, 'DELETE', ''),
  },
  {
    method: 'PUT',
    path: `${base}/:scenarioName`,
    family: 'v1',
    handler: async (ctx) =>
      scenarioCall(
        ctx,
        'PUT',
        `/${encodeURIComponent(ctx.params['scenarioName'] ?? '')}`,
        await ctx.json(),
      ),
  },
  {
    method: 'DELETE',
    path: `${base}/:scenarioName`,
    family: 'v1',
    handler: async (ctx) => {
      const instance = ctx.query.get('instance')
      const suffix = `/${encodeURIComponent(ctx.params['scenarioName'] ?? '')}${instance === null ? '' : `?instance=${encodeURIComponent(instance)}`}`
      return scenarioCall(ctx, 'DELETE', suffix)
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/:workspaceId/transactions/:transactionId/actions',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('transactionId')
      const call = readAction(await ctx.json())
      const updated = await ctx.deps.store.write(async (tx) => {
        const txn = await tx.transactions.get(workspace.id, id)
        if (txn === undefined) return undefined
        const responseDsl = {
          ...txn.dsl.responseDsl,
          postServe: [...(txn.dsl.responseDsl.postServe ?? []), call],
        }
        return tx.transactions.update(workspace.id, id, {
          dsl: { ...txn.dsl, responseDsl },
          by: ctx.principal.user.email,
        })
      })
      if (updated === undefined) throw createError('ERR_API_NOT_FOUND', [`Transaction ${id}`])
      const [view] = await viewsOf(ctx, workspace.id, [updated])
      return { status: 201, result: view }
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/transactions/:transactionId/actions',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const id = ctx.intParam('transactionId')
      const txn = await ctx.deps.store.transactions.get(workspace.id, id)
      if (txn === undefined) throw createError('ERR_API_NOT_FOUND', [`Transaction ${id}`])
      return {
        result: (txn.dsl.responseDsl.postServe ?? []).map((c) => ({ type: 'WEBHOOK', ...c })),
      }
    },
  },
]
