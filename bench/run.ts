// npm run bench: Understudy against bare equivalents, same machine, same load, one run.
// Options: --suite runtime|paths|scale|all (default runtime: S0-S3 against bare node:http;
// paths: HTTPS, HTTP/2, pass-through, templated; scale: S0-S2 at 100 / 10,000 / 100,000
// transactions with RSS and start-up), --duration S (default 10), --connections N (default 50),
// --rounds R (default 3), --only S0,S2 (scenarios or comparisons by id), --baseline DIR (runtime
// and paths suites: another checkout, built, measured in the same rounds), --h2-rate N (HTTP/2
// comparisons at N requests/s instead of as fast as h2load goes). See bench/README.md.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { canPin, pinThisProcess, startChild } from './child.js'
import { h2Generator, hasH2load } from './h2-load.js'
import { scenarios } from './scenarios/index.js'
import { refuseFlag } from './store-kind.js'
import {
  measureRounds,
  median,
  pairedCpuRatio,
  roundCpuRatios,
  summarize,
  type Contender,
  type LoadSettings,
  type Measured,
} from './suites/measure.js'
import { pathComparisons } from './suites/paths.js'
import { grown, scaleSizes } from './suites/scale.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'runtime' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    baseline: { type: 'string' },
    'h2-rate': { type: 'string' },
  },
})
const suites = values.suite === 'all' ? ['runtime', 'paths', 'scale'] : values.suite.split(',')
for (const suite of suites) {
  if (!['runtime', 'paths', 'scale'].includes(suite)) {
    throw new Error(`--suite: unknown suite ${suite} (runtime, paths, scale or all)`)
  }
}
const h2Rate = values['h2-rate'] === undefined ? undefined : Number(values['h2-rate'])
if (h2Rate !== undefined && (!Number.isInteger(h2Rate) || h2Rate < 1)) {
  refuseFlag(
    `--h2-rate ${values['h2-rate']}: expected requests per second, a positive whole number`,
  )
}
if (h2Rate !== undefined && !hasH2load) {
  refuseFlag('--h2-rate needs nghttp2 h2load (apt-get install nghttp2-client)')
}
const settings: LoadSettings = {
  duration: Number(values.duration),
  connections: Number(values.connections),
  h2Rate,
}
const rounds = Number(values.rounds)
const only = values.only?.split(',') ?? null
const baselineCli =
  values.baseline === undefined ? null : join(resolve(values.baseline), 'dist/src/cli/main.js')

pinThisProcess(0)
const work = mkdtempSync(join(tmpdir(), 'understudy-bench-'))
const cli = join(root, 'dist/src/cli/main.js')
const bare = join(root, 'bench/servers/bare-http.ts')
const results: Record<string, unknown[]> = {}
console.log(
  `node ${process.version}, ${settings.connections} connections, ${settings.duration} s per run, ${rounds} rounds (medians), ` +
    `server ${canPin ? 'pinned to CPU 1, load generator on CPU 0' : 'not pinned'}; Understudy runs with inspection on; ` +
    `HTTP/2 load by ${h2Generator}${h2Rate === undefined ? '' : ` at ${h2Rate} requests/s`}`,
)

const understudy = (file: string, name = 'understudy', command = cli): Contender => ({
  name,
  start: async () =>
    await startChild(process.execPath, [
      command,
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--log-level',
      'warn',
    ]),
})
const bareHttp = (body: string): Contender => ({
  name: 'bare node:http',
  start: async () =>
    await startChild(process.execPath, ['--import', 'tsx', bare], { BARE_BODY: body }),
})
const wanted = (id: string): boolean => only === null || only.includes(id)

if (suites.includes('runtime')) {
  const rows: unknown[] = []
  for (const scenario of scenarios) {
    if (!wanted(scenario.id)) continue
    const file = join(work, `${scenario.id}.json`)
    writeFileSync(file, JSON.stringify(scenario.document))
    const contenders = [bareHttp(scenario.bareBody), understudy(file)]
    if (baselineCli !== null) contenders.push(understudy(file, 'baseline', baselineCli))
    const [bareRuns, ourRuns, baselineRuns] = (await measureRounds(
      contenders,
      scenario.request,
      settings,
      rounds,
    )) as [Measured[], Measured[], Measured[] | undefined]
    const b = summarize(bareRuns)
    const u = summarize(ourRuns)
    const ratio = u.rps / b.rps
    const row = {
      scenario: scenario.id,
      title: scenario.title,
      bareRps: Math.round(b.rps),
      understudyRps: Math.round(u.rps),
      ratio: Number(ratio.toFixed(3)),
      target: scenario.target,
      pass: ratio >= scenario.target,
      bareCpuMicrosPerRequest: Number(b.cpu.toFixed(1)),
      understudyCpuMicrosPerRequest: Number(u.cpu.toFixed(1)),
      cpuRatio: Number((b.cpu / u.cpu).toFixed(3)),
      bareP99Ms: b.p99,
      understudyP99Ms: u.p99,
      understudyErrors: u.errors,
      understudyNon2xx: u.non2xx,
      understudyRssMiB: u.rssMiB,
      runs: {
        bare: bareRuns.map((r) => Math.round(r.requestsPerSecond)),
        understudy: ourRuns.map((r) => Math.round(r.requestsPerSecond)),
      },
      baseline:
        baselineRuns === undefined
          ? null
          : {
              rps: Math.round(median(baselineRuns.map((r) => r.requestsPerSecond))),
              ratio: Number(
                (median(baselineRuns.map((r) => r.requestsPerSecond)) / b.rps).toFixed(3),
              ),
              cpuMicrosPerRequest: Number(
                median(baselineRuns.map((r) => r.cpuMicrosPerRequest ?? Number.NaN)).toFixed(1),
              ),
              runs: baselineRuns.map((r) => Math.round(r.requestsPerSecond)),
            },
    }
    rows.push(row)
    console.log(`${row.scenario} ${row.title}
  req/s      bare ${row.bareRps} (runs ${row.runs.bare.join(', ')}) | understudy ${row.understudyRps} (runs ${row.runs.understudy.join(', ')}) | ratio ${row.ratio} (target ${row.target}) ${row.pass ? 'PASS' : 'FAIL'}
  CPU/req    bare ${row.bareCpuMicrosPerRequest} us | understudy ${row.understudyCpuMicrosPerRequest} us | bare/understudy ${row.cpuRatio}
  p99        bare ${row.bareP99Ms} ms | understudy ${row.understudyP99Ms} ms | errors ${row.understudyErrors}, non-2xx ${row.understudyNon2xx} | max RSS ${row.understudyRssMiB} MiB`)
    if (row.baseline !== null) {
      console.log(
        `  baseline   ${row.baseline.rps} req/s (runs ${row.baseline.runs.join(', ')}) | ratio ${row.baseline.ratio} | CPU/req ${row.baseline.cpuMicrosPerRequest} us | this build / baseline: req/s ${(row.understudyRps / row.baseline.rps).toFixed(3)}, CPU ${(row.baseline.cpuMicrosPerRequest / row.understudyCpuMicrosPerRequest).toFixed(3)}`,
      )
    }
  }
  results['runtime'] = rows
}

if (suites.includes('paths')) {
  const rows: unknown[] = []
  for (const comparison of await pathComparisons(work, cli, root, baselineCli)) {
    if (!wanted(comparison.id)) {
      await comparison.shared?.stop()
      continue
    }
    try {
      const [refRuns, ourRuns, baselineRuns] = (await measureRounds(
        comparison.contenders,
        comparison.request,
        settings,
        rounds,
      )) as [Measured[], Measured[], Measured[] | undefined]
      const ref = summarize(refRuns)
      const ours = summarize(ourRuns)
      const cpuTimes = ours.cpu / ref.cpu
      // The goal is read on the rounds' own ratios (see pairedCpuRatio); the ratio of the
      // medians is shown beside it.
      const paired = pairedCpuRatio(ourRuns, refRuns)
      const goal = Number.isFinite(comparison.cpuGoal)
        ? `goal <= ${comparison.cpuGoal}x ${paired <= comparison.cpuGoal ? 'MET' : 'NOT MET'}`
        : 'no goal'
      const row = {
        comparison: comparison.id,
        title: comparison.title,
        reference: comparison.contenders[0]?.name ?? '',
        referenceCpuMicrosPerRequest: Number(ref.cpu.toFixed(1)),
        understudyCpuMicrosPerRequest: Number(ours.cpu.toFixed(1)),
        cpuTimesReference: Number(cpuTimes.toFixed(3)),
        cpuTimesReferencePerRound: roundCpuRatios(ourRuns, refRuns).map((r) =>
          Number(r.toFixed(3)),
        ),
        cpuTimesReferencePaired: Number(paired.toFixed(3)),
        cpuGoal: Number.isFinite(comparison.cpuGoal) ? comparison.cpuGoal : null,
        referenceRps: Math.round(ref.rps),
        understudyRps: Math.round(ours.rps),
        rpsRatio: Number((ours.rps / ref.rps).toFixed(3)),
        cpuRuns: {
          reference: refRuns.map((r) => Number((r.cpuMicrosPerRequest ?? Number.NaN).toFixed(1))),
          understudy: ourRuns.map((r) => Number((r.cpuMicrosPerRequest ?? Number.NaN).toFixed(1))),
        },
        understudyErrors: ours.errors + ref.errors,
        understudyNon2xx: ours.non2xx + ref.non2xx,
        understudyRssMiB: ours.rssMiB,
        baseline:
          baselineRuns === undefined
            ? null
            : {
                cpuMicrosPerRequest: Number(summarize(baselineRuns).cpu.toFixed(1)),
                cpuTimesReference: Number((summarize(baselineRuns).cpu / ref.cpu).toFixed(3)),
                cpuRuns: baselineRuns.map((r) =>
                  Number((r.cpuMicrosPerRequest ?? Number.NaN).toFixed(1)),
                ),
              },
      }
      rows.push(row)
      console.log(`${row.comparison} ${row.title}
  CPU/req    ${row.reference} ${row.referenceCpuMicrosPerRequest} us (runs ${row.cpuRuns.reference.join(', ')}) | ${comparison.contenders[1]?.name ?? ''} ${row.understudyCpuMicrosPerRequest} us (runs ${row.cpuRuns.understudy.join(', ')}) | ${row.cpuTimesReference}x; per round ${row.cpuTimesReferencePerRound.join(', ')}, median ${row.cpuTimesReferencePaired}x (${goal})
  req/s      ${row.referenceRps} | ${row.understudyRps} | ratio ${row.rpsRatio} | errors ${row.understudyErrors}, non-2xx ${row.understudyNon2xx} | max RSS ${row.understudyRssMiB} MiB`)
      if (row.baseline !== null) {
        console.log(
          `  baseline   CPU/req ${row.baseline.cpuMicrosPerRequest} us (runs ${row.baseline.cpuRuns.join(', ')}) | ${row.baseline.cpuTimesReference}x the reference`,
        )
      }
    } finally {
      await comparison.shared?.stop()
    }
  }
  results['paths'] = rows
}

if (suites.includes('scale')) {
  const rows: unknown[] = []
  for (const scenario of scenarios) {
    if (scenario.id === 'S3' || !wanted(scenario.id)) continue
    const contenders: Contender[] = [bareHttp(scenario.bareBody)]
    for (const size of scaleSizes) {
      const file = join(work, `${scenario.id}-${size}.json`)
      writeFileSync(
        file,
        JSON.stringify({ ...scenario.document, transactions: grown(scenario, size) }),
      )
      contenders.push(understudy(file, `${size} transactions`))
    }
    const runs = await measureRounds(contenders, scenario.request, settings, rounds)
    const [bareSummary, ...sized] = runs.map(summarize) as [
      ReturnType<typeof summarize>,
      ...Array<ReturnType<typeof summarize>>,
    ]
    const small = sized[0] as ReturnType<typeof summarize>
    console.log(
      `${scenario.id} ${scenario.title}, grown: bare node:http ${bareSummary.cpu.toFixed(1)} us/req, ${Math.round(bareSummary.rps)} req/s`,
    )
    for (const [i, size] of scaleSizes.entries()) {
      const s = sized[i] as ReturnType<typeof summarize>
      const row = {
        scenario: scenario.id,
        transactions: size,
        cpuMicrosPerRequest: Number(s.cpu.toFixed(1)),
        cpuTimes100: Number((s.cpu / small.cpu).toFixed(3)),
        cpuTimesBare: Number((s.cpu / bareSummary.cpu).toFixed(3)),
        rps: Math.round(s.rps),
        rssIdleMiB: s.rssIdleMiB,
        rssAfterLoadMiB: s.rssMiB,
        startupMs: s.startupMs,
        errors: s.errors,
        non2xx: s.non2xx,
      }
      rows.push(row)
      console.log(
        `  ${String(size).padStart(7)} txns  CPU/req ${row.cpuMicrosPerRequest} us (${row.cpuTimes100}x 100 txns, ${row.cpuTimesBare}x bare) | ${row.rps} req/s | RSS idle ${row.rssIdleMiB} / after load ${row.rssAfterLoadMiB} MiB | start-up ${row.startupMs} ms | errors ${row.errors}, non-2xx ${row.non2xx}`,
      )
    }
  }
  results['scale'] = rows
}

const resultsDir = join(root, 'bench/results')
mkdirSync(resultsDir, { recursive: true })
const out = join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(
  out,
  JSON.stringify(
    {
      node: process.version,
      ...settings,
      rounds,
      pinned: canPin,
      h2Generator,
      suites,
      rows: results['runtime'] ?? [],
      results,
    },
    null,
    2,
  ),
)
console.log(`results: ${out}`)
