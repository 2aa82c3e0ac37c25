import { describe, expect, it, onTestFinished } from 'vitest'
import {
  RunQueue,
  type ExecuteInput,
  type ExecuteOutcome,
  type ScheduleTimers,
} from '../../../../src/api/monitor/run-queue.js'
import { createSilentLogger } from '../../../../src/log/index.js'
import { openSqliteStore, type Store } from '../../../../src/store/index.js'
import { tempDir } from '../../../helpers/temp-dir.js'
import { waitFor } from '../../../helpers/wait.js'

async function world(): Promise<{
  store: Store
  bucketKey: string
  testId: string
  envId: string
}> {
  const store = await openSqliteStore({ dataDir: tempDir() })
  onTestFinished(async () => await store.close())
  const account = await store.accounts.create({ name: 'a' })
  const user = await store.users.create({
    email: 'a@example.com',
    firstName: 'A',
    lastName: 'B',
    enabled: true,
    accountRoles: [],
    accountId: account.id,
  })
  const ws = await store.workspaces.create({
    accountId: account.id,
    name: 'w',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: user.id,
  })
  await store.monitoring.createBucket({
    key: 'bucket000001',
    workspaceId: ws.id,
    name: 'b',
    triggerId: 'bt',
    isDefault: false,
  })
  await store.monitoring.createTest({
    id: 't1',
    bucketKey: 'bucket000001',
    name: 't',
    description: null,
    defaultEnvironmentId: 'e1',
    triggerId: 'tt',
    createdBy: { id: '1', name: 'A B', email: 'a@example.com' },
    steps: [],
  })
  await store.monitoring.createEnvironment({
    id: 'root',
    bucketKey: 'bucket000001',
    testId: null,
    doc: { name: 'root', initial_variables: { a: '1' } },
  })
  await store.monitoring.createEnvironment({
    id: 'e1',
    bucketKey: 'bucket000001',
    testId: 't1',
    doc: { name: 'e1', parent_environment_id: 'root' },
  })
  return { store, bucketKey: 'bucket000001', testId: 't1', envId: 'e1' }
}

/** Timers the test fires by hand. */
function manualTimers(): ScheduleTimers & { fire: (id: string) => void; ids: () => string[] } {
  const fires = new Map<string, () => void>()
  return {
    add: (s, fire) => {
      fires.set(s.id, fire)
    },
    remove: (id) => {
      fires.delete(id)
    },
    stop: () => fires.clear(),
    fire: (id) => fires.get(id)?.(),
    ids: () => [...fires.keys()],
  }
}

/** An executor whose runs finish when the test says so. */
function gatedExecutor(): {
  execute: (input: ExecuteInput) => Promise<ExecuteOutcome>
  inputs: ExecuteInput[]
  release: (pass: boolean) => void
  running: () => number
} {
  const inputs: ExecuteInput[] = []
  const gates: Array<(pass: boolean) => void> = []
  let running = 0
  return {
    inputs,
    running: () => running,
    release: (pass) => gates.shift()?.(pass),
    execute: async (input) => {
      inputs.push(input)
      running++
      const pass = await new Promise<boolean>((resolve) => gates.push(resolve))
      running--
      return { pass, doc: { requests: [{ uuid: 's' }] } }
    },
  }
}

async function until(probe: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(probe, 'the queue to reach the state', { timeoutMs: 2000 })
}

describe('RunQueue', () => {
  it('runs one test at a time: a second run waits queued, with the environment chain root first', async () => {
    const w = await world()
    const exec = gatedExecutor()
    const queue = new RunQueue({
      store: w.store,
      log: createSilentLogger(),
      execute: exec.execute,
      timers: manualTimers(),
      retention: 10,
      now: Date.now,
    })
    const test = await w.store.monitoring.getTestById(w.testId)
    const bucket = await w.store.monitoring.getBucket(w.bucketKey)
    const env = await w.store.monitoring.getEnvironment(w.bucketKey, w.envId)
    if (test === undefined || bucket === undefined || env === undefined) throw new Error('seed')
    const first = await queue.start({
      test,
      bucket,
      environment: env,
      variables: { v: '1' },
      source: 'trigger',
    })
    const second = await queue.start({
      test,
      bucket,
      environment: env,
      variables: {},
      source: 'trigger',
    })
    await until(() => exec.running() === 1)
    expect(exec.inputs[0]?.environments.map((e) => e.id)).toEqual(['root', 'e1'])
    expect(exec.inputs[0]?.variables).toEqual({ v: '1' })
    expect((await w.store.monitoring.getRun(w.testId, first.id))?.result).toBe('working')
    expect((await w.store.monitoring.getRun(w.testId, second.id))?.result).toBe('queued')
    exec.release(true)
    await until(
      async () => (await w.store.monitoring.getRun(w.testId, first.id))?.result === 'pass',
    )
    await until(() => exec.running() === 1)
    exec.release(false)
    await until(
      async () => (await w.store.monitoring.getRun(w.testId, second.id))?.result === 'fail',
    )
    expect(queue.busy(w.testId)).toBe(false)
    await queue.close()
  })

  it('skips a schedule tick while its test runs, arms stored schedules at start, and runs again a run a stop interrupted', async () => {
    const w = await world()
    await w.store.monitoring.createSchedule({
      id: 's1',
      testId: w.testId,
      environmentId: w.envId,
      interval: '1m',
      note: null,
    })
    await w.store.monitoring.createRun({
      id: 'old',
      testId: w.testId,
      bucketKey: w.bucketKey,
      environmentId: w.envId,
      result: 'working',
      source: 'scheduled',
      created: 1,
      finished: null,
      doc: {},
    })
    const exec = gatedExecutor()
    const timers = manualTimers()
    const queue = new RunQueue({
      store: w.store,
      log: createSilentLogger(),
      execute: exec.execute,
      timers,
      retention: 10,
      now: Date.now,
    })
    await queue.loadSchedules()
    expect(timers.ids()).toEqual(['s1'])
    // The run the stop interrupted (no lease: its platform is gone) is taken over and runs here.
    await until(() => exec.running() === 1)
    expect(exec.inputs[0]?.runId).toBe('old')
    timers.fire('s1')
    timers.fire('s1')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(exec.inputs).toHaveLength(1)
    exec.release(true)
    await until(() => !queue.busy(w.testId))
    timers.fire('s1')
    await until(() => exec.running() === 1)
    exec.release(false)
    await until(() => !queue.busy(w.testId))
    queue.forgetTest(w.testId)
    expect(timers.ids()).toEqual([])
    const runs = await w.store.monitoring.listRuns(w.testId, 10)
    expect(runs.map((r) => [r.id === 'old', r.source, r.result])).toEqual([
      [false, 'scheduled', 'fail'],
      [true, 'scheduled', 'pass'],
    ])
    await queue.close()
  })

  it('takes a dead instance’s run over three times at most, then leaves it failed', async () => {
    const w = await world()
    await w.store.monitoring.createRun({
      id: 'crashing',
      testId: w.testId,
      bucketKey: w.bucketKey,
      environmentId: w.envId,
      result: 'working',
      source: 'trigger',
      created: 1,
      finished: null,
      doc: {},
      leaseId: 'platform:gone',
      leaseExpires: 10,
    })
    const takeOver = async (now: number): Promise<string[]> =>
      await w.store.localRuns.takeOver({
        leaseId: `platform:${now}`,
        now,
        expires: now + 100,
        maxAttempts: 3,
      })
    expect(await takeOver(20)).toEqual(['crashing'])
    // Held under a live lease: nobody else takes it.
    expect(await takeOver(50)).toEqual([])
    expect(await takeOver(200)).toEqual(['crashing'])
    expect(await takeOver(400)).toEqual(['crashing'])
    expect(await takeOver(600)).toEqual([])
    expect(await w.store.monitoring.failUnfinishedRuns(600, 'stopped')).toBe(1)
    expect((await w.store.monitoring.getRun(w.testId, 'crashing'))?.result).toBe('fail')
  })

  it('keeps the newest runs only, and refuses a 51st waiting run with 429', async () => {
    const w = await world()
    const exec = gatedExecutor()
    const queue = new RunQueue({
      store: w.store,
      log: createSilentLogger(),
      execute: exec.execute,
      timers: manualTimers(),
      retention: 2,
      now: Date.now,
    })
    const test = await w.store.monitoring.getTestById(w.testId)
    const bucket = await w.store.monitoring.getBucket(w.bucketKey)
    const env = await w.store.monitoring.getEnvironment(w.bucketKey, w.envId)
    if (test === undefined || bucket === undefined || env === undefined) throw new Error('seed')
    for (let i = 0; i < 50; i++) {
      await queue.start({ test, bucket, environment: env, variables: {}, source: 'trigger' })
    }
    await expect(
      queue.start({ test, bucket, environment: env, variables: {}, source: 'trigger' }),
    ).rejects.toMatchObject({ code: 'ERR_API_RATE_LIMITED' })
    for (let i = 0; i < 50; i++) {
      await until(() => exec.inputs.length === i + 1 && exec.running() === 1)
      exec.release(true)
    }
    await until(() => !queue.busy(w.testId))
    expect(await w.store.monitoring.listRuns(w.testId, 100)).toHaveLength(2)
    await queue.close()
  })
})

describe('RunQueue concurrency', () => {
  it('executes at most maxConcurrent runs at once across tests; the others wait queued', async () => {
    const w = await world()
    await w.store.monitoring.createTest({
      id: 't2',
      bucketKey: w.bucketKey,
      name: 't2',
      description: null,
      defaultEnvironmentId: 'e1',
      triggerId: 'tt2',
      createdBy: { id: '1', name: 'A B', email: 'a@example.com' },
      steps: [],
    })
    const exec = gatedExecutor()
    const queue = new RunQueue({
      store: w.store,
      log: createSilentLogger(),
      execute: exec.execute,
      timers: manualTimers(),
      retention: 10,
      now: Date.now,
      maxConcurrent: 1,
    })
    const bucket = await w.store.monitoring.getBucket(w.bucketKey)
    const env = await w.store.monitoring.getEnvironment(w.bucketKey, w.envId)
    const t1 = await w.store.monitoring.getTestById('t1')
    const t2 = await w.store.monitoring.getTestById('t2')
    if (t1 === undefined || t2 === undefined || bucket === undefined || env === undefined) {
      throw new Error('seed')
    }
    await queue.start({ test: t1, bucket, environment: env, variables: {}, source: 'trigger' })
    const second = await queue.start({
      test: t2,
      bucket,
      environment: env,
      variables: {},
      source: 'trigger',
    })
    await until(() => exec.running() === 1)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(exec.inputs).toHaveLength(1)
    expect((await w.store.monitoring.getRun('t2', second.id))?.result).toBe('queued')
    exec.release(true)
    await until(() => exec.inputs.length === 2 && exec.running() === 1)
    exec.release(true)
    await until(async () => (await w.store.monitoring.getRun('t2', second.id))?.result === 'pass')
    await queue.close()
  })
})

describe('RunQueue schedule slots', () => {
  it('stores one run per schedule, slot and region whoever fires it: two schedulers on one store', async () => {
    const w = await world()
    const bucket = await w.store.monitoring.getBucket(w.bucketKey)
    const workspace =
      bucket === undefined ? undefined : await w.store.workspaces.get(bucket.workspaceId)
    if (bucket === undefined || workspace === undefined) throw new Error('seed')
    // An agent of a harbor offered to the bucket's workspace serves `eu`.
    await w.store.locations.createHarbor({
      id: 'harbor-1',
      accountId: workspace.accountId,
      name: 'h',
      userId: null,
      workspaceIds: [bucket.workspaceId],
    })
    await w.store.locations.createShip({
      id: 'ship-1',
      harborId: 'harbor-1',
      name: 's',
      address: null,
      tokenHash: 'x',
    })
    await w.store.monitoring.recordAgentRegion('ship-1', 'eu', Date.now())
    await w.store.monitoring.updateEnvironment('e1', {
      name: 'e1',
      parent_environment_id: 'root',
      regions: ['local', 'eu'],
    })
    await w.store.monitoring.createSchedule({
      id: 's1',
      testId: w.testId,
      environmentId: w.envId,
      interval: '1m',
      note: null,
    })
    let now = 1_800_000_000_000
    const queues = [manualTimers(), manualTimers()].map((timers) => ({
      timers,
      queue: new RunQueue({
        store: w.store,
        log: createSilentLogger(),
        execute: async () => ({ pass: true, doc: {} }),
        timers,
        retention: 100,
        now: () => now,
      }),
    }))
    for (const { queue } of queues) await queue.loadSchedules()
    const runs = async () =>
      (await w.store.monitoring.listRuns(w.testId, 100))
        .map((r) => `${r.region ?? 'local'}:${r.result}`)
        .sort()

    for (const { timers } of queues) timers.fire('s1')
    await until(async () => (await runs()).join() === 'eu:queued,local:pass')
    // The same slot fired again by either scheduler adds nothing.
    for (const { timers } of queues) timers.fire('s1')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await runs()).toEqual(['eu:queued', 'local:pass'])

    // The next slot: one more local run; `eu` still waits for an agent, so it is not queued twice.
    now += 60_000
    for (const { timers } of queues) timers.fire('s1')
    await until(async () => (await runs()).length === 3)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await runs()).toEqual(['eu:queued', 'local:pass', 'local:pass'])
    for (const { queue } of queues) await queue.close()
  })
})
