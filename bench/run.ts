// npm run bench: Understudy against bare node:http, same machine, same load, one run.
// Options: --duration S (default 10), --connections N (default 50), --rounds R (default 3),
// --only S0,S2, --baseline DIR (another checkout, built: its `understudy run` is measured in the
// same rounds, for before/after figures of a change). See bench/README.md.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { canPin, startChild, type ChildServer } from './child.js'
import { scenarios, type Scenario } from './scenarios/index.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    baseline: { type: 'string' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const rounds = Number(values.rounds)
const only = values.only?.split(',') ?? null
const baselineCli = values.baseline === undefined ? null : join(resolve(values.baseline), 'dist/src/cli/main.js')

interface Measured {
  requestsPerSecond: number
  p99: number
  errors: number
  non2xx: number
  /** Server CPU time per request, microseconds (user + system). */
  cpuMicrosPerRequest: number | null
}

async function load (server: ChildServer, scenario: Scenario, seconds: number): Promise<Measured> {
  const request = scenario.request
  const cpuBefore = server.cpuMicros()
  const result = await autocannon({
    url: server.url + request.path,
    method: request.method,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    connections,
    pipelining: 1,
    duration: seconds,
  })
  const cpuAfter = server.cpuMicros()
  const cpu = cpuBefore === null || cpuAfter === null || result.requests.total === 0 ? null : (cpuAfter - cpuBefore) / result.requests.total
  return { requestsPerSecond: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx, cpuMicrosPerRequest: cpu }
}

/** Starts a server, warms it up (JIT, connections), measures once, stops it. */
async function measureOnce (start: () => Promise<ChildServer>, scenario: Scenario): Promise<Measured & { rss: number | null }> {
  const server = await start()
  try {
    await load(server, scenario, Math.min(3, duration))
    const measured = await load(server, scenario, duration)
    return { ...measured, rss: server.rss() }
  } finally {
    await server.stop()
  }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

if (canPin) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' })
const work = mkdtempSync(join(tmpdir(), 'understudy-bench-'))
const rows: Array<Record<string, unknown>> = []
const cli = join(root, 'dist/src/cli/main.js')
const bare = join(root, 'bench/servers/bare-http.ts')
console.log(`node ${process.version}, ${connections} connections, ${duration} s per run, ${rounds} rounds (medians), ` +
  `server ${canPin ? 'pinned to CPU 1, load generator on CPU 0' : 'not pinned'}; Understudy runs with inspection on`)

for (const scenario of scenarios) {
  if (only !== null && !only.includes(scenario.id)) continue
  const file = join(work, `${scenario.id}.json`)
  writeFileSync(file, JSON.stringify(scenario.document))
  const bareRuns: Array<Measured & { rss: number | null }> = []
  const ourRuns: Array<Measured & { rss: number | null }> = []
  const baselineRuns: Array<Measured & { rss: number | null }> = []
  // Alternate the servers so that drift of the machine affects them alike.
  for (let round = 0; round < rounds; round++) {
    bareRuns.push(await measureOnce(async () => startChild(process.execPath, ['--import', 'tsx', bare], { BARE_BODY: scenario.bareBody }), scenario))
    ourRuns.push(await measureOnce(async () => startChild(process.execPath, [cli, 'run', '--mock', file, '--port', '0', '--log-level', 'warn']), scenario))
    if (baselineCli !== null) {
      baselineRuns.push(await measureOnce(async () => startChild(process.execPath, [baselineCli, 'run', '--mock', file, '--port', '0', '--log-level', 'warn']), scenario))
    }
  }
  const bareRps = median(bareRuns.map((r) => r.requestsPerSecond))
  const ourRps = median(ourRuns.map((r) => r.requestsPerSecond))
  const bareCpu = median(bareRuns.map((r) => r.cpuMicrosPerRequest ?? Number.NaN))
  const ourCpu = median(ourRuns.map((r) => r.cpuMicrosPerRequest ?? Number.NaN))
  const ratio = ourRps / bareRps
  const row = {
    scenario: scenario.id,
    title: scenario.title,
    bareRps: Math.round(bareRps),
    understudyRps: Math.round(ourRps),
    ratio: Number(ratio.toFixed(3)),
    target: scenario.target,
    pass: ratio >= scenario.target,
    bareCpuMicrosPerRequest: Number(bareCpu.toFixed(1)),
    understudyCpuMicrosPerRequest: Number(ourCpu.toFixed(1)),
    cpuRatio: Number((bareCpu / ourCpu).toFixed(3)),
    bareP99Ms: median(bareRuns.map((r) => r.p99)),
    understudyP99Ms: median(ourRuns.map((r) => r.p99)),
    understudyErrors: ourRuns.reduce((n, r) => n + r.errors, 0),
    understudyNon2xx: ourRuns.reduce((n, r) => n + r.non2xx, 0),
    understudyRssMiB: Number((Math.max(...ourRuns.map((r) => r.rss ?? 0)) / 1024 / 1024).toFixed(1)),
    runs: { bare: bareRuns.map((r) => Math.round(r.requestsPerSecond)), understudy: ourRuns.map((r) => Math.round(r.requestsPerSecond)) },
    baseline: baselineRuns.length === 0
      ? null
      : {
          rps: Math.round(median(baselineRuns.map((r) => r.requestsPerSecond))),
          ratio: Number((median(baselineRuns.map((r) => r.requestsPerSecond)) / bareRps).toFixed(3)),
          cpuMicrosPerRequest: Number(median(baselineRuns.map((r) => r.cpuMicrosPerRequest ?? Number.NaN)).toFixed(1)),
          runs: baselineRuns.map((r) => Math.round(r.requestsPerSecond)),
        },
  }
  rows.push(row)
  console.log(`${row.scenario} ${row.title}
  req/s      bare ${row.bareRps} (runs ${row.runs.bare.join(', ')}) | understudy ${row.understudyRps} (runs ${row.runs.understudy.join(', ')}) | ratio ${row.ratio} (target ${row.target}) ${row.pass ? 'PASS' : 'FAIL'}
  CPU/req    bare ${row.bareCpuMicrosPerRequest} us | understudy ${row.understudyCpuMicrosPerRequest} us | bare/understudy ${row.cpuRatio}
  p99        bare ${row.bareP99Ms} ms | understudy ${row.understudyP99Ms} ms | errors ${row.understudyErrors}, non-2xx ${row.understudyNon2xx} | max RSS ${row.understudyRssMiB} MiB`)
  if (row.baseline !== null) {
    console.log(`  baseline   ${row.baseline.rps} req/s (runs ${row.baseline.runs.join(', ')}) | ratio ${row.baseline.ratio} | CPU/req ${row.baseline.cpuMicrosPerRequest} us | this build / baseline: req/s ${(row.understudyRps / row.baseline.rps).toFixed(3)}, CPU ${(row.baseline.cpuMicrosPerRequest / row.understudyCpuMicrosPerRequest).toFixed(3)}`)
  }
}

const resultsDir = join(root, 'bench/results')
mkdirSync(resultsDir, { recursive: true })
const out = join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(out, JSON.stringify({ node: process.version, connections, duration, rounds, pinned: canPin, rows }, null, 2))
console.log(`results: ${out}`)
