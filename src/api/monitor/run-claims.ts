import type { JsonObject, MonitorRun, MonitorTest, Repositories } from '../../store/index.js'
import { environmentChain } from './run-context.js'
import { placementView } from './run-targets.js'

/*
 * What an agent gets with a run it claims, and how its result is stored: the agent runs the test
 * with the same runner as the platform's local one, so it needs the test, its environment chain
 * (inheritance is applied by the runner), the trigger's variables, and every subtest the steps
 * reach (the agent cannot read the bucket).
 */

/** Subtests are followed this deep (the runner's default nesting limit) and this many at most. */
const MAX_SUBTEST_DEPTH = 5
const MAX_SUBTESTS = 50

interface SubtestRef {
  testId: string
  environmentId: string | null
}

/** The subtest steps of a list of steps, condition steps' nested steps included. */
function subtestRefs(steps: readonly unknown[], out: SubtestRef[] = []): SubtestRef[] {
  for (const step of steps) {
    if (typeof step !== 'object' || step === null) continue
    const s = step as JsonObject
    if (s['step_type'] === 'subtest' && typeof s['test_uuid'] === 'string') {
      out.push({
        testId: s['test_uuid'],
        environmentId:
          typeof s['environment_uuid'] === 'string' && s['environment_uuid'] !== ''
            ? s['environment_uuid']
            : null,
      })
    } else if (s['step_type'] === 'condition' && Array.isArray(s['steps'])) {
      subtestRefs(s['steps'], out)
    }
  }
  return out
}

function testDoc(test: MonitorTest): JsonObject {
  return { id: test.id, name: test.name, bucket_key: test.bucketKey, steps: test.steps }
}

async function chainDocs(
  store: Pick<Repositories, 'monitoring'>,
  bucketKey: string,
  environmentId: string,
): Promise<JsonObject[]> {
  return (await environmentChain(store, bucketKey, environmentId)).map((e) => ({
    ...e.doc,
    id: e.id,
  }))
}

/** Every subtest the test's steps reach (in the test's bucket), each with its environment chain. */
async function subtestsOf(
  store: Pick<Repositories, 'monitoring'>,
  test: MonitorTest,
): Promise<JsonObject[]> {
  const out: JsonObject[] = []
  const seen = new Set<string>()
  let level: MonitorTest[] = [test]
  for (let depth = 0; depth < MAX_SUBTEST_DEPTH && level.length > 0; depth++) {
    const next: MonitorTest[] = []
    for (const parent of level) {
      for (const ref of subtestRefs(parent.steps)) {
        const key = `${ref.testId}\n${ref.environmentId ?? ''}`
        if (seen.has(key) || out.length >= MAX_SUBTESTS) continue
        seen.add(key)
        const sub = await store.monitoring.getTest(test.bucketKey, ref.testId)
        const envId = ref.environmentId ?? sub?.defaultEnvironmentId ?? null
        if (sub === undefined || envId === null) continue
        out.push({
          test_uuid: ref.testId,
          environment_uuid: ref.environmentId,
          test: testDoc(sub),
          environments: await chainDocs(store, test.bucketKey, envId),
        })
        next.push(sub)
      }
    }
    level = next
  }
  return out
}

/** The claim's answer: the run and everything needed to execute it, and the lease it is held under. */
export async function claimPayload(
  store: Pick<Repositories, 'monitoring'>,
  run: MonitorRun,
  lease: { id: string; expiresAt: number; durationMs: number },
): Promise<JsonObject | undefined> {
  const test = await store.monitoring.getTestById(run.testId)
  if (test === undefined) return undefined
  const initial = run.doc['initial_variables']
  return {
    id: run.id,
    testId: run.testId,
    bucketKey: run.bucketKey,
    environmentId: run.environmentId,
    ...placementView(run),
    source: run.source,
    test: testDoc(test),
    environments: await chainDocs(store, run.bucketKey, run.environmentId),
    variables: typeof initial === 'object' && initial !== null ? initial : {},
    subtests: await subtestsOf(store, test),
    lease,
  }
}

/** Fields of a run's result that the platform decides, whatever the agent sends. */
function identityOf(run: MonitorRun, agent: string): JsonObject {
  return {
    test_run_id: run.id,
    test_id: run.testId,
    test_name: run.doc['test_name'] ?? null,
    environment_id: run.environmentId,
    environment_name: run.doc['environment_name'] ?? null,
    initial_variables: run.doc['initial_variables'] ?? {},
    ...placementView({ ...run, agent }),
  }
}

/** The stored document of a run an agent completed: its result, under the run's own identity. */
export function completedDoc(
  run: MonitorRun,
  agent: string,
  result: JsonObject,
  finished: number,
): JsonObject {
  return {
    ...run.doc,
    ...result,
    ...identityOf(run, agent),
    started_at: run.doc['started_at'] ?? result['started_at'] ?? finished / 1000,
    finished_at: finished / 1000,
  }
}
