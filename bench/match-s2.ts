// Matching alone on S2 (ten POST transactions told apart by `$.shipping.kind`): CPU microseconds
// per `match` of a fresh MatchRequest, and JSON body scans per request. `--root DIR` measures
// another checkout's src/ (run through tsx), for a before/after in one sitting. `--bodies N` sends
// N bodies in turn (the customer differs), so that no body is the one before it: the cost of a
// scan when the body changes, where the default (1) is a load test's same body again.
//
//   npx tsx bench/match-s2.ts [--root ../before] [--count 1000000] [--rounds 7] [--bodies 1]
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type * as DslModule from '../src/dsl/index.js'
import type * as MatchModule from '../src/match/index.js'
import type * as ScanModule from '../src/match/json-scan.js'
import { scenarios } from './scenarios/index.js'

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    count: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '7' },
    bodies: { type: 'string', default: '1' },
  },
})
const root = resolve(values.root)
type Match = typeof MatchModule
type Dsl = typeof DslModule
type Scan = typeof ScanModule
const { compileMatcher, MatchRequest } = (await import(`${root}/src/match/index.ts`)) as Match
const { readDefinition } = (await import(`${root}/src/dsl/index.ts`)) as Dsl
const { JsonPathScanner } = (await import(`${root}/src/match/json-scan.ts`)) as Scan

const s2 = scenarios.find((s) => s.id === 'S2')
if (s2 === undefined) throw new Error('no S2 scenario')
const matcher = compileMatcher(readDefinition(s2.document), (t) => t.name)
const body = Buffer.from(s2.request.body ?? '')
const bodyCount = Number(values.bodies)
if (!Number.isInteger(bodyCount) || bodyCount < 1) {
  console.error('--bodies: a whole number of 1 or more')
  process.exit(2)
}
// Each body the same length as the scenario's, so that only its bytes tell it from the one before.
const bodies = Array.from({ length: bodyCount }, (_, i) =>
  i === 0
    ? body
    : Buffer.from(body.toString().replace('c-1042', `c-${String(i % 10_000).padStart(4, '0')}`)),
)
const headers = s2.request.headers ?? {}
const count = Number(values.count)
const perMatch: number[] = []
for (let round = 0; round < Number(values.rounds); round++) {
  const before = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    const sent = bodies[i % bodyCount] as Buffer
    if (matcher.match(new MatchRequest('POST', s2.request.path, headers, sent)) === null) {
      throw new Error('S2 did not match')
    }
  }
  const used = process.cpuUsage(before)
  perMatch.push((used.user + used.system) / count)
}
let scans = 0
const scan = JsonPathScanner.prototype.scan
JsonPathScanner.prototype.scan = function counted(this: ScanModule.JsonPathScanner, b) {
  scans++
  return scan.call(this, b)
}
matcher.match(new MatchRequest('POST', s2.request.path, headers, body))
perMatch.sort((a, b) => a - b)
console.log(
  `${root}: ${(perMatch[0] as number).toFixed(3)} us per match (min of ${perMatch.length} rounds of ${count}), ` +
    `median ${(perMatch[Math.floor(perMatch.length / 2)] as number).toFixed(3)} us; ${scans} body scan(s) per request`,
)
