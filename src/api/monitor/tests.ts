import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type {
  JsonObject,
  MonitorBucket,
  MonitorTest,
  Repositories,
  User,
} from '../../store/index.js'
import { invalidField } from '../validation.js'
import { bucketOf, pageOf, testOf } from './access.js'
import { integrationsOf } from './run-context.js'
import { recordEnvironmentRevision, recordTestRevision } from './revisions.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { readEnvironment, readTest, type TestInput } from './validate.js'
import { authorOf, revisionView, testDetailView, testListView } from './views.js'

/* Tests: list, create (one or an array), detail, partial update, delete, revisions. */

/** The request step a new test gets when it is created without steps (the monitoring specification). */
function defaultStep(): JsonObject {
  return {
    id: randomUUID(),
    step_type: 'request',
    method: 'GET',
    url: 'https://yourapihere.com/',
    body: '',
    form: {},
    headers: {},
    auth: {},
    note: '',
    assertions: [{ comparison: 'is_equal', source: 'response_status', value: 200 }],
    variables: [],
    scripts: [],
    before_scripts: [],
  }
}

/** The detail view of a test, read fresh from the store. */
async function testDetail(ctx: MonitorContext, test: MonitorTest): Promise<JsonObject> {
  const store = ctx.deps.store.monitoring
  const [environments, schedules, runs] = await Promise.all([
    store.listEnvironments(test.bucketKey, test.id),
    store.listSchedules(test.id),
    store.listRuns(test.id, 1),
  ])
  return testDetailView(test, ctx.deps.options.baseUrl, environments, schedules, runs[0])
}

/** Creates one test with its default environment (and the environments a body carries). */
async function createTest(
  tx: Repositories,
  bucket: MonitorBucket,
  input: TestInput,
  user: User,
  now: number,
): Promise<MonitorTest> {
  const id = randomUUID()
  const envs = (input.environments ?? []).map((e, i) =>
    readEnvironment(e, `/environments/${i}`, true),
  )
  // Integrations of another platform's export name nothing here: kept only when they are this team's.
  for (const env of envs) {
    const kept = await integrationsOf(tx, bucket.workspaceId, env['integrations'])
    env['integrations'] = kept.map((i) => ({
      id: i.id,
      integration_type: i.type,
      description: i.description,
    }))
  }
  const envIds = envs.map(() => randomUUID())
  if (envs.length === 0) {
    envs.push({ name: 'Test Settings' })
    envIds.push(randomUUID())
  }
  const test = await tx.monitoring.createTest({
    id,
    bucketKey: bucket.key,
    name: input.name ?? 'New Test',
    description: input.description ?? null,
    defaultEnvironmentId: envIds[0] ?? null,
    triggerId: randomUUID(),
    createdBy: authorOf(user),
    steps: input.steps ?? [defaultStep()],
  })
  for (let i = 0; i < envs.length; i++) {
    const doc = envs[i] as JsonObject
    // A parent environment that does not exist in this bucket (an export from elsewhere) is dropped.
    if (
      typeof doc['parent_environment_id'] === 'string' &&
      (await tx.monitoring.getEnvironment(bucket.key, doc['parent_environment_id'])) === undefined
    ) {
      doc['parent_environment_id'] = null
    }
    const env = await tx.monitoring.createEnvironment({
      id: envIds[i] as string,
      bucketKey: bucket.key,
      testId: id,
      doc,
    })
    await recordEnvironmentRevision(tx, env, user, now)
  }
  await recordTestRevision(tx, test, user, now)
  return test
}

/** A default environment must be one of the test's or a shared one of its bucket. */
async function checkEnvironment(
  tx: Repositories,
  test: MonitorTest,
  envId: string,
  field: string,
): Promise<void> {
  const env = await tx.monitoring.getEnvironment(test.bucketKey, envId)
  if (env === undefined || (env.testId !== null && env.testId !== test.id)) {
    throw invalidField(field, `names no environment of this test or its bucket: ${envId}`)
  }
}

export const testRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests',
    scope: 'test:read',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      const { count, offset } = pageOf(ctx.query, 10, 1000)
      const tests = await ctx.deps.store.monitoring.listTests(bucket.key, count, offset)
      return { data: tests.map(testListView) }
    },
  },
  {
    method: 'POST',
    path: '/buckets/:bucketKey/tests',
    scope: 'test:write',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      const body = await ctx.json()
      const many = Array.isArray(body)
      const items = many ? body : [body]
      if (items.length === 0) {
        throw invalidField('/', 'must be a test object or a non-empty array of tests')
      }
      if (items.length > 100) throw invalidField('/', 'may carry at most 100 tests')
      const inputs = items.map((item, i) => readTest(item, many ? `/${i}` : '', true))
      const now = ctx.deps.options.now()
      const created = await ctx.deps.store.write(async (tx) => {
        const out: MonitorTest[] = []
        for (const input of inputs) {
          out.push(await createTest(tx, bucket, input, ctx.principal.user, now))
        }
        return out
      })
      const views = await Promise.all(created.map(async (t) => await testDetail(ctx, t)))
      return { status: 201, data: many ? views : views[0] }
    },
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId',
    scope: 'test:read',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      return { data: await testDetail(ctx, test) }
    },
  },
  {
    method: 'PUT',
    path: '/buckets/:bucketKey/tests/:testId',
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const input = readTest(await ctx.json(), '', false)
      const updated = await ctx.deps.store.write(async (tx) => {
        if (input.default_environment_id !== undefined) {
          await checkEnvironment(tx, test, input.default_environment_id, '/default_environment_id')
        }
        const patch: Parameters<Repositories['monitoring']['updateTest']>[1] = {}
        if (input.name !== undefined) patch.name = input.name
        if (input.description !== undefined) patch.description = input.description
        if (input.default_environment_id !== undefined) {
          patch.defaultEnvironmentId = input.default_environment_id
        }
        if (input.steps !== undefined) patch.steps = input.steps
        const next = await tx.monitoring.updateTest(test.id, patch)
        if (next === undefined) throw createError('ERR_API_NOT_FOUND', [`Test ${test.id}`])
        await recordTestRevision(tx, next, ctx.principal.user, ctx.deps.options.now())
        return next
      })
      return { data: await testDetail(ctx, updated) }
    },
  },
  {
    method: 'DELETE',
    path: '/buckets/:bucketKey/tests/:testId',
    scope: 'test:write',
    handler: async (ctx) => {
      const { bucket, test } = await testOf(ctx)
      ctx.deps.runs.forgetTest(test.id)
      await ctx.deps.store.monitoring.deleteTest(bucket.key, test.id)
      return { status: 204, raw: null }
    },
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/revisions',
    scope: 'test:read',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const revisions = await ctx.deps.store.monitoring.listRevisions(test.id)
      const accountId = ctx.principal.account.id
      const envRevisions: Record<string, unknown[]> = {}
      for (const r of revisions) {
        if (r.itemType !== 'environment') continue
        ;(envRevisions[r.itemId] ??= []).push(revisionView(r, accountId))
      }
      return {
        data: {
          test_revisions: revisions
            .filter((r) => r.itemType === 'radar_test')
            .map((r) => revisionView(r, accountId)),
          env_revisions: envRevisions,
        },
      }
    },
  },
]
