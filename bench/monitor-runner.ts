// The monitoring runner's figure: request steps per second of the monitoring runner (src/monitor)
// against a local target. The target is bare node:http in a child process (pinned to CPU 0 where
// taskset exists); the runner runs in this process. Each test has STEPS request steps, each with a
// JSON assertion, a status assertion and a variable (substituted into the next step's URL);
// CONCURRENCY tests run at once, as schedules of different tests do. Reported: wall-clock steps/s
// and steps per CPU-second of this process (the runner's cost on one core).
//
//   npx tsx bench/monitor-runner.ts [--duration 5] [--concurrency 20] [--steps 20]
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { resolveEnvironment, runTest, type RunnableTest, type Step } from '../src/monitor/index.js'
import { startChild } from './child.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '20' }, steps: { type: 'string', default: '20' } } })
const durationMs = Number(values.duration) * 1000
const concurrency = Number(values.concurrency)
const stepsPerTest = Number(values.steps)

const target = await startChild('node', ['--import', 'tsx', join(root, 'bench/servers/bare-http.ts')], {}, 0)
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
  const environment = resolveEnvironment([{ initial_variables: { base: target.url, hello: 'start' } }])
  let executed = 0
  let failed = 0
  const worker = async (deadline: number): Promise<void> => {
    while (Date.now() < deadline) {
      const result = await runTest({ test, environment, testRunId: 'bench' })
      executed += result.requests_executed
      if (result.result !== 'pass') failed++
    }
  }
  // Warm-up (connections, JIT), then the measured run.
  await Promise.all(Array.from({ length: concurrency }, async () => await worker(Date.now() + 1500)))
  executed = 0
  failed = 0
  const cpuBefore = process.cpuUsage()
  const started = Date.now()
  await Promise.all(Array.from({ length: concurrency }, async () => await worker(started + durationMs)))
  const elapsed = (Date.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  console.log(JSON.stringify({
    steps: executed,
    failed_runs: failed,
    seconds: Number(elapsed.toFixed(2)),
    steps_per_second: Math.round(executed / elapsed),
    runner_cpu_seconds: Number(cpuSeconds.toFixed(2)),
    steps_per_cpu_second: Math.round(executed / cpuSeconds),
    concurrency,
    steps_per_test: stepsPerTest,
  }))
} finally {
  await target.stop()
}
