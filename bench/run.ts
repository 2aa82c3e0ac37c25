// npm run bench: Understudy against bare node:http, same machine, same load, one run.
// Options: --duration S (default 10), --connections N (default 50), --only S0,S2.
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
    only: { type: 'string' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const only = values.only?.split(',') ?? null

interface Measured {
  requestsPerSecond: number
  p99: number
  errors: number
  non2xx: number
}

async function load (server: ChildServer, scenario: Scenario, seconds: number): Promise<Measured> {
  const request = scenario.request
  const result = await autocannon({
    url: server.url + request.path,
    method: request.method,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    connections,
    pipelining: 1,
    duration: seconds,
  })
  return { requestsPerSecond: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx }
}

/** A short warm-up (JIT, connection set-up), then the measured run. */
async function measure (server: ChildServer, scenario: Scenario): Promise<Measured> {
  await load(server, scenario, Math.min(3, duration))
  return load(server, scenario, duration)
}

if (canPin) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' })
const work = mkdtempSync(join(tmpdir(), 'understudy-bench-'))
const rows: Array<Record<string, unknown>> = []
const cli = join(root, 'dist/src/cli/main.js')
const bare = join(root, 'bench/servers/bare-http.ts')
console.log(`node ${process.version}, ${connections} connections, ${duration} s per run, server ${canPin ? 'pinned to CPU 1, load on CPU 0' : 'not pinned'}`)

for (const scenario of scenarios) {
  if (only !== null && !only.includes(scenario.id)) continue
  const file = join(work, `${scenario.id}.json`)
  writeFileSync(file, JSON.stringify(scenario.document))

  const baseline = await startChild(process.execPath, ['--import', 'tsx', bare], { BARE_BODY: scenario.bareBody })
  const bareResult = await measure(baseline, scenario)
  await baseline.stop()

  const understudy = await startChild(process.execPath, [cli, 'run', '--mock', file, '--port', '0', '--log-level', 'warn'])
  const ours = await measure(understudy, scenario)
  const rss = understudy.rss()
  await understudy.stop()

  const ratio = ours.requestsPerSecond / bareResult.requestsPerSecond
  const row = {
    scenario: scenario.id,
    title: scenario.title,
    bareRps: Math.round(bareResult.requestsPerSecond),
    understudyRps: Math.round(ours.requestsPerSecond),
    ratio: Number(ratio.toFixed(3)),
    target: scenario.target,
    pass: ratio >= scenario.target,
    bareP99Ms: bareResult.p99,
    understudyP99Ms: ours.p99,
    understudyErrors: ours.errors,
    understudyNon2xx: ours.non2xx,
    understudyRssMiB: rss === null ? null : Number((rss / 1024 / 1024).toFixed(1)),
  }
  rows.push(row)
  console.log(`${row.scenario} ${row.title}\n  bare ${row.bareRps} req/s p99 ${row.bareP99Ms} ms | understudy ${row.understudyRps} req/s p99 ${row.understudyP99Ms} ms | ratio ${row.ratio} (target ${row.target}) ${row.pass ? 'PASS' : 'FAIL'} | errors ${row.understudyErrors} non-2xx ${row.understudyNon2xx} | RSS ${row.understudyRssMiB ?? '?'} MiB`)
}

const resultsDir = join(root, 'bench/results')
mkdirSync(resultsDir, { recursive: true })
const out = join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(out, JSON.stringify({ node: process.version, connections, duration, pinned: canPin, rows }, null, 2))
console.log(`results: ${out}`)
