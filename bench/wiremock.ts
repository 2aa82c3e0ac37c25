// npm run bench:wiremock: the same WireMock mapping files served by Understudy (`understudy serve`,
// through the WireMock importer) and by WireMock itself (the standalone jar, tuned), each as a
// ratio to a bare node:http server measured in the same alternating rounds.
// Options: --duration S (default 10), --connections N (default 50), --rounds R (default 3),
// --only W0,W2, --wiremock-warmup S (default 15). See bench/README.md.
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { canPin, pinThisProcess, startChild, type ChildServer } from './child.js'
import { fetchWireMockJar, hasJava, WIREMOCK_VERSION } from './wiremock-jar.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    'wiremock-warmup': { type: 'string', default: '15' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const rounds = Number(values.rounds)
const only = values.only?.split(',') ?? null
const wiremockWarmup = Number(values['wiremock-warmup'])

/** One scenario: WireMock stub mappings, and the request autocannon sends. */
interface WireMockScenario {
  id: string
  title: string
  mappings: Array<Record<string, unknown>>
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string }
}

const hello = '{"hello":"world"}'
const answer = { status: 200, headers: { 'Content-Type': 'application/json' }, body: hello }

/** The runtime bench's S0-S3 (bench/scenarios), written as WireMock mappings. */
function scenarios(): WireMockScenario[] {
  const kinds = [
    'standard',
    'express',
    'overnight',
    'pickup',
    'locker',
    'drone',
    'bike',
    'freight',
    'return',
    'gift',
  ]
  const many: Array<Record<string, unknown>> = []
  for (let i = 0; i < 9000; i++) {
    many.push({ request: { method: 'GET', urlPath: `/api/r${i}/items` }, response: answer })
  }
  for (let i = 0; i < 900; i++) {
    many.push({
      request: { method: 'GET', urlPathTemplate: `/api/t${i}/items/{id}` },
      response: answer,
    })
  }
  for (let i = 0; i < 100; i++) {
    many.push({ request: { method: 'GET', urlPathPattern: `/api/x${i}/[0-9]+` }, response: answer })
  }
  return [
    {
      id: 'W0',
      title: 'one stub',
      mappings: [{ request: { method: 'GET', urlPath: '/api/hello' }, response: answer }],
      request: { method: 'GET', path: '/api/hello' },
    },
    {
      id: 'W1',
      title: '100 stubs on one path told apart by a header',
      mappings: Array.from({ length: 100 }, (_, i) => ({
        request: {
          method: 'GET',
          urlPath: '/api/orders',
          headers: { 'X-Tenant': { equalTo: `tenant-${i}` } },
        },
        response: answer,
      })),
      request: { method: 'GET', path: '/api/orders', headers: { 'x-tenant': 'tenant-1' } },
    },
    {
      id: 'W2',
      title: 'POST matched on a JSON body field (matchesJsonPath), ten stubs on the path',
      mappings: kinds.map((kind) => ({
        request: {
          method: 'POST',
          urlPath: '/api/orders',
          bodyPatterns: [{ matchesJsonPath: { expression: '$.shipping.kind', equalTo: kind } }],
        },
        response: answer,
      })),
      request: {
        method: 'POST',
        path: '/api/orders',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          customer: 'c-1042',
          items: [
            { sku: 'A-1', qty: 2 },
            { sku: 'B-7', qty: 1 },
          ],
          shipping: { kind: 'express', address: '1 Main St' },
        }),
      },
    },
    {
      id: 'W3',
      title: '10,000 stubs (9,000 paths, 900 path templates, 100 path regexes)',
      mappings: many,
      request: { method: 'GET', path: '/api/r4500/items' },
    },
  ]
}

interface Measured {
  requestsPerSecond: number
  p99: number
  errors: number
  non2xx: number
  cpuMicrosPerRequest: number | null
}

type Server = Pick<ChildServer, 'url' | 'cpuMicros' | 'stop'>

async function load(
  server: Server,
  scenario: WireMockScenario,
  seconds: number,
): Promise<Measured> {
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
  const cpu =
    cpuBefore === null || cpuAfter === null || result.requests.total === 0
      ? null
      : (cpuAfter - cpuBefore) / result.requests.total
  return {
    requestsPerSecond: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: cpu,
  }
}

/** Starts a server, warms it up (JIT, connections) for `warmup` s, measures once, stops it. */
async function measureOnce(
  start: () => Promise<Server>,
  scenario: WireMockScenario,
  warmup: number,
): Promise<Measured> {
  const server = await start()
  try {
    await load(server, scenario, warmup)
    return await load(server, scenario, duration)
  } finally {
    await server.stop()
  }
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

/**
 * WireMock tuned for throughput: no request journal, asynchronous responses, 50 container threads
 * (one per connection), no request logging; pinned to CPU 1 like the others. Ready once
 * `/__admin/health` answers.
 */
async function startWireMock(jar: string, rootDir: string): Promise<Server> {
  const port = await freePort()
  const args = [
    '-jar',
    jar,
    '--port',
    String(port),
    '--bind-address',
    '127.0.0.1',
    '--root-dir',
    rootDir,
    '--no-request-journal',
    '--async-response-enabled',
    'true',
    '--container-threads',
    String(Math.max(50, connections)),
    '--disable-banner',
    '--disable-request-logging',
  ]
  const [file, argv] = canPin ? ['taskset', ['-c', '1', 'java', ...args]] : ['java', args]
  const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`WireMock exited with ${child.exitCode} before answering`)
    }
    try {
      if ((await fetch(`${url}/__admin/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('WireMock did not answer within 120 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const pid = child.pid ?? 0
  return {
    url,
    cpuMicros: () => {
      try {
        // utime + stime of /proc/<pid>/stat (taskset execs java in place: the same pid), 100 ticks/s.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return (Number(fields[11]) + Number(fields[12])) * 10_000
      } catch {
        return null
      }
    },
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

if (!hasJava()) {
  console.error(
    'bench:wiremock needs java (WireMock 3 runs on Java 11 or later); none found on PATH',
  )
  process.exit(1)
}
const jar = fetchWireMockJar()
pinThisProcess(0)
const work = mkdtempSync(join(tmpdir(), 'understudy-bench-wiremock-'))
const cli = join(root, 'dist/src/cli/main.js')
const bare = join(root, 'bench/servers/bare-http.ts')
const javaVersion =
  /version "([^"]+)"/.exec(
    execFileSync('sh', ['-c', 'java -version 2>&1'], { encoding: 'utf8' }),
  )?.[1] ?? '?'
console.log(
  `node ${process.version}, WireMock ${WIREMOCK_VERSION} on Java ${javaVersion}, ${connections} connections, ${duration} s per run, ${rounds} rounds (medians), ` +
    `server ${canPin ? 'pinned to CPU 1, load generator on CPU 0' : 'not pinned'}`,
)
const rows: Array<Record<string, unknown>> = []
for (const scenario of scenarios()) {
  if (only !== null && !only.includes(scenario.id)) continue
  const dir = join(work, scenario.id)
  mkdirSync(join(dir, 'mappings'), { recursive: true })
  writeFileSync(
    join(dir, 'mappings', 'stubs.json'),
    JSON.stringify({ mappings: scenario.mappings }),
  )
  const runs: Record<'bare' | 'understudy' | 'wiremock', Measured[]> = {
    bare: [],
    understudy: [],
    wiremock: [],
  }
  // Alternate the servers so that drift of the machine affects them alike.
  for (let round = 0; round < rounds; round++) {
    runs.bare.push(
      await measureOnce(
        async () =>
          await startChild(process.execPath, ['--import', 'tsx', bare], { BARE_BODY: hello }),
        scenario,
        Math.min(3, duration),
      ),
    )
    runs.understudy.push(
      await measureOnce(
        async () =>
          await startChild(process.execPath, [
            cli,
            'serve',
            dir,
            '--port',
            '0',
            '--log-level',
            'warn',
          ]),
        scenario,
        Math.min(3, duration),
      ),
    )
    // The JVM compiles its hot paths later than V8: a longer warm-up, in WireMock's favour.
    runs.wiremock.push(
      await measureOnce(async () => await startWireMock(jar, dir), scenario, wiremockWarmup),
    )
  }
  const rps = (list: Measured[]): number => median(list.map((r) => r.requestsPerSecond))
  const cpu = (list: Measured[]): number =>
    median(list.map((r) => r.cpuMicrosPerRequest ?? Number.NaN))
  const bareRps = rps(runs.bare)
  const row = {
    scenario: scenario.id,
    title: scenario.title,
    bareRps: Math.round(bareRps),
    understudyRps: Math.round(rps(runs.understudy)),
    wiremockRps: Math.round(rps(runs.wiremock)),
    understudyRatio: Number((rps(runs.understudy) / bareRps).toFixed(3)),
    wiremockRatio: Number((rps(runs.wiremock) / bareRps).toFixed(3)),
    understudyOverWiremock: Number((rps(runs.understudy) / rps(runs.wiremock)).toFixed(2)),
    cpuMicrosPerRequest: {
      bare: Number(cpu(runs.bare).toFixed(1)),
      understudy: Number(cpu(runs.understudy).toFixed(1)),
      wiremock: Number(cpu(runs.wiremock).toFixed(1)),
    },
    p99Ms: {
      bare: median(runs.bare.map((r) => r.p99)),
      understudy: median(runs.understudy.map((r) => r.p99)),
      wiremock: median(runs.wiremock.map((r) => r.p99)),
    },
    errors: {
      understudy: runs.understudy.reduce((n, r) => n + r.errors + r.non2xx, 0),
      wiremock: runs.wiremock.reduce((n, r) => n + r.errors + r.non2xx, 0),
    },
    runs: Object.fromEntries(
      Object.entries(runs).map(([k, list]) => [
        k,
        list.map((r) => Math.round(r.requestsPerSecond)),
      ]),
    ),
  }
  rows.push(row)
  console.log(`${row.scenario} ${row.title}
  req/s      bare ${row.bareRps} | understudy ${row.understudyRps} (ratio ${row.understudyRatio}) | wiremock ${row.wiremockRps} (ratio ${row.wiremockRatio}) | understudy/wiremock ${row.understudyOverWiremock}
  CPU/req    bare ${row.cpuMicrosPerRequest.bare} us | understudy ${row.cpuMicrosPerRequest.understudy} us | wiremock ${row.cpuMicrosPerRequest.wiremock} us
  p99        bare ${row.p99Ms.bare} ms | understudy ${row.p99Ms.understudy} ms | wiremock ${row.p99Ms.wiremock} ms | errors+non-2xx understudy ${row.errors.understudy}, wiremock ${row.errors.wiremock}
  runs       ${JSON.stringify(row.runs)}`)
}

const resultsDir = join(root, 'bench/results')
mkdirSync(resultsDir, { recursive: true })
const out = join(
  resultsDir,
  `bench-wiremock-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
)
writeFileSync(
  out,
  JSON.stringify(
    {
      node: process.version,
      wiremock: WIREMOCK_VERSION,
      connections,
      duration,
      rounds,
      pinned: canPin,
      rows,
    },
    null,
    2,
  ),
)
console.log(`results: ${out}`)
