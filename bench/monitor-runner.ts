// The monitoring runner's figure: request steps per second of the monitoring runner (src/monitor)
// against a local target. The target is bare node:http in a child process (pinned to CPU 0 where
// taskset exists); the runner runs in this process. Each test has STEPS request steps, each with a
// JSON assertion, a status assertion and a variable (substituted into the next step's URL);
// CONCURRENCY tests run at once, as schedules of different tests do. Reported: wall-clock steps/s
// and steps per CPU-second of this process (the runner's cost on one core), and the same for a
// bare undici client doing the same steps in the same run (request, status and JSON checks, the
// value carried into the next URL): `runner / bare` is the ratio of steps per CPU-second.
//
//   npx tsx bench/monitor-runner.ts [--duration 5] [--rounds 3] [--concurrency 20] [--steps 20]
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { resolveEnvironment, runTest, type RunnableTest, type Step } from '../src/monitor/index.js'
import { startChild } from './child.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '20' },
    steps: { type: 'string', default: '20' },
  },
})
const durationMs = Number(values.duration) * 1000
const concurrency = Number(values.concurrency)
const stepsPerTest = Number(values.steps)

const target = await startChild(
  'node',
  ['--import', 'tsx', join(root, 'bench/servers/bare-http.ts')],
  {},
  0,
)
try {
  const steps: Step[] = Array.from({ length: stepsPerTest }, (_, i) => ({
    step_type: 'request',
    method: 'GET',
    url: `{{base}}/items/${i}?previous={{hello}}`,
    headers: { Accept: ['application/json'] },
    assertions: [
      { source: 'response_status', comparison: 'equal_number', value: 200 },
      { source: 'response_json', property: 'hello', comparison: 'equal', value: 'world' },
    ],
    variables: [{ name: 'hello', source: 'response_json', property: 'hello' }],
  }))
  const test: RunnableTest = { id: 'bench', name: 'bench', steps }
  const environment = resolveEnvironment([
    { initial_variables: { base: target.url, hello: 'start' } },
  ])
  /** Runs `runOne` (one test of `stepsPerTest` steps) from `concurrency` workers: warm-up, then measured. */
  const measure = async (
    runOne: () => Promise<{ steps: number; passed: boolean }>,
  ): Promise<{ steps: number; failed: number; seconds: number; cpuSeconds: number }> => {
    let executed = 0
    let failed = 0
    const worker = async (deadline: number): Promise<void> => {
      while (Date.now() < deadline) {
        const result = await runOne()
        executed += result.steps
        if (!result.passed) failed++
      }
    }
    await Promise.all(
      Array.from({ length: concurrency }, async () => await worker(Date.now() + 1500)),
    )
    executed = 0
    failed = 0
    const cpuBefore = process.cpuUsage()
    const started = Date.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => await worker(started + durationMs)),
    )
    const cpu = process.cpuUsage(cpuBefore)
    return {
      steps: executed,
      failed,
      seconds: (Date.now() - started) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    }
  }
  const runner = async (): Promise<{ steps: number; passed: boolean }> => {
    const result = await runTest({ test, environment, testRunId: 'bench' })
    return { steps: result.requests_executed, passed: result.result === 'pass' }
  }
  // The bare equivalent: the same requests, checks and carried value with undici alone.
  const agent = new Agent({ keepAliveTimeout: 10_000 })
  const bare = async (): Promise<{ steps: number; passed: boolean }> => {
    let hello = 'start'
    let passed = true
    for (let i = 0; i < stepsPerTest; i++) {
      const res = await request(`${target.url}/items/${i}?previous=${encodeURIComponent(hello)}`, {
        method: 'GET',
        headers: { accept: 'application/json' },
        dispatcher: agent,
      })
      const json = (await res.body.json()) as { hello?: unknown }
      if (res.statusCode !== 200 || json.hello !== 'world') passed = false
      hello = String(json.hello)
    }
    return { steps: stepsPerTest, passed }
  }
  const rounds: Array<{ runner: number; bare: number }> = []
  for (let round = 0; round < Number(values.rounds); round++) {
    const ours = await measure(runner)
    const theirs = await measure(bare)
    rounds.push({ runner: ours.steps / ours.cpuSeconds, bare: theirs.steps / theirs.cpuSeconds })
    console.log(
      JSON.stringify({
        round,
        runner: {
          steps: ours.steps,
          failed_runs: ours.failed,
          steps_per_second: Math.round(ours.steps / ours.seconds),
          steps_per_cpu_second: Math.round(ours.steps / ours.cpuSeconds),
          cpu_us_per_step: Number(((ours.cpuSeconds * 1e6) / ours.steps).toFixed(1)),
        },
        bare_undici: {
          steps: theirs.steps,
          failed_runs: theirs.failed,
          steps_per_second: Math.round(theirs.steps / theirs.seconds),
          steps_per_cpu_second: Math.round(theirs.steps / theirs.cpuSeconds),
          cpu_us_per_step: Number(((theirs.cpuSeconds * 1e6) / theirs.steps).toFixed(1)),
        },
        runner_per_bare: Number(
          (ours.steps / ours.cpuSeconds / (theirs.steps / theirs.cpuSeconds)).toFixed(3),
        ),
        concurrency,
        steps_per_test: stepsPerTest,
      }),
    )
  }
  const ratios = rounds.map((r) => r.runner / r.bare).sort((a, b) => a - b)
  console.log(
    `runner / bare undici, steps per CPU-second, median of ${ratios.length} rounds: ${(ratios[ratios.length >> 1] as number).toFixed(3)} (rounds: ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
  )
  await agent.close()
} finally {
  await target.stop()
}
