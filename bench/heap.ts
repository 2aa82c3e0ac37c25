// npx tsx bench/heap.ts: what a served transaction keeps on the heap, by constructor.
// Options: --sizes 10000,100000 (default), --scenario S1 (whose grown document: bench/suites/scale.ts),
// --cli PATH (default dist/src/cli/main.js of this checkout; another checkout's for a before
// figure), --top N (rows shown, default 25), --snapshot false (start-up and RSS only).
//
// For each size, `understudy run --mock` starts in a child process with
// `--heapsnapshot-signal=SIGUSR2`; once it listens, the snapshot it writes on the signal (taken
// after a full garbage collection, so it holds only what is live) is summed by node type and
// constructor, and the same is done for the 100-transaction document: the difference divided by
// the transactions added is what one transaction keeps. See bench/README.md, "Heap per transaction".
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startChild } from './child.js'
import { scenarios } from './scenarios/index.js'
import { grown } from './suites/scale.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    scenario: { type: 'string', default: 'S1' },
    cli: { type: 'string', default: join(root, 'dist/src/cli/main.js') },
    top: { type: 'string', default: '25' },
    snapshot: { type: 'string', default: 'true' },
  },
})
const scenario = scenarios.find((s) => s.id === values.scenario)
if (scenario === undefined) throw new Error(`--scenario: no scenario ${values.scenario}`)
const sizes = values.sizes.split(',').map(Number)
const work = mkdtempSync(join(tmpdir(), 'understudy-heap-'))
const takeSnapshot = values.snapshot !== 'false'

/** Node count and bytes by group, for one snapshot. */
type Tally = Map<string, { count: number; bytes: number }>

interface Measured {
  size: number
  startupMs: number
  rssMiB: number
  heap: Tally | null
}

async function measure(size: number): Promise<Measured> {
  const file = join(work, `${scenario?.id}-${size}.json`)
  writeFileSync(
    file,
    JSON.stringify({ ...scenario?.document, transactions: grown(scenario as never, size) }),
  )
  const dir = mkdtempSync(join(work, 'snap-'))
  const server = await startChild(
    process.execPath,
    [
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${dir}`,
      values.cli,
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--log-level',
      'warn',
    ],
    {},
    null,
  )
  try {
    // Let start-up garbage settle before reading RSS, as the scale suite's idle figure does.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const rssMiB = Number(((server.rss() ?? 0) / 1048576).toFixed(1))
    let heap: Tally | null = null
    if (takeSnapshot) {
      process.kill(server.pid, 'SIGUSR2')
      const path = await snapshotFile(dir)
      heap = tally(path)
    }
    return { size, startupMs: Math.round(server.startupMs), rssMiB, heap }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Waits for the snapshot file to be complete (its size stops changing). */
async function snapshotFile(dir: string): Promise<string> {
  let last = -1
  for (let i = 0; i < 600; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const name = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'))
    if (name === undefined) continue
    const path = join(dir, name)
    const size = readFileSync(path).length
    if (size > 0 && size === last) return path
    last = size
  }
  throw new Error('no heap snapshot within 300 s')
}

/**
 * Sums a V8 heap snapshot by group: objects and closures by constructor/function name, strings
 * as one group, arrays and hidden nodes by their name ("(object properties)", "system / Map").
 */
function tally(path: string): Tally {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
  const fields = snap.snapshot.meta.node_fields
  const types = snap.snapshot.meta.node_types[0]
  const width = fields.length
  const typeAt = fields.indexOf('type')
  const nameAt = fields.indexOf('name')
  const sizeAt = fields.indexOf('self_size')
  const out: Tally = new Map()
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt] as number] as string
    const name = snap.strings[snap.nodes[i + nameAt] as number] as string
    const key =
      type === 'string' || type === 'concatenated string' || type === 'sliced string'
        ? 'string'
        : type === 'number'
          ? 'heap number'
          : type === 'code'
            ? 'code'
            : `${type}: ${name.length > 48 ? name.slice(0, 45) + '...' : name}`
    const entry = out.get(key)
    const bytes = snap.nodes[i + sizeAt] as number
    if (entry === undefined) out.set(key, { count: 1, bytes })
    else {
      entry.count++
      entry.bytes += bytes
    }
  }
  return out
}

function totals(t: Tally): { count: number; bytes: number } {
  let count = 0
  let bytes = 0
  for (const v of t.values()) {
    count += v.count
    bytes += v.bytes
  }
  return { count, bytes }
}

const small = await measure(100)
console.log(
  `${scenario.id} grown, ${values.cli}\n  100 txns: start-up ${small.startupMs} ms, RSS ${small.rssMiB} MiB` +
    (small.heap === null ? '' : `, heap ${(totals(small.heap).bytes / 1048576).toFixed(1)} MiB`),
)
for (const size of sizes) {
  const m = await measure(size)
  const added = size - 100
  let line = `  ${size} txns: start-up ${m.startupMs} ms, RSS ${m.rssMiB} MiB`
  if (m.heap !== null && small.heap !== null) {
    const all = totals(m.heap)
    const base = totals(small.heap)
    line +=
      `, heap ${(all.bytes / 1048576).toFixed(1)} MiB; per added transaction ` +
      `${((all.bytes - base.bytes) / added).toFixed(0)} bytes in ${((all.count - base.count) / added).toFixed(1)} heap nodes`
    console.log(line)
    const rows = [...m.heap.entries()]
      .map(([key, v]) => {
        const b = small.heap?.get(key) ?? { count: 0, bytes: 0 }
        return { key, count: (v.count - b.count) / added, bytes: (v.bytes - b.bytes) / added }
      })
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, Number(values.top))
    for (const r of rows) {
      console.log(
        `    ${r.bytes.toFixed(1).padStart(8)} B ${r.count.toFixed(2).padStart(6)} nodes  ${r.key}`,
      )
    }
  } else console.log(line)
}
rmSync(work, { recursive: true, force: true })
