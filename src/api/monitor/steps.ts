import { createError } from '../../errors/index.js'
import type { JsonObject, MonitorTest } from '../../store/index.js'
import { invalidField } from '../validation.js'
import { testOf } from './access.js'
import { recordTestRevision } from './revisions.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { readStep } from './validate.js'
import { stepView } from './views.js'

/* Steps of a test: list, add (answers the steps, the new one last), one step, update, delete, reorder. */

/** Replaces a test's steps in one write, with a revision. */
async function saveSteps(
  ctx: MonitorContext,
  test: MonitorTest,
  steps: JsonObject[],
): Promise<MonitorTest> {
  return await ctx.deps.store.write(async (tx) => {
    const next = await tx.monitoring.updateTest(test.id, { steps })
    if (next === undefined) throw createError('ERR_API_NOT_FOUND', [`Test ${test.id}`])
    await recordTestRevision(tx, next, ctx.principal.user, ctx.deps.options.now())
    return next
  })
}

function indexOfStep(test: MonitorTest, stepId: string): number {
  const i = test.steps.findIndex((s) => s['id'] === stepId)
  if (i === -1) throw createError('ERR_API_NOT_FOUND', [`Step ${stepId}`])
  return i
}

export const stepRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/steps',
    scope: 'test:read',
    handler: async (ctx) => ({ data: (await testOf(ctx)).test.steps.map(stepView) }),
  },
  {
    method: 'POST',
    path: '/buckets/:bucketKey/tests/:testId/steps',
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const step = readStep(await ctx.json(), '')
      if (test.steps.length >= 500) throw invalidField('/', 'a test has at most 500 steps')
      const updated = await saveSteps(ctx, test, [...test.steps, step])
      // `data` is the test's steps, the new one last, for every caller: what the product answered
      // and what both Terraform providers decode (through ewilde/go-runscope, or sport24ru's own
      // client); a test object there would break them (docs/monitor-api.md, "The step POST answer").
      return { status: 201, data: updated.steps.map(stepView) }
    },
  },
  {
    // Reorder: the body lists every step of the test (ids, or step objects with their id) in the new order.
    method: 'PUT',
    path: '/buckets/:bucketKey/tests/:testId/steps',
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const body = await ctx.json()
      if (!Array.isArray(body)) {
        throw invalidField('/', 'must be an array of the step ids of the test in their new order')
      }
      const byId = new Map(test.steps.map((s) => [s['id'] as string, s]))
      const seen = new Set<string>()
      const ordered = body.map((item, i) => {
        const id =
          typeof item === 'string'
            ? item
            : typeof item === 'object' && item !== null
              ? (item as JsonObject)['id']
              : undefined
        if (typeof id !== 'string' || !byId.has(id) || seen.has(id)) {
          throw invalidField(`/${i}`, 'must be the id of a step of this test, each once')
        }
        seen.add(id)
        return byId.get(id) as JsonObject
      })
      if (ordered.length !== test.steps.length) {
        throw invalidField('/', `must list all ${test.steps.length} steps of the test`)
      }
      const updated = await saveSteps(ctx, test, ordered)
      return { data: updated.steps.map(stepView) }
    },
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/tests/:testId/steps/:stepId',
    scope: 'test:read',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      return {
        data: stepView(test.steps[indexOfStep(test, ctx.params['stepId'] ?? '')] as JsonObject),
      }
    },
  },
  {
    method: 'PUT',
    path: '/buckets/:bucketKey/tests/:testId/steps/:stepId',
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const stepId = ctx.params['stepId'] ?? ''
      const i = indexOfStep(test, stepId)
      const body = await ctx.json()
      const current = test.steps[i] as JsonObject
      // Attributes not sent keep their value; the step type may change only together with its attributes.
      const merged =
        typeof body === 'object' && body !== null && !Array.isArray(body)
          ? { ...current, ...(body as JsonObject), id: stepId }
          : body
      const step = readStep(merged, '', true)
      const steps = [...test.steps]
      steps[i] = step
      const updated = await saveSteps(ctx, test, steps)
      return { data: stepView(updated.steps[i] as JsonObject) }
    },
  },
  {
    method: 'DELETE',
    path: '/buckets/:bucketKey/tests/:testId/steps/:stepId',
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const i = indexOfStep(test, ctx.params['stepId'] ?? '')
      await saveSteps(
        ctx,
        test,
        test.steps.filter((_, j) => j !== i),
      )
      return { status: 204, raw: null }
    },
  },
]
