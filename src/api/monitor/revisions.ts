import { randomUUID } from 'node:crypto'
import type { MonitorEnvironment, MonitorTest, Repositories, User } from '../../store/index.js'
import { authorOf, environmentView, stepView } from './views.js'

/* Revisions (the monitoring specification, docs/monitor-api.md#tests): one per change of a test or an environment. */

export async function recordTestRevision(
  tx: Repositories,
  test: MonitorTest,
  user: User,
  now: number,
): Promise<void> {
  await tx.monitoring.addRevision({
    uuid: randomUUID(),
    bucketKey: test.bucketKey,
    testId: test.id,
    itemType: 'radar_test',
    itemId: test.id,
    timestamp: now / 1000,
    author: authorOf(user),
    doc: {
      name: test.name,
      description: test.description,
      default_environment_id: test.defaultEnvironmentId,
      steps: test.steps.map(stepView),
    },
  })
}

export async function recordEnvironmentRevision(
  tx: Repositories,
  env: MonitorEnvironment,
  user: User,
  now: number,
): Promise<void> {
  await tx.monitoring.addRevision({
    uuid: randomUUID(),
    bucketKey: env.bucketKey,
    testId: env.testId,
    itemType: 'environment',
    itemId: env.id,
    timestamp: now / 1000,
    author: authorOf(user),
    doc: environmentView(env),
  })
}
