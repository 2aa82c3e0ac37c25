import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type {
  JsonObject,
  MonitorBucket,
  MonitorEnvironment,
  Repositories,
} from '../../store/index.js'
import { invalidField } from '../validation.js'
import { bucketOf, testOf } from './access.js'
import { readEnvironmentIntegrations } from './integrations.js'
import { recordEnvironmentRevision } from './revisions.js'
import type { MonitorContext, MonitorResult, MonitorRoute } from './types.js'
import { readEnvironment } from './validate.js'
import { environmentView } from './views.js'

/*
 * Environments, shared per bucket (`/buckets/{k}/environments`) and per test
 * (`/buckets/{k}/tests/{t}/environments`). `parent_environment_id` names a shared environment of
 * the same bucket whose variables, headers, scripts and settings the child inherits.
 */

/** The parent must be a shared environment of the bucket, and the chain must not loop. */
async function checkParent(
  tx: Repositories,
  bucket: MonitorBucket,
  doc: JsonObject,
  selfId: string,
): Promise<void> {
  const parentId = doc['parent_environment_id']
  if (parentId === undefined || parentId === null) return
  let current: string | null = parentId as string
  for (let depth = 0; current !== null; depth++) {
    if (current === selfId || depth > 10) {
      throw invalidField(
        '/parent_environment_id',
        'would make environments inherit from each other in a loop',
      )
    }
    const env: MonitorEnvironment | undefined = await tx.monitoring.getEnvironment(
      bucket.key,
      current,
    )
    if (env === undefined || env.testId !== null) {
      throw invalidField(
        '/parent_environment_id',
        `names no shared environment of this bucket: ${String(parentId)}`,
      )
    }
    current =
      typeof env.doc['parent_environment_id'] === 'string' ? env.doc['parent_environment_id'] : null
  }
}

/** Checks the integrations an environment body references (ids of the bucket's team) and stores them in the shape of the monitoring specification. */
async function checkIntegrations(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  doc: JsonObject,
): Promise<void> {
  const integrations = await readEnvironmentIntegrations(
    ctx.deps.store,
    bucket.workspaceId,
    doc['integrations'],
  )
  if (integrations !== null) doc['integrations'] = integrations
  else if (doc['integrations'] === null) delete doc['integrations']
}

async function create(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  testId: string | null,
): Promise<JsonObject> {
  const doc = readEnvironment(await ctx.json(), '', true)
  await checkIntegrations(ctx, bucket, doc)
  const id = randomUUID()
  const env = await ctx.deps.store.write(async (tx) => {
    await checkParent(tx, bucket, doc, id)
    const created = await tx.monitoring.createEnvironment({
      id,
      bucketKey: bucket.key,
      testId,
      doc,
    })
    await recordEnvironmentRevision(tx, created, ctx.principal.user, ctx.deps.options.now())
    return created
  })
  return environmentView(env)
}

async function envOf(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  testId: string | null,
): Promise<MonitorEnvironment> {
  const id = ctx.params['environmentId'] ?? ''
  const env = await ctx.deps.store.monitoring.getEnvironment(bucket.key, id)
  if (env === undefined || env.testId !== testId) {
    throw createError('ERR_API_NOT_FOUND', [`Environment ${id}`])
  }
  return env
}

async function update(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  env: MonitorEnvironment,
): Promise<JsonObject> {
  const patch = readEnvironment(await ctx.json(), '', false)
  await checkIntegrations(ctx, bucket, patch)
  const doc = { ...env.doc, ...patch }
  const updated = await ctx.deps.store.write(async (tx) => {
    await checkParent(tx, bucket, doc, env.id)
    const next = await tx.monitoring.updateEnvironment(env.id, doc)
    if (next === undefined) throw createError('ERR_API_NOT_FOUND', [`Environment ${env.id}`])
    await recordEnvironmentRevision(tx, next, ctx.principal.user, ctx.deps.options.now())
    return next
  })
  return environmentView(updated)
}

async function remove(
  ctx: MonitorContext,
  bucket: MonitorBucket,
  env: MonitorEnvironment,
): Promise<void> {
  const tests = await ctx.deps.store.monitoring.listTests(bucket.key, -1, 0)
  const user = tests.find((t) => t.defaultEnvironmentId === env.id)
  if (user !== undefined) {
    throw createError('ERR_API_CONFLICT', [
      `Environment ${env.id} is the default environment of test ${user.id}`,
    ])
  }
  // Children may be shared environments or any test's own: all of them are looked at.
  const owners = [null, ...tests.map((t) => t.id)]
  for (const owner of owners) {
    const child = (await ctx.deps.store.monitoring.listEnvironments(bucket.key, owner)).find(
      (e) => e.doc['parent_environment_id'] === env.id,
    )
    if (child !== undefined) {
      throw createError('ERR_API_CONFLICT', [
        `Environment ${env.id} is the parent of environment ${child.id}${child.testId === null ? '' : ` of test ${child.testId}`}: delete that one or change its parent_environment_id first`,
      ])
    }
  }
  await ctx.deps.store.monitoring.deleteEnvironment(bucket.key, env.id)
}

async function updateShared(ctx: MonitorContext): Promise<MonitorResult> {
  const { bucket } = await bucketOf(ctx)
  return { data: await update(ctx, bucket, await envOf(ctx, bucket, null)) }
}

async function removeOfTest(ctx: MonitorContext): Promise<MonitorResult> {
  const { bucket, test } = await testOf(ctx)
  await remove(ctx, bucket, await envOf(ctx, bucket, test.id))
  return { status: 204, raw: null }
}

const shared = '/buckets/:bucketKey/environments'
const ofTest = '/buckets/:bucketKey/tests/:testId/environments'

export const environmentRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: shared,
    scope: 'test:read',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      return {
        data: (await ctx.deps.store.monitoring.listEnvironments(bucket.key, null)).map(
          environmentView,
        ),
      }
    },
  },
  {
    method: 'POST',
    path: shared,
    scope: 'test:write',
    handler: async (ctx) => ({
      status: 201,
      data: await create(ctx, (await bucketOf(ctx)).bucket, null),
    }),
  },
  {
    method: 'GET',
    path: `${shared}/:environmentId`,
    scope: 'test:read',
    handler: async (ctx) => ({
      data: environmentView(await envOf(ctx, (await bucketOf(ctx)).bucket, null)),
    }),
  },
  {
    method: 'PUT',
    path: `${shared}/:environmentId`,
    scope: 'test:write',
    handler: updateShared,
  },
  {
    method: 'DELETE',
    path: `${shared}/:environmentId`,
    scope: 'test:write',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      await remove(ctx, bucket, await envOf(ctx, bucket, null))
      return { status: 204, raw: null }
    },
  },
  // go-runscope's UpdateSharedEnvironment writes `Environments` with a capital E (a typo its users
  // depend on) and its DeleteTestEnvironment puts the test id where the environment id belongs:
  // /buckets/{k}/environments/{test}/tests/{environment}. Both answer as the paths they mean.
  {
    method: 'PUT',
    path: '/buckets/:bucketKey/Environments/:environmentId',
    scope: 'test:write',
    handler: updateShared,
  },
  {
    method: 'DELETE',
    path: `${shared}/:testId/tests/:environmentId`,
    scope: 'test:write',
    handler: removeOfTest,
  },
  {
    method: 'GET',
    path: ofTest,
    scope: 'test:read',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      return {
        data: (await ctx.deps.store.monitoring.listEnvironments(bucket.key, test.id)).map(
          environmentView,
        ),
      }
    },
  },
  {
    method: 'POST',
    path: ofTest,
    scope: 'test:write',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      return { status: 201, data: await create(ctx, bucket, test.id) }
    },
  },
  {
    method: 'GET',
    path: `${ofTest}/:environmentId`,
    scope: 'test:read',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      return { data: environmentView(await envOf(ctx, bucket, test.id)) }
    },
  },
  {
    method: 'PUT',
    path: `${ofTest}/:environmentId`,
    scope: 'test:write',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      return { data: await update(ctx, bucket, await envOf(ctx, bucket, test.id)) }
    },
  },
  {
    method: 'DELETE',
    path: `${ofTest}/:environmentId`,
    scope: 'test:write',
    handler: removeOfTest,
  },
]
