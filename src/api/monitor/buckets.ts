import { randomBytes, randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import { invalidField } from '../validation.js'
import { bucketOf, workspacesOf } from './access.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { bucketView } from './views.js'

/* Buckets: GET /buckets, POST /buckets?name=&team_uuid=, GET/DELETE /buckets/{key}. */

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** 12 lowercase letters and digits, as the product's bucket keys. */
function newBucketKey(): string {
  const bytes = randomBytes(12)
  let key = ''
  for (const b of bytes) key += KEY_ALPHABET[b % KEY_ALPHABET.length]
  return key
}

/**
 * `name` and `team_uuid` (or `team_id`) from the query (as the product documents it), or from a
 * form-encoded body (as go-runscope sends it) or a JSON one.
 */
export async function bucketInput(
  ctx: MonitorContext,
): Promise<{ name: string | null; team: string | null }> {
  let name = ctx.query.get('name')
  let team = ctx.query.get('team_uuid') ?? ctx.query.get('team_id')
  const hasBody =
    Number(ctx.req.headers['content-length'] ?? 0) > 0 ||
    ctx.req.headers['transfer-encoding'] !== undefined
  if (hasBody && (name === null || team === null)) {
    const form = await ctx.form()
    name ??= form.get('name')
    team ??= form.get('team_uuid') ?? form.get('team_id')
  }
  return { name, team }
}

export const bucketRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/buckets',
    scope: 'api:read',
    handler: async (ctx) => {
      const workspaces = await workspacesOf(ctx.deps.store, ctx.principal)
      const byId = new Map(workspaces.map((w) => [w.id, w]))
      const buckets = await ctx.deps.store.monitoring.listBuckets(workspaces.map((w) => w.id))
      const data = []
      for (const b of buckets) {
        const workspace = byId.get(b.workspaceId)
        if (workspace !== undefined) data.push(bucketView(b, workspace, ctx.deps.options.baseUrl))
      }
      return { data }
    },
  },
  {
    method: 'POST',
    path: '/buckets',
    scope: ['bucket:write', 'message:write'],
    handler: async (ctx) => {
      const { name, team } = await bucketInput(ctx)
      if (name === null || name.trim() === '' || name.length > 200) {
        throw invalidField('/name', 'is required (query parameter name): 1 to 200 characters')
      }
      const workspaces = await workspacesOf(ctx.deps.store, ctx.principal)
      if (team === null || team === '') {
        throw invalidField(
          '/team_uuid',
          `is required (query parameter team_uuid): one of the teams of GET /account (${workspaces.map((w) => w.id).join(', ')})`,
        )
      }
      const workspace = workspaces.find((w) => String(w.id) === team)
      if (workspace === undefined) throw createError('ERR_API_NOT_FOUND', [`Team ${team}`])
      const bucket = await ctx.deps.store.monitoring.createBucket({
        key: newBucketKey(),
        workspaceId: workspace.id,
        name,
        triggerId: randomUUID(),
        isDefault: false,
      })
      return { status: 201, data: bucketView(bucket, workspace, ctx.deps.options.baseUrl) }
    },
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey',
    scope: 'api:read',
    handler: async (ctx) => {
      const { bucket, workspace } = await bucketOf(ctx)
      return { data: bucketView(bucket, workspace, ctx.deps.options.baseUrl) }
    },
  },
  {
    method: 'DELETE',
    path: '/buckets/:bucketKey',
    scope: ['bucket:write', 'message:write'],
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      const tests = await ctx.deps.store.monitoring.listTests(bucket.key, -1, 0)
      await ctx.deps.store.monitoring.deleteBucket(bucket.key)
      for (const test of tests) ctx.deps.runs.forgetTest(test.id)
      return { status: 204, raw: null }
    },
  },
]
