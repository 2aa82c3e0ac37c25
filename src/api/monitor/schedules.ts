import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { MonitorTest, Repositories } from '../../store/index.js'
import { invalidField } from '../validation.js'
import { testOf } from './access.js'
import type { MonitorContext, MonitorRoute } from './types.js'
import { readSchedule } from './validate.js'
import { scheduleView } from './views.js'

/* Schedules of a test: `{environment_id, interval, note}`; the platform's scheduler runs them. */

async function checkEnvironment(tx: Repositories, test: MonitorTest, envId: string): Promise<void> {
  const env = await tx.monitoring.getEnvironment(test.bucketKey, envId)
  if (env === undefined || (env.testId !== null && env.testId !== test.id)) {
    throw invalidField(
      '/environment_id',
      `names no environment of this test or its bucket: ${envId}`,
    )
  }
}

async function scheduleOf(ctx: MonitorContext): Promise<{ test: MonitorTest; id: string }> {
  const { test } = await testOf(ctx)
  const id = ctx.params['scheduleId'] ?? ''
  if ((await ctx.deps.store.monitoring.getSchedule(test.id, id)) === undefined) {
    throw createError('ERR_API_NOT_FOUND', [`Schedule ${id}`])
  }
  return { test, id }
}

const base = '/buckets/:bucketKey/tests/:testId/schedules'

export const scheduleRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: base,
    scope: 'test:read',
    handler: async (ctx) => ({
      data: (await ctx.deps.store.monitoring.listSchedules((await testOf(ctx)).test.id)).map(
        scheduleView,
      ),
    }),
  },
  {
    method: 'POST',
    path: base,
    scope: 'test:write',
    handler: async (ctx) => {
      const { test } = await testOf(ctx)
      const input = readSchedule(await ctx.json(), true)
      const schedule = await ctx.deps.store.write(async (tx) => {
        await checkEnvironment(tx, test, input.environment_id as string)
        return await tx.monitoring.createSchedule({
          id: randomUUID(),
          testId: test.id,
          environmentId: input.environment_id as string,
          interval: input.interval as string,
          note: input.note ?? null,
        })
      })
      ctx.deps.runs.syncSchedules(test.id)
      return { status: 201, data: scheduleView(schedule) }
    },
  },
  {
    method: 'GET',
    path: `${base}/:scheduleId`,
    scope: 'test:read',
    handler: async (ctx) => {
      const { test, id } = await scheduleOf(ctx)
      return {
        data: scheduleView(
          (await ctx.deps.store.monitoring.getSchedule(test.id, id)) as NonNullable<
            Awaited<ReturnType<Repositories['monitoring']['getSchedule']>>
          >,
        ),
      }
    },
  },
  {
    method: 'PUT',
    path: `${base}/:scheduleId`,
    scope: 'test:write',
    handler: async (ctx) => {
      const { test, id } = await scheduleOf(ctx)
      const input = readSchedule(await ctx.json(), false)
      const updated = await ctx.deps.store.write(async (tx) => {
        if (input.environment_id !== undefined) {
          await checkEnvironment(tx, test, input.environment_id)
        }
        const patch: Parameters<Repositories['monitoring']['updateSchedule']>[1] = {}
        if (input.environment_id !== undefined) patch.environmentId = input.environment_id
        if (input.interval !== undefined) patch.interval = input.interval
        if (input.note !== undefined) patch.note = input.note
        const next = await tx.monitoring.updateSchedule(id, patch)
        if (next === undefined) throw createError('ERR_API_NOT_FOUND', [`Schedule ${id}`])
        return next
      })
      ctx.deps.runs.syncSchedules(test.id)
      return { data: scheduleView(updated) }
    },
  },
  {
    method: 'DELETE',
    path: `${base}/:scheduleId`,
    scope: 'test:write',
    handler: async (ctx) => {
      const { test, id } = await scheduleOf(ctx)
      await ctx.deps.store.monitoring.deleteSchedule(test.id, id)
      ctx.deps.runs.syncSchedules(test.id)
      return { status: 204, raw: null }
    },
  },
]
